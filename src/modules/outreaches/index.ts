/** What other modules use of the outreaches. */
export { contactRefusal, refusalSql } from './contact-guard.js';
export {
  attachCallToOutreach,
  cancelAutomatedOutreaches,
  countLoadsWithActiveOutreach,
  findOutreach,
  followCallOutreach,
  loadHasActiveOutreach,
  type OutreachRow,
  openCallOutreach,
  recordInboundCallOutreach,
  recordReply,
} from './outreach-queries.js';
export { outreachIdParams } from './outreaches-schemas.js';
