/**
 * Receives Envoy's webhook deliveries, checks their Standard Webhooks signature and hands each event
 * to a handler once (deliveries are at least once: the same `webhook-id` may come again).
 *
 * ENVOY_WEBHOOK_SECRET=whsec_... [PORT=8080] npx tsx examples/tms-sync/src/webhooks.ts
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { BookedOffer, Offer } from './envoy.js';

/** The load a load.* event is about, as its `data` names it. */
interface LoadIds {
  load_id: string;
  tms_load_id: string | null;
  external_id: string | null;
  load_number: string | null;
  load_status: string | null;
}

/** A booking made (load.booked) or undone (load.unbooked); `load_status` stays the TMS's. */
export type BookingData =
  | (LoadIds & { booked_offer: BookedOffer })
  | (LoadIds & { offer_status: 'pending' | 'rejected'; previous_booked_offer: BookedOffer });

/** What every delivery carries; `data` is the resource's public shape for offers, carriers, calls. */
export type EnvoyEvent =
  | { id: string; type: 'offer.created' | 'offer.status_changed'; created_at: string; data: Offer }
  | { id: string; type: 'load.booked' | 'load.unbooked'; created_at: string; data: BookingData }
  | { id: string; type: string; created_at: string; data: Record<string, unknown> };

export function isOfferEvent(event: EnvoyEvent): event is Extract<EnvoyEvent, { data: Offer }> {
  return event.type === 'offer.created' || event.type === 'offer.status_changed';
}

export function isBookingEvent(event: EnvoyEvent): event is Extract<EnvoyEvent, { data: BookingData }> {
  return event.type === 'load.booked' || event.type === 'load.unbooked';
}

/** What a TMS would do with a booking: assign the carrier to its load, or take it off again. */
function describeBooking(data: BookingData): string {
  const load = data.tms_load_id ?? data.load_number ?? data.load_id;
  if ('booked_offer' in data) {
    const b = data.booked_offer;
    return `load ${load} booked by the ${b.booked_by} on ${b.carrier_name ?? 'a carrier'} (MC ${b.carrier_mc_number ?? '-'}) at $${b.amount}: assign the carrier in the TMS`;
  }
  return `load ${load} no longer booked on offer ${data.previous_booked_offer.offer_id} (now ${data.offer_status}): unassign the carrier in the TMS`;
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

/**
 * A receiver on `port`. A bad signature or a stale timestamp gets 400 (Envoy retries, then gives
 * up); a verified event gets 204 once `onEvent` has finished, so a failure in it is retried.
 */
export function webhookReceiver(secret: string, onEvent: (event: EnvoyEvent) => Promise<void>): Server {
  const verifier = new Webhook(secret);
  const seen = new Set<string>();
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let event: EnvoyEvent;
      try {
        event = verifier.verify(Buffer.concat(chunks).toString('utf8'), headersOf(request)) as EnvoyEvent;
      } catch {
        response.writeHead(400).end();
        return;
      }
      if (seen.has(event.id)) {
        response.writeHead(204).end();
        return;
      }
      onEvent(event).then(
        () => {
          seen.add(event.id);
          response.writeHead(204).end();
        },
        (err: unknown) => {
          console.error(`handling ${event.type} ${event.id} failed`, err);
          response.writeHead(500).end();
        },
      );
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.ENVOY_WEBHOOK_SECRET;
  if (!secret)
    throw new Error('ENVOY_WEBHOOK_SECRET is not set (the whsec_... shown when the endpoint was created)');
  const port = Number(process.env.PORT ?? 8080);
  webhookReceiver(secret, async (event) => {
    if (isOfferEvent(event)) {
      console.log(`${event.type}: ${event.data.status} $${event.data.offer_amount} on ${event.data.load_id}`);
    } else if (isBookingEvent(event)) {
      console.log(`${event.type}: ${describeBooking(event.data)}`);
    } else {
      console.log(`${event.type} ${event.id}`);
    }
  }).listen(port, () => console.log(`listening for Envoy webhooks on :${port}`));
}
