/** What other modules use of the loads. */

export {
  type CarrierFacingLoad,
  type CarrierFacingStop,
  carrierFacingLoads,
} from './carrier-facing-loads.js';
export {
  escalateLoadsBookedTo,
  escalateOfferReviews,
  type OfferReviewEscalation,
  offerDecided,
} from './escalations.js';
export { lanesOf, loadLane } from './load-lanes.js';
export {
  findLoadFields,
  findStopOfLoad,
  LOAD_ID_IN_BODY,
  LOAD_ID_IN_PATH,
  type LoadReader,
  type LoadReference,
  lockLoads,
  repUserIdOf,
  requireLoad,
  requireLoadLane,
  type StoredStop,
} from './load-queries.js';
export type { LoadRelations } from './load-relations.js';
export { loadEventData, loadEvents } from './loads-events.js';
export {
  type BookedOffer,
  bookedOfferSchema,
  type Load,
  loadFilters,
  loadFiltersShape,
  loadIdParams,
} from './loads-schemas.js';
export { findLoadsByNumber, openLoadsOnLane } from './loads-search.js';
