/** What other modules use of the offers. */
export {
  acceptablePendingOffer,
  acceptedOfferOfLoad,
  counterOffered,
  countLoadsWithPendingOffer,
  loadHasPendingOffer,
  loadNotBooked,
} from './offer-queries.js';
export type { OfferPolicy, OfferReceiver } from './offer-types.js';
export { loadIdParams, offerSchema } from './offers-schemas.js';
