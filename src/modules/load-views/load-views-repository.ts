import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { type LoadViewRow, visibleTo } from './load-view-queries.js';
import { loadViews } from './load-views-tables.js';

export { findVisibleLoadView, type LoadViewRow, ownerIdOf } from './load-view-queries.js';

export async function listVisibleLoadViews(db: DbOrTx, scope: OrgScope, page: number, pageSize: number) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(loadViews)
      .where(visibleTo(scope))
      .orderBy(desc(loadViews.created_at), desc(loadViews.id))
      .limit(pageSize)
      .offset(offsetOf(page, pageSize)),
    db.select({ n: sql<number>`count(*)::int` }).from(loadViews).where(visibleTo(scope)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function insertLoadView(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof loadViews.$inferInsert, 'organization_id'>,
): Promise<LoadViewRow> {
  return firstRow(
    await db
      .insert(loadViews)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertLoadView',
  );
}

export async function updateLoadView(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  values: Partial<Pick<LoadViewRow, 'name' | 'filters' | 'visibility'>>,
): Promise<LoadViewRow | null> {
  const [row] = await db
    .update(loadViews)
    .set({ ...values, updated_at: productNow })
    .where(and(eq(loadViews.organization_id, scope.organizationId), eq(loadViews.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteLoadView(db: DbOrTx, scope: OrgScope, id: string): Promise<void> {
  await db
    .delete(loadViews)
    .where(and(eq(loadViews.organization_id, scope.organizationId), eq(loadViews.id, id)));
}
