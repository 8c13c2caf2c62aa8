import { z } from 'zod';
import type { EventType } from '../../domain/events.js';
import { callSchema } from '../calls/index.js';
import { carrierSchema, fraudSignalSchema, lanePreferenceSchema } from '../carriers/index.js';
import { bookedOfferSchema, offerReviewSchema, offerSchema } from '../offers/index.js';

const loadEvent = z.object({
  load_id: z.string(),
  tms_load_id: z.string().nullable(),
  external_id: z.string().nullable(),
  load_number: z.string().nullable(),
  load_status: z.string().nullable(),
  previous_load_status: z.string().nullable().optional(),
});
const { previous_load_status: _previous, ...loadIds } = loadEvent.shape;
const bookingEvent = z.object({ ...loadIds, booked_offer: bookedOfferSchema });
const unbookingEvent = z.object({
  ...loadIds,
  offer_status: z.enum(['pending', 'rejected']).meta({ description: 'What the accepted offer became' }),
  previous_booked_offer: bookedOfferSchema,
});
const complianceEvent = z.object({
  carrier_id: z.string(),
  compliance_status: z.string(),
  previous_compliance_status: z.string().nullable(),
  reasons: z.array(z.string()),
  risk_level: z.enum(['low', 'medium', 'high']),
  previous_risk_level: z.enum(['low', 'medium', 'high']).nullable(),
  risk_reasons: z.array(z.string()),
  signals: z.array(fraudSignalSchema),
});
const callStatusEvent = callSchema.extend({ previous_status: z.string().nullable() });
const outreachEvent = z.object({
  outreach_id: z.string(),
  carrier_id: z.string().nullable(),
  load_id: z.string().nullable(),
  modality: z.string().nullable(),
  status: z.string(),
  previous_status: z.string().nullable().optional(),
});
const elpEvent = z.object({
  elp_test_id: z.string(),
  call_id: z.string().nullable(),
  status: z.string(),
  scoring_status: z.string().nullable(),
  total_score: z.number().nullable(),
});
const offerStatusEvent = offerSchema.extend({ previous_status: z.string() });
const pingEvent = z.object({ endpoint_id: z.string(), message: z.string() });

/** The event catalogue (docs/design.md, "Webhooks"): each type, what it means and the shape of `data`. */
export const EVENT_TYPES = {
  'load.created': {
    description: 'A load was created (POST /loads, batch or TMS ingestion).',
    data: loadEvent,
  },
  'load.updated': { description: 'A load was updated by an upsert.', data: loadEvent },
  'load.status_changed': { description: "A load's `load_status` changed.", data: loadEvent },
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
  'carrier.created': { description: 'A carrier was created.', data: carrierSchema },
  'carrier.updated': {
    description: 'A carrier was updated (PATCH or an ingestion upsert).',
    data: carrierSchema,
  },
  'carrier.disabled': { description: 'A carrier was disabled.', data: carrierSchema },
  'carrier.enabled': { description: 'A carrier was enabled.', data: carrierSchema },
  'carrier.compliance_changed': {
    description:
      "A compliance check changed the carrier's verdict, risk level or fraud signals (a check on creation or update, a background re-check, the monitoring of carriers with loads in flight).",
    data: complianceEvent,
  },
  'lane_preference.restricted': {
    description: 'A carrier was restricted (do not use).',
    data: lanePreferenceSchema,
  },
  'lane_preference.unrestricted': {
    description: 'A carrier restriction was lifted.',
    data: lanePreferenceSchema,
  },
  'offer.created': { description: 'An offer was recorded (API, rep or voice agent).', data: offerSchema },
  'offer.status_changed': { description: "An offer's status changed.", data: offerStatusEvent },
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
  'call.created': { description: 'A call was created.', data: callSchema },
  'call.status_changed': { description: "A call's status moved forward.", data: callStatusEvent },
  'outreach.created': { description: 'An outreach started.', data: outreachEvent },
  'outreach.status_changed': { description: "An outreach's status changed.", data: outreachEvent },
  'elp_test.completed': {
    description: 'An ELP test left REQUESTED (COMPLETED, FAILED or INCOMPLETE).',
    data: elpEvent,
  },
  'elp_test.scored': { description: 'An ELP test was scored.', data: elpEvent },
  ping: { description: 'A test event sent by POST /webhooks/endpoints/{id}/test.', data: pingEvent },
} as const satisfies Record<EventType, { description: string; data: z.ZodType }>;

/** JSON schema of a payload; datetimes are ISO 8601 strings on the wire. */
export function payloadSchema(type: EventType): Record<string, unknown> {
  const data = EVENT_TYPES[type].data;
  const dataSchema = z.toJSONSchema(data, {
    io: 'output',
    unrepresentable: 'any',
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') {
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
      }
    },
  });
  return dataSchema;
}
