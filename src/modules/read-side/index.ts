/**
 * Reads that join tables of several modules (the agent's candidates, a load's offer figures, the
 * results' activity). Each table's writes stay with the module that owns it; a read that needs
 * another module's rows alone goes through that module's index.ts, and one that joins several
 * owners' tables lives here. This module imports no other module, so any module may use it.
 */

// The agent's reads.
export {
  type CandidateRow,
  type CheckedRow,
  type CheckLimits,
  checkInOrder,
  type RankedCandidate,
  rankCandidates,
} from './carrier-candidates.js';
export { carrierHasLoadInFlight } from './carriers-in-flight.js';
export {
  type ContactWindow,
  contactCountsSql,
  type MostLoads,
  offeredWithinSql,
  openBundleSql,
  URGENT_PICKUP_HOURS,
} from './contact-history.js';
export {
  type CarrierRefusalRow,
  carrierRefusalRows,
  type GuardedRows,
  type LoadGateRow,
  loadGateRows,
  refusalSql,
} from './contact-refusal.js';
export { type DueOutreach, dueOutreachRows, pendingJoinsOf } from './due-outreaches.js';
export {
  bookingsToEscalate,
  loadHasAcceptedOffer,
  offerAwaitsReview,
  offerIsAccepted,
} from './escalation-subjects.js';
export { type HeldOffer, heldOffersOfPassedCarriers } from './held-offer-reads.js';
export { type LaneLoad, laneLoadRows } from './lane-sweep-reads.js';
export {
  carrierAtPhoneDigits,
  carrierOfOutreach,
  MARKET_CARRIER_COLUMNS,
  type MarketCarrierRow,
  type MarketLoadRow,
  marketLoadRows,
} from './market-reads.js';
export { type ContactState, contactStatesOf, planningFactsRow } from './planning-reads.js';
export { type LoadStanding, loadStanding, type TimelineRow, timelineRows } from './results-activity.js';
export {
  offersToReviewSql,
  openReviewItemRows,
  type ReviewItem,
  reviewItemsDueSql,
  reviewItemsOfSql,
} from './review-item-reads.js';
export {
  dueWorkableLoadsSql,
  unworkableQueued,
  workableLoadsToEnrolSql,
  workableSql,
} from './workable-loads.js';
