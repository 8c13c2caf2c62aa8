import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { createdBetween, listOrder } from '../../db/list-sql.js';
import { firstRow } from '../../db/rows.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { QueuedContacts } from '../carriers/index.js';
import { cancelAutomatedOutreaches, emitMoved, type OutreachEventRow } from './outreach-queries.js';
import type { OutreachFilters, OutreachSortField } from './outreaches-schemas.js';
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
  return firstRow(
    await db
      .insert(outreaches)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertOutreach',
  );
}

export async function findOutreachOfCall(db: DbOrTx, scope: OrgScope, callId: string) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.call_id, callId)))
    .limit(1);
  return row ?? null;
}

const SORT_COLUMNS: Record<OutreachSortField, AnyPgColumn> = {
  created_at: outreaches.created_at,
  updated_at: outreaches.updated_at,
  status: outreaches.status,
};

/** The list's filters as one condition, always inside the organization. */
function outreachesWhere(scope: OrgScope, q: OutreachFilters) {
  const conditions: SQL[] = [eq(outreaches.organization_id, scope.organizationId)];
  if (q.load_id) conditions.push(eq(outreaches.load_id, q.load_id));
  if (q.carrier_id) conditions.push(eq(outreaches.carrier_id, q.carrier_id));
  if (q.modality?.length) conditions.push(inArray(outreaches.modality, q.modality));
  if (q.status?.length) conditions.push(inArray(outreaches.status, q.status));
  if (q.is_automated !== undefined) conditions.push(eq(outreaches.is_automated, q.is_automated));
  conditions.push(...createdBetween(outreaches.created_at, q));
  return and(...conditions);
}

export async function listOutreaches(
  db: DbOrTx,
  scope: OrgScope,
  q: OutreachFilters,
  sort: { field: OutreachSortField; desc: boolean },
  page: { page: number; page_size: number },
) {
  const where = outreachesWhere(scope, q);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(outreaches)
      .where(where)
      .orderBy(...listOrder(SORT_COLUMNS[sort.field], outreaches.id, sort.desc))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    db.select({ n: count() }).from(outreaches).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The outreaches the filters match, counted per (status, modality): one scan, a few rows. */
export function outreachCounts(db: DbOrTx, scope: OrgScope, q: OutreachFilters) {
  return db
    .select({ status: outreaches.status, modality: outreaches.modality, n: count() })
    .from(outreaches)
    .where(outreachesWhere(scope, q))
    .groupBy(outreaches.status, outreaches.modality);
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
          AND coalesce(sent_at, created_at) < envoy_now() - make_interval(secs => ${hours * 3600})
          ${organizationId ? sql`AND organization_id = ${organizationId}` : sql``}
        FOR UPDATE SKIP LOCKED)
      UPDATE outreaches o SET status = 'no_response', updated_at = envoy_now()
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
    .set({ delivery_failed_at: productNow, delivery_failure_reason: reason, updated_at: productNow })
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)));
}
