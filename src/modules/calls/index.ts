/** What other modules use of the calls. */
export {
  type CallRow,
  countLoadsWithCalls,
  findCalls,
  listLoadCalls,
  loadHasCall,
  transcriptsOf,
} from './call-queries.js';
export type { CallStarter } from './call-starter.js';
export { callEvents } from './calls-events.js';
export { callSchema, e164, toCall, transcriptMessageSchema } from './calls-schemas.js';
