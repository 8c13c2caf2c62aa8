/** What other modules use of the webhook events and the live stream. */

export { type EventEmitters, emitEvent, emitEvents, emittersOf, eventEnvelope } from './event-emitting.js';
export { EventStreamHub, type StreamOwner, type TicketGrant } from './event-stream.js';
export { type EventCatalogue, typeNames, webhookEvents } from './webhooks-events.js';
