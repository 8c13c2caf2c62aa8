import { and, count, eq, inArray, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { createdBetween, listOrder } from '../../db/list-sql.js';
import { firstRow } from '../../db/rows.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { acceptedOn } from './offer-queries.js';
import type { OfferFilters, OfferSortField } from './offers-schemas.js';
import { offers } from './offers-tables.js';

export { acceptablePendingOffer } from './offer-queries.js';

export type OfferRow = typeof offers.$inferSelect;

export async function insertOffer(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof offers.$inferInsert, 'organization_id'>,
) {
  return firstRow(
    await db
      .insert(offers)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertOffer',
  );
}

export async function findOffer(db: DbOrTx, scope: OrgScope, id: string, forUpdate = false) {
  const query = db
    .select()
    .from(offers)
    .where(and(eq(offers.organization_id, scope.organizationId), eq(offers.id, id)))
    .limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** Another accepted offer of the load than `exceptId`, if any. */
export async function acceptedOfferOf(db: DbOrTx, scope: OrgScope, loadId: string, exceptId: string) {
  const [row] = await db.select({ id: offers.id }).from(offers).where(acceptedOn(scope, loadId)).limit(2);
  return row && row.id !== exceptId ? row.id : null;
}

/** A PATCH's status change: an accept is a user's (`accepted_by`), and leaving accepted clears it. */
export async function setOfferStatus(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  status: OfferRow['status'],
  updatedById: string | null,
) {
  const [row] = await db
    .update(offers)
    .set({
      status,
      accepted_at: status === 'accepted' ? productNow : null,
      accepted_by: status === 'accepted' ? 'user' : null,
      // A rep's decision ends any wait for vetting or confirmation.
      held_for: null,
      updated_by_id: updatedById,
      updated_at: productNow,
    })
    .where(and(eq(offers.organization_id, scope.organizationId), eq(offers.id, id)))
    .returning();
  return row ?? null;
}

const SORT_COLUMNS: Record<OfferSortField, AnyPgColumn> = {
  created_at: offers.created_at,
  updated_at: offers.updated_at,
  offer_amount: offers.offer_amount,
  accepted_at: offers.accepted_at,
};

/** The list's filters as one condition, always inside the organization. */
function offersWhere(scope: OrgScope, q: OfferFilters) {
  const conditions: SQL[] = [eq(offers.organization_id, scope.organizationId)];
  if (q.load_id) conditions.push(eq(offers.load_id, q.load_id));
  if (q.carrier_id) conditions.push(eq(offers.carrier_id, q.carrier_id));
  if (q.status?.length) conditions.push(inArray(offers.status, q.status));
  if (q.channel?.length) conditions.push(inArray(offers.channel, q.channel));
  if (q.source?.length) conditions.push(inArray(offers.source, q.source));
  conditions.push(...createdBetween(offers.created_at, q));
  return and(...conditions);
}

export async function listOffers(
  db: DbOrTx,
  scope: OrgScope,
  q: OfferFilters,
  sort: { field: OfferSortField; desc: boolean },
  page: { page: number; page_size: number },
) {
  const where = offersWhere(scope, q);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(offers)
      .where(where)
      .orderBy(...listOrder(SORT_COLUMNS[sort.field], offers.id, sort.desc))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    db.select({ n: count() }).from(offers).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The offers the filters match, counted per (status, channel, source): one scan, a few rows. */
export function offerCounts(db: DbOrTx, scope: OrgScope, q: OfferFilters) {
  return db
    .select({ status: offers.status, channel: offers.channel, source: offers.source, n: count() })
    .from(offers)
    .where(offersWhere(scope, q))
    .groupBy(offers.status, offers.channel, offers.source);
}

/** The counter-offer standing on the offer (a rep's or the agent's), or none again. */
export async function setCounterAmount(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  amount: number | null,
  updatedById: string | null,
) {
  const [row] = await db
    .update(offers)
    .set({ counter_amount: amount, updated_by_id: updatedById, updated_at: productNow })
    .where(and(eq(offers.organization_id, scope.organizationId), eq(offers.id, id)))
    .returning();
  return row ?? null;
}

/** The organization's offers among `ids`, in no particular order. */
export function findOffers(db: DbOrTx, scope: OrgScope, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select()
    .from(offers)
    .where(and(eq(offers.organization_id, scope.organizationId), inArray(offers.id, ids)));
}
