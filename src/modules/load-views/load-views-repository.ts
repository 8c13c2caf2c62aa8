import { and, desc, eq, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope, Principal } from '../../domain/scope.js';
import { loadViews } from './load-views-tables.js';

export type LoadViewRow = typeof loadViews.$inferSelect;

/** Who owns what a caller creates: the signed-in user, else the API key itself. */
export function ownerIdOf(p: Principal): string {
  if (p.kind === 'bearer') return p.userId;
  if (p.kind === 'api_key') return p.apiKeyId;
  return 'system';
}

/** Organization views, and the caller's own private ones. */
const visibleTo = (scope: OrgScope): SQL =>
  and(
    eq(loadViews.organization_id, scope.organizationId),
    or(eq(loadViews.visibility, 'organization'), eq(loadViews.owner_id, ownerIdOf(scope.principal))),
  )!;

export async function findVisibleLoadView(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
): Promise<LoadViewRow | null> {
  const [row] = await db
    .select()
    .from(loadViews)
    .where(and(visibleTo(scope), eq(loadViews.id, id)))
    .limit(1);
  return row ?? null;
}

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
  const [row] = await db
    .insert(loadViews)
    .values({ ...values, organization_id: scope.organizationId })
    .returning();
  return row!;
}

export async function updateLoadView(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  values: Partial<Pick<LoadViewRow, 'name' | 'filters' | 'visibility'>>,
): Promise<LoadViewRow | null> {
  const [row] = await db
    .update(loadViews)
    .set({ ...values, updated_at: sql`now()` })
    .where(and(eq(loadViews.organization_id, scope.organizationId), eq(loadViews.id, id)))
    .returning();
  return row ?? null;
}

export async function deleteLoadView(db: DbOrTx, scope: OrgScope, id: string): Promise<void> {
  await db
    .delete(loadViews)
    .where(and(eq(loadViews.organization_id, scope.organizationId), eq(loadViews.id, id)));
}
