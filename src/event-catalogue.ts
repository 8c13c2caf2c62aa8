// The webhook event catalogue, put together where every module is in sight: each module declares
// the events it emits (its *-events.ts), and the webhooks module, which knows none of them, is
// handed this list (GET /webhooks/event-types, the subscription enums) by the composition root.

import { callEvents } from './modules/calls/index.js';
import { carrierEvents } from './modules/carriers/index.js';
import { loadEvents } from './modules/loads/index.js';
import { offerEvents } from './modules/offers/index.js';
import { outreachEvents } from './modules/outreaches/index.js';
import { type EventCatalogue, webhookEvents } from './modules/webhooks/index.js';

const definitions = {
  ...loadEvents,
  ...carrierEvents,
  ...offerEvents,
  ...callEvents,
  ...outreachEvents,
  ...webhookEvents,
};
type EventType = keyof typeof definitions;

/**
 * The order integrators see the types in (GET /webhooks/event-types and the OpenAPI enums): by
 * resource, as the API reference lists them. Each declared type appears exactly once: a type
 * missing here, or one no module declares, does not compile.
 */
const ORDER = [
  'load.created',
  'load.updated',
  'load.status_changed',
  'load.booked',
  'load.unbooked',
  'carrier.created',
  'carrier.updated',
  'carrier.disabled',
  'carrier.enabled',
  'carrier.compliance_changed',
  'lane_preference.restricted',
  'lane_preference.unrestricted',
  'lane_preference.updated',
  'offer.created',
  'offer.status_changed',
  'offer.countered',
  'offer.review_requested',
  'offer.review_escalated',
  'call.created',
  'call.status_changed',
  'outreach.created',
  'outreach.status_changed',
  'elp_test.completed',
  'elp_test.scored',
  'elp_test.failed',
  'ping',
] as const satisfies readonly EventType[];
// Every declared type is in ORDER (the `satisfies` above checks the converse).
const everyTypeOrdered: Exclude<EventType, (typeof ORDER)[number]> extends never ? true : never = true;
void everyTypeOrdered;

/** Every event type in catalogue order, with its description and payload. */
export const eventCatalogue: EventCatalogue = [
  { type: ORDER[0], ...definitions[ORDER[0]] },
  ...ORDER.slice(1).map((type) => ({ type, ...definitions[type] })),
];
