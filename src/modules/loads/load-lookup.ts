import { and, eq } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import type { DbOrTx } from '../../db/client.js';
import { notFound, unprocessable } from '../../domain/errors.js';
import type { OrgScope } from '../../domain/scope.js';
import { loads } from './loads-tables.js';

/**
 * Where a request names the load: a path parameter (a missing load is 404 `not_found`) or a body
 * field (422 `validation_error`, the load being one of the things the body refers to).
 */
export interface LoadReference {
  in: 'path' | 'body';
  param: string;
}

export const LOAD_ID_IN_PATH: LoadReference = { in: 'path', param: 'load_id' };
export const LOAD_ID_IN_BODY: LoadReference = { in: 'body', param: 'load_id' };

/**
 * THE "the load must exist in this organization" lookup: the columns asked for (the id alone when
 * none are), else the error for where the request named it. `lock` takes the row for update, in
 * the caller's transaction.
 */
export async function requireLoad<T extends SelectedFields = { id: typeof loads.id }>(
  db: DbOrTx,
  scope: OrgScope,
  loadId: string,
  ref: LoadReference,
  columns?: T,
  lock = false,
): Promise<SelectResultFields<T>> {
  const query = db
    .select(columns ?? { id: loads.id })
    .from(loads)
    .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, loadId)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (row) return row as SelectResultFields<T>;
  if (ref.in === 'path') throw notFound('Load', loadId, ref.param);
  throw unprocessable('validation_error', `Load '${loadId}' does not exist`, ref.param);
}
