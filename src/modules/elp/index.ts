/** What other modules use of the English-proficiency tests. */
export { ELP_QUESTIONS, ELP_RUBRIC, elpQuestion, INTERVIEW_PASS, nextElpQuestion } from './elp-questions.js';
export {
  elpAnswersOf,
  elpNamesOfCall,
  elpTestIdOfCall,
  findElpTestOfCall,
  recordElpAnswer,
  requestElpTest,
  scoreElpTest,
} from './elp-records.js';
export { elpIdParams, elpTestSchema, listElpQuery, startElpBody } from './elp-schemas.js';
export type { ElpService } from './elp-service.js';
