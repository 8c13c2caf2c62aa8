/** What other modules use of the carriers. */
export type { CarrierCreator } from './carrier-creator.js';
export {
  type CarrierRow,
  calleeById,
  callerNumberMatches,
  carrierCensusContact,
  carrierNameOf,
  carrierNamesOf,
  carriersAtNumber,
  contactsOf,
  findCarrier,
  findCarrierIdByNumber,
  findCarriers,
  findContactOfCarrier,
  findHaulingCarrier,
} from './carrier-queries.js';
export { toCarrier } from './carrier-shape.js';
export { carrierEvents } from './carriers-events.js';
export { carrierInput, carrierSchema, digitsOnly, lanePreferenceSchema } from './carriers-schemas.js';
export { claimCarriersInFlight, claimDueChecks, makeCheckDue } from './compliance-due.js';
export { isFreeMail } from './fraud-signals.js';
export { lanePreferenceStamps } from './lane-preference-stamps.js';
export type { QueuedContacts, StopContactRequests } from './stop-contact.js';
export {
  heldByStrictMode,
  passesVetting,
  readVettingPolicy,
  type VettingPolicy,
} from './vetting-policy.js';
export { fraudSignalSchema } from './vetting-schemas.js';
