/** What other modules use of the webhook events and the live stream. */

export { EventStreamHub, type StreamOwner, type TicketGrant } from './event-stream.js';
export { emitEvent, emitEvents, eventEnvelope } from './events.js';
export { type EventCatalogue, webhookEvents } from './webhooks-events.js';
