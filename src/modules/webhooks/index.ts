/** What other modules use of the webhook events and the live stream, and the delivery queue the worker drives. */

export {
  type ClaimedDelivery,
  claimDueDeliveries,
  type DeliverySuccess,
  recordFailure,
  recordSuccesses,
  sealedSecretsOf,
} from './delivery-queue.js';
export { type EventEmitters, emitEvent, emitEvents, emittersOf, eventEnvelope } from './event-emitting.js';
export { EventStreamHub, type StreamOwner, type TicketGrant } from './event-stream.js';
export { type EventCatalogue, typeNames, webhookEvents } from './webhooks-events.js';
