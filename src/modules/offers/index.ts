/** What other modules use of the offers. */

export { conversationOf } from './negotiation-state.js';
export {
  acceptablePendingOffer,
  acceptedOfferOfLoad,
  bookedOffersOf,
  countBookedLoads,
  countLoadsWithActiveOffer,
  loadHasActiveOffer,
  loadIsBooked,
  loadNotBooked,
  offerOfCallExists,
} from './offer-queries.js';
export type {
  CounterChannel,
  CounterConversation,
  CounteredOffer,
  OfferOutcome,
  OfferPolicy,
  OfferPolicyOf,
  OfferReceiver,
  OfferTurn,
  SaidCounter,
} from './offer-types.js';
export { emitEvents as emitOfferEvents, offerEvents } from './offers-events.js';
export {
  offerReviewSchema,
  offerSchema,
} from './offers-schemas.js';
export { offersById } from './offers-service.js';
export { endVettingHold, lockHeldForVetting } from './vetting-holds.js';
