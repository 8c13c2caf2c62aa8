/**
 * Reads that join tables of several modules (the agent's candidates, a load's offer figures, the
 * results' activity). Each table's writes stay with the module that owns it; a read that needs
 * another module's rows alone goes through that module's index.ts, and one that joins several
 * owners' tables lives here. This module imports no other module, so any module may use it.
 */

export { carrierHasLoadInFlight } from './carriers-in-flight.js';
export {
  type CarrierRefusalRow,
  carrierRefusalRows,
  type GuardedRows,
  type LoadGateRow,
  loadGateRows,
  refusalSql,
} from './contact-refusal.js';
export {
  bookingsToEscalate,
  loadHasAcceptedOffer,
  offerAwaitsReview,
  offerIsAccepted,
} from './escalation-subjects.js';
export { type LoadStanding, loadStanding, type TimelineRow, timelineRows } from './results-activity.js';
