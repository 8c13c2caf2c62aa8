/** What other modules use of the webhook events. */

export { EventStreamHub, type StreamOwner } from './event-stream.js';
export type { TicketGrant } from './event-stream-repository.js';
export { emitEvent, emitEvents, eventEnvelope, outreachEventData } from './events.js';
