import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { firstRow } from '../../db/rows.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { apiKeys } from './api-keys-tables.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

const inScope = (scope: OrgScope, id: string) =>
  and(eq(apiKeys.organization_id, scope.organizationId), eq(apiKeys.id, id));

export async function insertApiKey(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof apiKeys.$inferInsert, 'organization_id'>,
): Promise<ApiKeyRow> {
  return firstRow(
    await db
      .insert(apiKeys)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertApiKey',
  );
}

export async function findApiKey(db: DbOrTx, scope: OrgScope, id: string, forUpdate = false) {
  const query = db.select().from(apiKeys).where(inScope(scope, id)).limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function listApiKeys(
  db: DbOrTx,
  scope: OrgScope,
  filter: { page: number; pageSize: number; isActive?: boolean },
) {
  const where = and(
    eq(apiKeys.organization_id, scope.organizationId),
    filter.isActive === undefined ? undefined : eq(apiKeys.is_active, filter.isActive),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(apiKeys)
      .where(where)
      .orderBy(desc(apiKeys.created_at), desc(apiKeys.id))
      .limit(filter.pageSize)
      .offset(offsetOf(filter.page, filter.pageSize)),
    db.select({ n: count() }).from(apiKeys).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function deactivateApiKey(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .update(apiKeys)
    .set({ is_active: false, updated_at: sql`now()` })
    .where(and(inScope(scope, id), eq(apiKeys.is_active, true)))
    .returning();
  return row ?? null;
}

/** Marks a key as replaced and brings its expiry forward to `expiresAt` (never later than it was). */
export async function markReplaced(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  replacementId: string,
  expiresAt: Date,
) {
  await db
    .update(apiKeys)
    .set({
      replaced_by_id: replacementId,
      expires_at: sql`LEAST(coalesce(${apiKeys.expires_at}, 'infinity'::timestamptz), ${expiresAt.toISOString()}::timestamptz)`,
      updated_at: sql`now()`,
    })
    .where(inScope(scope, id));
}
