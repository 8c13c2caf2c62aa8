import { and, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { acceptedOn } from './offer-queries.js';
import type { ListOffersQuery } from './offers-schemas.js';
import { offers } from './offers-tables.js';

export { acceptablePendingOffer } from './offer-queries.js';

export type OfferRow = typeof offers.$inferSelect;

export async function insertOffer(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof offers.$inferInsert, 'organization_id'>,
) {
  const [row] = await db
    .insert(offers)
    .values({ ...values, organization_id: scope.organizationId })
    .returning();
  return row!;
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
      accepted_at: status === 'accepted' ? new Date() : null,
      updated_by_id: updatedById,
      updated_at: new Date(),
    })
    .where(and(eq(offers.organization_id, scope.organizationId), eq(offers.id, id)))
    .returning();
  return row ?? null;
}

export async function listOffers(
  db: DbOrTx,
  scope: OrgScope,
  q: Omit<ListOffersQuery, 'page' | 'page_size'>,
  page: { page: number; page_size: number },
) {
  const conditions: SQL[] = [eq(offers.organization_id, scope.organizationId)];
  if (q.load_id) conditions.push(eq(offers.load_id, q.load_id));
  if (q.carrier_id) conditions.push(eq(offers.carrier_id, q.carrier_id));
  if (q.status?.length) conditions.push(inArray(offers.status, q.status));
  if (q.channel?.length) conditions.push(inArray(offers.channel, q.channel));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(offers)
      .where(where)
      .orderBy(desc(offers.created_at), desc(offers.id))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    db.select({ n: count() }).from(offers).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
