/** What other modules use of the outreaches. */
export { contactRefusal, refusalSql } from './contact-guard.js';
export {
  cancelAutomatedOutreaches,
  countLoadsWithActiveOutreach,
  findOutreach,
  loadHasActiveOutreach,
  type OutreachRow,
  recordReply,
} from './outreach-queries.js';
export { outreachIdParams } from './outreaches-schemas.js';
