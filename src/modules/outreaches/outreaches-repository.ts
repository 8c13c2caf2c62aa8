import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { QueuedContacts } from '../carriers/index.js';
import { cancelAutomatedOutreaches, emitMoved, type OutreachEventRow } from './outreach-queries.js';
import type { ListOutreachesQuery } from './outreaches-schemas.js';
import { outreaches } from './outreaches-tables.js';

export {
  cancelAutomatedOutreaches,
  findOutreach,
  type OutreachRow,
  recordReply,
} from './outreach-queries.js';

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

/** The carriers module's queued contacts of a carrier: its automated outreaches not sent yet. */
export const queuedOutreaches: QueuedContacts = {
  withdrawForCarrier: (tx, organizationId, carrierId, reason) =>
    cancelAutomatedOutreaches(tx, { carrierId, organizationId }, reason),
};

/** The outreach e-mail bounced: stamped apart from `status`, which a bounce does not change. */
export async function recordDeliveryFailure(db: DbOrTx, scope: OrgScope, id: string, reason: string) {
  await db
    .update(outreaches)
    .set({ delivery_failed_at: sql`now()`, delivery_failure_reason: reason, updated_at: sql`now()` })
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)));
}
