/** What other modules use of the webhook events and the live stream. */

export { EventStreamHub, type StreamOwner, type TicketGrant } from './event-stream.js';
export { type EventEmitters, emitEvent, emitEvents, emittersOf, eventEnvelope } from './events.js';
export { type EventCatalogue, typeNames, webhookEvents } from './webhooks-events.js';
