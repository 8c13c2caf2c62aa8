import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { QueuedContacts } from '../carriers/stop-contact.js';
import { emitEvents, outreachEventData } from '../webhooks/events.js';
import type { ListOutreachesQuery } from './outreaches-schemas.js';
import { outreaches } from './outreaches-tables.js';

export type OutreachRow = typeof outreaches.$inferSelect;

export async function insertOutreach(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof outreaches.$inferInsert, 'organization_id'>,
) {
  const [row] = await db
    .insert(outreaches)
    .values({ ...values, organization_id: scope.organizationId })
    .returning();
  return row!;
}

export async function findOutreach(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
    .limit(1);
  return row ?? null;
}

export async function findOutreachOfCall(db: DbOrTx, scope: OrgScope, callId: string) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.call_id, callId)))
    .limit(1);
  return row ?? null;
}

export async function listOutreaches(
  db: DbOrTx,
  scope: OrgScope,
  q: Omit<ListOutreachesQuery, 'page' | 'page_size'>,
  page: { page: number; page_size: number },
) {
  const conditions: SQL[] = [eq(outreaches.organization_id, scope.organizationId)];
  if (q.load_id) conditions.push(eq(outreaches.load_id, q.load_id));
  if (q.carrier_id) conditions.push(eq(outreaches.carrier_id, q.carrier_id));
  if (q.modality?.length) conditions.push(inArray(outreaches.modality, q.modality));
  if (q.status?.length) conditions.push(inArray(outreaches.status, q.status));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(outreaches)
      .where(where)
      .orderBy(desc(outreaches.created_at), desc(outreaches.id))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    db.select({ n: count() }).from(outreaches).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/**
 * Moves e-mail and WhatsApp outreaches still open after `hours` without the carrier engaging to
 * `no_response`. One statement: safe with several instances sweeping at once. Returns the ids moved.
 */
export async function sweepUnanswered(db: DbOrTx, hours: number, organizationId?: string): Promise<string[]> {
  return db.transaction(async (tx) => {
    const result = await tx.execute<OutreachEventRow & { previous_status: string }>(sql`
      WITH due AS (
        SELECT id, status AS previous_status FROM outreaches
        WHERE modality IN ('email', 'whatsapp')
          AND status IN ('pending', 'active')
          AND coalesce(carrier_engaged, false) = false
          AND NOT (is_automated AND status = 'pending')
          AND coalesce(sent_at, created_at) < now() - make_interval(secs => ${hours * 3600})
          ${organizationId ? sql`AND organization_id = ${organizationId}` : sql``}
        FOR UPDATE SKIP LOCKED)
      UPDATE outreaches o SET status = 'no_response', updated_at = now()
      FROM due WHERE o.id = due.id
      RETURNING o.id, o.organization_id, o.carrier_id, o.load_id, o.modality, o.status, due.previous_status`);
    await emitMoved(tx, result.rows, new Map(result.rows.map((r) => [r.id, r.previous_status])));
    return result.rows.map((r) => r.id);
  });
}

interface OutreachEventRow {
  [key: string]: unknown;
  id: string;
  organization_id: string;
  carrier_id: string | null;
  load_id: string | null;
  modality: string | null;
  status: string;
}

/**
 * Withdraws queued automated outreaches before they go out (load covered or no longer worked,
 * carrier asked to stop): `failed` with the reason and `cancelled_at`, since the spec's statuses
 * have no "cancelled". Emits outreach.status_changed in the caller's transaction.
 */
export async function cancelAutomatedOutreaches(
  tx: DbOrTx,
  which: { ids: string[] } | { loadId: string } | { carrierId: string; organizationId: string },
  reason: string,
): Promise<OutreachRow[]> {
  const where =
    'ids' in which
      ? inArray(outreaches.id, which.ids)
      : 'loadId' in which
        ? eq(outreaches.load_id, which.loadId)
        : and(
            eq(outreaches.organization_id, which.organizationId),
            eq(outreaches.carrier_id, which.carrierId),
          );
  const rows = await tx
    .update(outreaches)
    .set({ status: 'failed', error_reason: reason, cancelled_at: sql`now()`, updated_at: sql`now()` })
    .where(and(where, eq(outreaches.is_automated, true), eq(outreaches.status, 'pending')))
    .returning();
  await emitMoved(tx, rows, 'pending');
  return rows;
}

/** The carriers module's queued contacts of a carrier: its automated outreaches not sent yet. */
export const queuedOutreaches: QueuedContacts = {
  withdrawForCarrier: (tx, organizationId, carrierId, reason) =>
    cancelAutomatedOutreaches(tx, { carrierId, organizationId }, reason),
};

/** outreach.status_changed for moved rows, grouped by organization, in the caller's transaction. */
async function emitMoved(tx: DbOrTx, rows: OutreachEventRow[], previous: string | Map<string, string>) {
  const byOrg = new Map<string, OutreachEventRow[]>();
  for (const r of rows) byOrg.set(r.organization_id, [...(byOrg.get(r.organization_id) ?? []), r]);
  for (const [org, list] of byOrg) {
    await emitEvents(
      tx,
      org,
      list.map((r) => ({
        type: 'outreach.status_changed',
        data: outreachEventData(r, typeof previous === 'string' ? previous : (previous.get(r.id) ?? null)),
      })),
    );
  }
}

/** The carrier answered an e-mail or WhatsApp outreach: it is completed and the carrier engaged. */
export async function recordReply(db: DbOrTx, scope: OrgScope, id: string) {
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: outreaches.status })
      .from(outreaches)
      .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
      .for('update');
    if (!before) return;
    const rows = await tx
      .update(outreaches)
      .set({ status: 'completed', carrier_engaged: true, updated_at: sql`now()` })
      .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
      .returning();
    if (before.status !== 'completed') await emitMoved(tx, rows, new Map([[id, before.status]]));
  });
}

/** The outreach e-mail bounced: stamped apart from `status`, which a bounce does not change. */
export async function recordDeliveryFailure(db: DbOrTx, scope: OrgScope, id: string, reason: string) {
  await db
    .update(outreaches)
    .set({ delivery_failed_at: sql`now()`, delivery_failure_reason: reason, updated_at: sql`now()` })
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)));
}
