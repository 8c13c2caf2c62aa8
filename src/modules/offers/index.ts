/** What other modules use of the offers. */
export { counterOffered, type OfferIntake, type OfferPolicy } from './offer-intake.js';
export {
  acceptablePendingOffer,
  acceptedOfferOfLoad,
  countLoadsWithPendingOffer,
  loadHasPendingOffer,
} from './offer-queries.js';
export { loadIdParams, offerSchema } from './offers-schemas.js';
