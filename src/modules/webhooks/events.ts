import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { EventType } from '../../domain/events.js';
import { newId } from '../../domain/ids.js';
import { events, webhookDeliveries, webhookEndpoints } from './webhooks-tables.js';

/** An event to emit: a catalogue type (see event-types.ts) and its payload. */
export interface EventInput {
  readonly type: EventType;
  /** The payload, or a function building it (called only when some endpoint subscribes). */
  readonly data: unknown;
}

const payloadOf = async (data: unknown) =>
  typeof data === 'function' ? await (data as () => unknown)() : data;

/**
 * THE way to emit webhook events. Call it with the transaction that makes the change, so the
 * event exists exactly when the change does (an outbox). Writes one `events` row per event that
 * at least one ACTIVE or PAUSED endpoint of the organization subscribes to (its type or `*`), and
 * one pending delivery per such endpoint; the delivery worker sends them after the commit.
 * Events nobody subscribes to are not stored. Returns the ids of the events written.
 */
export async function emitEvents(
  tx: DbOrTx,
  organizationId: string,
  items: readonly EventInput[],
): Promise<string[]> {
  if (items.length === 0) return [];
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, event_types: webhookEndpoints.event_types })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.organization_id, organizationId),
        inArray(webhookEndpoints.status, ['ACTIVE', 'PAUSED']),
      ),
    );
  if (endpoints.length === 0) return [];
  const now = new Date();
  const eventRows: (typeof events.$inferInsert)[] = [];
  const deliveryRows: (typeof webhookDeliveries.$inferInsert)[] = [];
  for (const item of items) {
    const targets = endpoints.filter((e) => e.event_types.includes('*') || e.event_types.includes(item.type));
    if (targets.length === 0) continue;
    const id = newId('event');
    eventRows.push({
      id,
      organization_id: organizationId,
      type: item.type,
      data: await payloadOf(item.data),
      created_at: now,
    });
    for (const t of targets) {
      deliveryRows.push({
        id: newId('delivery'),
        organization_id: organizationId,
        endpoint_id: t.id,
        event_id: id,
        next_attempt_at: now,
      });
    }
  }
  if (eventRows.length === 0) return [];
  await tx.insert(events).values(eventRows);
  for (let i = 0; i < deliveryRows.length; i += 1000) {
    await tx.insert(webhookDeliveries).values(deliveryRows.slice(i, i + 1000));
  }
  return eventRows.map((e) => e.id);
}

/** One event: `emitEvents` with a single item. */
export async function emitEvent(tx: DbOrTx, organizationId: string, type: EventType, data: unknown) {
  return (await emitEvents(tx, organizationId, [{ type, data }]))[0] ?? null;
}

/** The `data` of outreach.* events: ids, modality and the status (with the one before). */
export const outreachEventData = (
  o: {
    id: string;
    carrier_id: string | null;
    load_id: string | null;
    modality: string | null;
    status: string;
  },
  previous: string | null = null,
) => ({
  outreach_id: o.id,
  carrier_id: o.carrier_id,
  load_id: o.load_id,
  modality: o.modality,
  status: o.status,
  previous_status: previous,
});
