import { and, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { notFound, unprocessable } from '../../domain/errors.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Load } from './loads-schemas.js';
import { loads, type StoredStop } from './loads-tables.js';

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

/** A column of loads, by its name in the row. */
export type LoadColumn = keyof typeof loads.$inferSelect;

/** The selection of the named columns of loads, keyed by their names. */
const fieldsOf = (columns: readonly LoadColumn[]) => {
  const all = getTableColumns(loads);
  return Object.fromEntries(columns.map((c) => [c, all[c]]));
};

/**
 * THE "the load must exist in this organization" lookup: the columns named (the id alone when none
 * are), else the error for where the request named it. `lock` takes the row for update, in the
 * caller's transaction.
 */
export async function requireLoad<K extends LoadColumn = 'id'>(
  db: DbOrTx,
  scope: OrgScope,
  loadId: string,
  ref: LoadReference,
  columns?: readonly K[],
  lock = false,
): Promise<Pick<typeof loads.$inferSelect, K>> {
  const query = db
    .select(columns ? fieldsOf(columns) : { id: loads.id })
    .from(loads)
    .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, loadId)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  // The select lists exactly the columns K, so the row has them; drizzle cannot infer it from a generic K.
  if (row) return row as unknown as Pick<typeof loads.$inferSelect, K>;
  if (ref.in === 'path') throw notFound('Load', loadId, ref.param);
  throw unprocessable('validation_error', `Load '${loadId}' does not exist`, ref.param);
}

/** The columns named of the organization's load, or undefined when it has no such load. */
export async function findLoadFields<K extends LoadColumn>(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  columns: readonly K[],
): Promise<Pick<typeof loads.$inferSelect, K> | undefined> {
  const [row] = await db
    .select(fieldsOf(columns))
    .from(loads)
    .where(and(eq(loads.organization_id, organizationId), eq(loads.id, loadId)));
  // As above: the select lists exactly the columns K.
  return row as Pick<typeof loads.$inferSelect, K> | undefined;
}

export type { StoredStop };

/** One stop of the load, or undefined when the load (or its stop) is not there. */
export async function findStopOfLoad(
  db: DbOrTx,
  scope: OrgScope,
  loadId: string,
  stopId: string,
): Promise<StoredStop | undefined> {
  const row = await findLoadFields(db, scope.organizationId, loadId, ['stops']);
  return row?.stops.find((s) => s.id === stopId);
}

/** Reads one load in its API shape (LoadsService.get); given to other modules by the composition root. */
export interface LoadReader {
  get(scope: OrgScope, id: string): Promise<Load>;
}

/** The id of the load's rep, as a subquery for the caller's statement. */
export const repUserIdOf = (loadId: string): SQL =>
  sql`(SELECT ${loads.carrier_rep_user_id} FROM ${loads} WHERE ${loads.id} = ${loadId})`;

/** The lane a load names (its first pickup, last drop-off and equipment); 404 on the body's load_id. */
export const requireLoadLane = (db: DbOrTx, scope: OrgScope, loadId: string) =>
  requireLoad(db, scope, loadId, LOAD_ID_IN_BODY, [
    'origin_city',
    'origin_state',
    'destination_city',
    'destination_state',
    'equipment_type',
  ]);

/** Locks the loads (FOR UPDATE, in id order: every writer that holds several takes them so). */
export async function lockLoads(db: DbOrTx, ids: readonly string[]) {
  if (ids.length === 0) return;
  await db.execute(
    sql`SELECT id FROM loads WHERE id = ANY(${sql.param([...ids])}::text[]) ORDER BY id FOR UPDATE`,
  );
}
