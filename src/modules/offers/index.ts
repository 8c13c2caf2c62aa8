/** What other modules use of the offers. */
export {
  acceptablePendingOffer,
  acceptedOfferOfLoad,
  bookedOffersOf,
  countBookedLoads,
  counterOffered,
  countLoadsWithActiveOffer,
  loadHasActiveOffer,
  loadIsBooked,
  loadNotBooked,
  offerOfCallExists,
} from './offer-queries.js';
export type { OfferPolicy, OfferReceiver } from './offer-types.js';
export { emitEvents as emitOfferEvents, offerEvents } from './offers-events.js';
export {
  offerReviewSchema,
  offerSchema,
} from './offers-schemas.js';
