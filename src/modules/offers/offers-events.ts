import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { bookedOfferSchema, loadEventData } from '../loads/index.js';
import { emittersOf } from '../webhooks/index.js';
import { offerCounterSchema, offerReviewSchema, offerSchema } from './offers-schemas.js';

const { previous_load_status: _previous, ...loadIds } = loadEventData.shape;
const bookingEvent = z.object({ ...loadIds, booked_offer: bookedOfferSchema });
const unbookingEvent = z.object({
  ...loadIds,
  offer_status: z.enum(['pending', 'rejected']).meta({ description: 'What the accepted offer became' }),
  previous_booked_offer: bookedOfferSchema,
});
const offerStatusEvent = offerSchema.extend({ previous_status: z.string() });

/** The events the offers module emits: the offers' own, and the bookings they make and undo. */
export const offerEvents = {
  'load.booked': {
    description:
      'A load was booked: one of its offers was accepted, by a rep or an API client (PATCH /offers/{id}) or ' +
      'by the agent as the offer arrived. Once per booking; `load_status` is unchanged (the TMS owns it).',
    data: bookingEvent,
  },
  'load.unbooked': {
    description:
      "A load's accepted offer went back to pending or rejected: the booking in `previous_booked_offer` " +
      'is undone. A later accept is a new booking, with its own load.booked.',
    data: unbookingEvent,
  },
  'offer.created': { description: 'An offer was recorded (API, rep or voice agent).', data: offerSchema },
  'offer.status_changed': { description: "An offer's status changed.", data: offerStatusEvent },
  'offer.countered': {
    description:
      "A rep's counter-offer (POST /offers/{id}/counter) was said to the carrier in the offer's conversation: " +
      'the round it took and the offer with its `counter_offer_amount`.',
    data: offerCounterSchema,
  },
  'offer.review_requested': {
    description:
      "A carrier's offer within max_buy_rate waits for a rep's decision (the agent holds the load meanwhile). " +
      'Once per offer; GET /agent/reviews lists the open ones.',
    data: offerReviewSchema,
  },
  'offer.review_escalated': {
    description:
      "An offer waiting for a rep's decision waited longer than the organization's review_escalation_minutes. " +
      'Once per offer.',
    data: offerReviewSchema,
  },
} as const satisfies EventDefinitions<
  | 'load.booked'
  | 'load.unbooked'
  | 'offer.created'
  | 'offer.status_changed'
  | 'offer.countered'
  | 'offer.review_requested'
  | 'offer.review_escalated'
>;

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(offerEvents);
