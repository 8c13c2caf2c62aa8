/** What other modules use of the webhook events. */
export { emitEvent, emitEvents, outreachEventData } from './events.js';
