// The webhook event catalogue, put together where every module is in sight: each module declares
// the events it emits (its *-events.ts), and the webhooks module, which knows none of them, is
// handed this list (GET /webhooks/event-types) by the composition root.

import { EVENT_TYPE_NAMES, type EventDefinitions, type EventType } from './domain/events.js';
import { callEvents } from './modules/calls/index.js';
import { carrierEvents } from './modules/carriers/index.js';
import { loadEvents } from './modules/loads/index.js';
import { offerEvents } from './modules/offers/index.js';
import { outreachEvents } from './modules/outreaches/index.js';
import { type EventCatalogue, webhookEvents } from './modules/webhooks/index.js';

const definitions: EventDefinitions<EventType> = {
  ...loadEvents,
  ...carrierEvents,
  ...offerEvents,
  ...callEvents,
  ...outreachEvents,
  ...webhookEvents,
};

/** Every event type in catalogue order (EVENT_TYPE_NAMES), with its description and payload. */
export const eventCatalogue: EventCatalogue = EVENT_TYPE_NAMES.map((type) => ({
  type,
  ...definitions[type],
}));
