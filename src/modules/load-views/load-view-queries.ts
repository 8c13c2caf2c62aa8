// The saved-view read other modules use.

import { and, eq, or, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { allOf } from '../../db/conditions.js';
import type { OrgScope, Principal } from '../../domain/scope.js';
import { loadViews } from './load-views-tables.js';

/** Who owns what a caller creates: the signed-in user, else the API key itself. */
export function ownerIdOf(p: Principal): string {
  if (p.kind === 'bearer') return p.userId;
  if (p.kind === 'api_key') return p.apiKeyId;
  return 'system';
}

export type LoadViewRow = typeof loadViews.$inferSelect;

/** Organization views, and the caller's own private ones. */
export const visibleTo = (scope: OrgScope): SQL =>
  allOf(
    eq(loadViews.organization_id, scope.organizationId),
    or(eq(loadViews.visibility, 'organization'), eq(loadViews.owner_id, ownerIdOf(scope.principal))),
  );

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
