// The outreach records of the agent's e-mail and WhatsApp contacts: claimed, sent, failed, found
// again by conversation, message or address. Other modules use them through index.ts.

import { and, asc, desc, eq, inArray, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import type { NewOutreach, OutreachRow } from './outreach-queries.js';
import { emitEvent, outreachEventData } from './outreaches-events.js';
import { outreaches } from './outreaches-tables.js';

/** The channels the agent writes on. */
export type ChannelModality = 'email' | 'whatsapp';

/** Inserts outreaches (the agent's planned wave) and returns the rows; the caller emits the events. */
export function insertOutreaches(tx: DbOrTx, rows: NewOutreach[]) {
  return tx.insert(outreaches).values(rows).returning();
}

/** Claims outreaches for sending: pending to active, sent now; emits outreach.status_changed. */
export async function activateOutreaches(tx: DbOrTx, ids: string[]): Promise<OutreachRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx
    .update(outreaches)
    .set({ status: 'active', sent_at: productNow, updated_at: productNow })
    .where(inArray(outreaches.id, ids))
    .returning();
  for (const row of rows) {
    await emitEvent(tx, row.organization_id, 'outreach.status_changed', outreachEventData(row, 'pending'));
  }
  return rows;
}

/** The channel's id of the first message, once it went out. */
export async function stampSent(db: DbOrTx, outreachId: string, externalId: string | null) {
  await db
    .update(outreaches)
    .set({ external_message_id: externalId, sent_at: productNow, updated_at: productNow })
    .where(eq(outreaches.id, outreachId));
}

/** An outreach the channel refused ends failed with the reason (if still open). */
export async function failOutreach(db: Db, outreach: OutreachRow, reason: string) {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(outreaches)
      .set({ status: 'failed', error_reason: reason.slice(0, 500), updated_at: productNow })
      .where(and(eq(outreaches.id, outreach.id), inArray(outreaches.status, ['pending', 'active'])))
      .returning();
    if (row) {
      await emitEvent(
        tx,
        row.organization_id,
        'outreach.status_changed',
        outreachEventData(row, outreach.status),
      );
    }
  });
}

/** An outreach by id, on the channel. */
export async function outreachOnChannel(db: DbOrTx, id: string, modality: ChannelModality) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(and(eq(outreaches.id, id), eq(outreaches.modality, modality)));
  return row ?? null;
}

export async function outreachOfConversation(db: DbOrTx, conversationId: string) {
  const [row] = await db.select().from(outreaches).where(eq(outreaches.conversation_id, conversationId));
  return row ?? null;
}

/** The newest outreach to a carrier about a load on one channel, in the organization. */
export async function latestOutreachOnChannel(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  carrierId: string,
  modality: ChannelModality,
) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(
      and(
        eq(outreaches.organization_id, organizationId),
        eq(outreaches.load_id, loadId),
        eq(outreaches.carrier_id, carrierId),
        eq(outreaches.modality, modality),
      ),
    )
    .orderBy(desc(outreaches.created_at), desc(outreaches.id))
    .limit(1);
  return row ?? null;
}

/**
 * Every outreach of one conversation with one carrier, not withdrawn, first created first: several
 * when one message offered the carrier several loads.
 */
export function outreachesOfConversation(db: DbOrTx, conversationId: string, carrierId: string) {
  return db
    .select()
    .from(outreaches)
    .where(
      and(
        eq(outreaches.conversation_id, conversationId),
        eq(outreaches.carrier_id, carrierId),
        isNull(outreaches.cancelled_at),
      ),
    )
    .orderBy(asc(outreaches.created_at), asc(outreaches.id));
}

/**
 * The latest outreaches (up to 20, newest first) on a channel to an address, started in the 30
 * days before `at`; with `sentOnly`, those whose message went out.
 */
export async function recentToAddress(
  db: DbOrTx,
  modality: ChannelModality,
  address: string,
  at: Date,
  sentOnly: boolean,
): Promise<OutreachRow[]> {
  return db
    .select()
    .from(outreaches)
    .where(
      and(
        eq(outreaches.modality, modality),
        sql`lower(${outreaches.address}) = ${address.toLowerCase()}`,
        sentOnly ? sql`${outreaches.sent_at} IS NOT NULL` : undefined,
        sql`${outreaches.created_at} <= ${at.toISOString()}::timestamptz + interval '5 minutes'`,
        sql`${outreaches.created_at} > ${at.toISOString()}::timestamptz - interval '30 days'`,
      ),
    )
    .orderBy(desc(outreaches.created_at))
    .limit(20);
}

/** Stamps `delivery_failed_at` on an outreach whose message never arrived; `status` stays. */
export async function markUndelivered(db: DbOrTx, outreachId: string, reason: string, at: Date) {
  // A failure reported late, after the carrier already answered, marks nothing: it was reached.
  await db
    .update(outreaches)
    .set({ delivery_failed_at: at, delivery_failure_reason: reason.slice(0, 500), updated_at: productNow })
    .where(and(eq(outreaches.id, outreachId), sql`coalesce(${outreaches.carrier_engaged}, false) = false`));
}

/**
 * The outreach whose first message carries one of `ids` (a parameter of message ids), or whose id
 * `laterIn` (the caller's subquery of outreach ids) returns.
 */
export async function outreachOfMessageIds(
  db: DbOrTx,
  modality: ChannelModality,
  ids: SQLWrapper,
  laterIn: SQL,
) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(
      and(
        eq(outreaches.modality, modality),
        sql`(${outreaches.external_message_id} = ANY(${ids}::text[]) OR ${outreaches.id} IN (
          ${laterIn}))`,
      ),
    )
    .limit(1);
  return row ?? null;
}
