import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { EventDefinitions } from '../../domain/events.js';
import { newId } from '../../domain/ids.js';
import { eventRetention, events, webhookDeliveries, webhookEndpoints } from './webhooks-tables.js';

/** An event to emit: a catalogue type (declared by the module that emits it) and its payload. */
export interface EventInput {
  readonly type: string;
  /** The payload, or a function building it (called only when some endpoint subscribes). */
  readonly data: unknown;
}

const payloadOf = async (data: unknown) => (typeof data === 'function' ? await data() : data);

/** The NOTIFY channel that tells every instance's live streams an organization has new events. */
export const EVENT_NOTIFICATIONS = 'envoy_events';

/**
 * THE way to emit events. Call it with the transaction that makes the change, so the event exists
 * exactly when the change does (an outbox). Writes one `events` row per event that someone will
 * read: an ACTIVE or PAUSED webhook endpoint of the organization subscribing to its type (or `*`),
 * or the organization's live streams (while `event_retention` says so, every event is kept for
 * them to resume from). Writes one pending delivery per subscribing endpoint; the delivery worker
 * sends them after the commit, and the streams hear of them through a NOTIFY that leaves only if
 * the transaction commits. Events nobody reads are not stored. Returns the ids of the events written.
 */
export async function emitEvents(
  tx: DbOrTx,
  organizationId: string,
  items: readonly EventInput[],
): Promise<string[]> {
  if (items.length === 0) return [];
  // Endpoints and stream interest in one round trip: a stream reads every type, as `*` does.
  const readers = await tx
    .select({ id: webhookEndpoints.id, event_types: webhookEndpoints.event_types })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organization_id, organizationId),
        inArray(webhookEndpoints.status, ['ACTIVE', 'PAUSED']),
      ),
    )
    .unionAll(
      tx
        .select({ id: sql<string>`null`, event_types: sql<string[]>`'["*"]'::jsonb` })
        .from(eventRetention)
        .where(
          and(
            eq(eventRetention.organization_id, organizationId),
            gt(eventRetention.retain_until, sql`now()`),
          ),
        ),
    );
  if (readers.length === 0) return [];
  const endpoints = readers.filter((r) => r.id !== null);
  const streamed = endpoints.length < readers.length;
  const eventRows: (typeof events.$inferInsert)[] = [];
  const deliveryRows: (typeof webhookDeliveries.$inferInsert)[] = [];
  for (const item of items) {
    const targets = endpoints.filter((e) => e.event_types.includes('*') || e.event_types.includes(item.type));
    if (targets.length === 0 && !streamed) continue;
    const id = newId('event');
    eventRows.push({
      id,
      organization_id: organizationId,
      type: item.type,
      data: await payloadOf(item.data),
      // created_at: the product clock's time of the transaction (the column's default), one
      // for every event of the batch; the deliveries are due at once on the machine's clock.
    });
    for (const t of targets) {
      deliveryRows.push({
        id: newId('delivery'),
        organization_id: organizationId,
        endpoint_id: t.id,
        event_id: id,
      });
    }
  }
  if (eventRows.length === 0) return [];
  for (let i = 0; i < eventRows.length; i += 1000) {
    await tx.insert(events).values(eventRows.slice(i, i + 1000));
  }
  for (let i = 0; i < deliveryRows.length; i += 1000) {
    await tx.insert(webhookDeliveries).values(deliveryRows.slice(i, i + 1000));
  }
  if (streamed) await tx.execute(sql`SELECT pg_notify(${EVENT_NOTIFICATIONS}, ${organizationId})`);
  return eventRows.map((e) => e.id);
}

/** What a receiver gets for an event, as a webhook body and as a stream message alike. */
export const eventEnvelope = (e: {
  id: string;
  type: string;
  created_at: Date;
  organization_id: string;
  data: unknown;
}) => ({
  id: e.id,
  type: e.type,
  created_at: e.created_at.toISOString(),
  organization_id: e.organization_id,
  data: e.data,
});

/** One event: `emitEvents` with a single item. */
export async function emitEvent(tx: DbOrTx, organizationId: string, type: string, data: unknown) {
  return (await emitEvents(tx, organizationId, [{ type, data }]))[0] ?? null;
}

/** `emitEvent` and `emitEvents` for the event types one module declares: any other type does not compile. */
export interface EventEmitters<T extends string> {
  emitEvent(tx: DbOrTx, organizationId: string, type: T, data: unknown): Promise<string | null>;
  emitEvents(
    tx: DbOrTx,
    organizationId: string,
    items: readonly { readonly type: T; readonly data: unknown }[],
  ): Promise<string[]>;
}

/** The emitters of a module's events (its `*-events.ts` declares them and exports these). */
export const emittersOf = <T extends string>(_declared: EventDefinitions<T>): EventEmitters<T> => ({
  emitEvent,
  emitEvents,
});
