/** What other modules use of the outreaches. */
export { contactRefusal, type RefusalReason } from './contact-guard.js';
export { claimReceipt, purgeReceipts, receiptOutcome, settleReceipt } from './inbound-receipts.js';
export { type GateReason, type GateVerdict, gateReason, offerGate } from './offer-gate.js';
export {
  activateOutreaches,
  type ChannelModality,
  failOutreach,
  insertOutreaches,
  latestOutreachOnChannel,
  markUndelivered,
  outreachesOfConversation,
  outreachOfConversation,
  outreachOfMessageIds,
  outreachOnChannel,
  recentToAddress,
  stampSent,
} from './outreach-channel-queries.js';
export {
  attachCallToOutreaches,
  cancelAutomatedOutreaches,
  countLoadsWithActiveOutreach,
  findOutreach,
  followCallOutreach,
  loadHasActiveOutreach,
  loadsOfCall,
  type NewOutreach,
  type OutreachRow,
  openCallOutreach,
  recordInboundCallOutreach,
  recordReply,
} from './outreach-queries.js';
export { emitEvents as emitOutreachEvents, outreachEventData, outreachEvents } from './outreaches-events.js';
export { outreachIdParams } from './outreaches-schemas.js';
