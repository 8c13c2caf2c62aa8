// The load list's pages: one page of a list, read on the sort indexes. Its counts are in
// loads-list-counts.

import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { selectReused } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { type LoadQuery, whereOf } from './loads-list-filters.js';
import { loadStatusCounts } from './loads-list-tables.js';
import { type LoadView, selectLoads, textArray } from './loads-repository.js';
import type { LoadSortField } from './loads-schemas.js';
import { loads } from './loads-tables.js';

type LoadSort = { field: LoadSortField; desc: boolean };

const sortColumns: Record<LoadSortField, AnyPgColumn> = {
  created_at: loads.created_at,
  updated_at: loads.updated_at,
  load_number: loads.load_number,
  pickup_date: loads.pickup_date,
  delivery_date: loads.delivery_date,
  posted_rate: loads.posted_rate,
  distance: loads.distance,
  last_posted_at: loads.last_posted_at,
};

/** The column a sort orders by (as load_changes keeps it, for pageChangesSince). */
export const sortKeyOf = (field: LoadSortField): SQL => sql`${sortColumns[field]}`;

/**
 * How a page of each sort is read, matching the sort indexes of loads-tables exactly:
 * - created_at, updated_at: (organization_id, column, id) forwards or backwards; load_number: its
 *   unique index (no tiebreaker needed).
 * - pickup_date, delivery_date, last_posted_at: (organization_id, column, id) forwards ascending
 *   (nulls last is its order); descending, the loads with a value backwards, then those without
 *   (the same index's null range, backwards).
 * - posted_rate, distance: the loads with a value from the deduplicated value index (distance:
 *   distance_key, in the same order), each run of equal values ordered by id, then those without
 *   from the partial (organization_id, id) index.
 * `order` is the ORDER BY of a whole list. A list read in two parts orders the loads with a value
 * by `keys` and those without by `nullKeys`, each followed by id.
 */
function sortPlan(sort: LoadSort): { order: SQL[]; split?: { column: SQL; keys: SQL[]; nullKeys: SQL[] } } {
  const column = sortColumns[sort.field];
  const dir = sort.desc ? sql.raw('DESC') : sql.raw('ASC');
  if (sort.field === 'load_number') return { order: [sql`${column} ${dir}`] };
  const byId = sql`${loads.id} ${dir}`;
  if (sort.field === 'created_at' || sort.field === 'updated_at') {
    return { order: [sql`${column} ${dir}`, byId] };
  }
  // Nulls last both ways (ASC puts them last by default).
  const order = [sql`${column} ${dir}${sort.desc ? sql` NULLS LAST` : sql``}`, byId];
  if (sort.field === 'posted_rate') {
    return { order, split: { column: sql`${column}`, keys: [sql`${column}`], nullKeys: [] } };
  }
  if (sort.field === 'distance') {
    const key = sql`${loads.distance_key}`;
    return { order, split: { column: key, keys: [key], nullKeys: [] } };
  }
  if (!sort.desc) return { order };
  // The null range of (organization_id, column, id) read backwards is ordered by column, then id.
  return { order, split: { column: sql`${column}`, keys: [sql`${column}`], nullKeys: [sql`${column}`] } };
}

/**
 * The ids of one page. A single read of the index in the sort's order, or, for a nullable column
 * read in two parts, the first `offset + limit` loads with a value (numbered in order) followed by
 * as many loads without one as are still needed: the page is the loads numbered past `offset`.
 * Each part stops as soon as it has enough rows; nothing is sorted but runs of equal values.
 *
 * The other modes (see PageMode): `matches` reads the matches first, through the filters' own
 * indexes, and sorts only them; `bounded` walks the sort index as the plain read does but over its
 * first `cap` loads only, testing each.
 */
function pageIds(
  scope: OrgScope,
  q: LoadQuery,
  sort: LoadSort,
  limit: number,
  offset: number,
  mode: PageMode,
): SQL {
  const plan = sortPlan(sort);
  const where = whereOf(scope, q);
  const orderBy = sql.join(plan.order, sql`, `);
  const dir = sql.raw(sort.desc ? 'DESC' : 'ASC');
  if (mode.kind === 'matches') {
    // OFFSET 0 keeps the matches a subquery of their own, planned for every row (so on the
    // filters' indexes, never as a walk of the sort index under the outer LIMIT), and streams
    // them into the top-N sort. A MATERIALIZED CTE fenced the plan the same way but copied every
    // match into a tuplestore first: 17 ms against 5 ms for the 20,160 loads of a pickup week
    // (pgbench, one connection, 1,000,000 loads).
    return sql`SELECT m.id FROM (SELECT ${loads.id} AS id, ${sortColumns[sort.field]} AS key FROM ${loads} WHERE ${where} OFFSET 0) m
      ORDER BY m.key ${sql.raw(sort.desc ? 'DESC NULLS LAST' : 'ASC')}, m.id ${dir}
      LIMIT ${limit} OFFSET ${offset}`;
  }
  if (mode.kind === 'bounded') {
    // Only for a sort read in one part (no split): its index order is `plan.order`, which the
    // outer ORDER BY repeats on the subquery's columns (so nothing is sorted again).
    const outer = sort.field === 'load_number' ? sql`w.key ${dir}` : sql`w.key ${dir}, w.id ${dir}`;
    return sql`SELECT w.id FROM (SELECT ${loads.id} AS id, ${sortColumns[sort.field]} AS key, (${where}) AS ok
        FROM ${loads} WHERE ${eq(loads.organization_id, scope.organizationId)}
        ORDER BY ${orderBy} LIMIT ${mode.cap}) w
      WHERE w.ok ORDER BY ${outer} LIMIT ${limit} OFFSET ${offset}`;
  }
  if (!plan.split) {
    return sql`SELECT ${loads.id} FROM ${loads} WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
  }
  const { column, keys, nullKeys } = plan.split;
  const upTo = offset + limit;
  // Each part returns its keys as columns, in its own order: row_number's ORDER BY is that same
  // order, so numbering the rows sorts nothing.
  const part = (exprs: SQL[], filter: SQL, cap: SQL, alias: string) => {
    const names = exprs.map((_, i) => sql.raw(`k${i}`));
    const selected = exprs.map((k, i) => sql`, ${k} AS ${names[i]}`);
    const inner = [...exprs.map((k) => sql`${k} ${dir}`), sql`${loads.id} ${dir}`];
    const numbered = [
      ...names.map((n) => sql`${sql.raw(alias)}.${n} ${dir}`),
      sql`${sql.raw(alias)}.id ${dir}`,
    ];
    return {
      rowNumber: sql`row_number() OVER (ORDER BY ${sql.join(numbered, sql`, `)})`,
      from: sql`(SELECT ${loads.id} AS id${sql.join(selected, sql``)} FROM ${loads}
            WHERE ${where} AND ${filter} ORDER BY ${sql.join(inner, sql`, `)} LIMIT ${cap}) ${sql.raw(alias)}`,
    };
  };
  const valued = part(keys, sql`${column} IS NOT NULL`, sql`${upTo}`, 'v');
  const unvalued = part(
    nullKeys,
    sql`${column} IS NULL`,
    sql`greatest(0, ${upTo} - (SELECT count(*) FROM valued))`,
    'u',
  );
  return sql`WITH valued AS MATERIALIZED (SELECT v.id, ${valued.rowNumber} AS rn FROM ${valued.from}),
    unvalued AS (SELECT u.id, (SELECT count(*) FROM valued) + ${unvalued.rowNumber} AS rn FROM ${unvalued.from})
    SELECT id FROM valued WHERE rn > ${offset}
    UNION ALL
    SELECT id FROM unvalued WHERE rn > ${offset}`;
}

/**
 * One page: its ids are found on the indexes first and only the page's rows are read in full (a
 * deferred join), so OFFSET skips index entries, not rows; the page's own rows are then put in
 * order (nulls after every value both ways, ties by id). `matches`: the list's total_count.
 */
export async function listLoadPage(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  sort: LoadSort,
  limit: number,
  offset: number,
  matches: number,
): Promise<LoadView[]> {
  if (offset >= matches) return [];
  const read = (mode: PageMode) =>
    selectLoads(
      db,
      and(
        eq(loads.organization_id, scope.organizationId),
        sql`${loads.id} IN (${pageIds(scope, q, sort, limit, offset, mode)})`,
      ),
    ).orderBy(...sortPlan(sort).order);
  const filtered = q.conditions.length > 0 || q.tabs.length > 0;
  if (!filtered || matches > FEW_MATCHES) return read({ kind: 'walk' });
  const cap = await walkCap(db, scope, q, sort, offset + limit, matches);
  if (cap !== null) {
    // A full page found within the cap is the page; a short one may only mean the cap ran out.
    const rows = await read({ kind: 'bounded', cap });
    if (rows.length === limit) return rows;
  }
  return read({ kind: 'matches' });
}

/** The rows of a page whose ids are known (LoadsService keeps them), in the page's order. */
export function readLoadsInOrder(db: DbOrTx, scope: OrgScope, ids: string[], sort: LoadSort) {
  // One text per sort order, read by primary key whatever the ids: planned once per connection.
  return selectReused(
    selectLoads(
      db,
      and(eq(loads.organization_id, scope.organizationId), sql`${loads.id} = ANY(${textArray(ids)})`),
    ).orderBy(...sortPlan(sort).order),
  );
}

/**
 * How a page is read: `walk`, the sort index in order until the page is found (the matches are
 * many, so they turn up soon); `matches`, the matches first and only they sorted; `bounded`, the
 * walk over the first `cap` loads of the sort order only.
 */
type PageMode = { kind: 'walk' } | { kind: 'matches' } | { kind: 'bounded'; cap: number };

/** Over this many matches, a filtered page walks the sort index (PageMode walk). */
const FEW_MATCHES = 25_000;

/**
 * Up to FEW_MATCHES, the matches may still be many enough that walking the sort index finds the
 * page sooner than reading every match (which costs a row read per match): a walk reads about
 * `upTo * total / matches` loads when the matches are spread over the sort order. The walk is
 * bounded at a few times that, since the matches may sit together far from the start (a customer
 * of long ago): the page is then read from its matches after all. Null when reading the matches
 * first is expected to be cheaper, or when a filter is a date range (its loads sit together in
 * time: see LoadCondition.ranged), or when the sort is read in two parts.
 */
async function walkCap(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  sort: LoadSort,
  upTo: number,
  matches: number,
): Promise<number | null> {
  if (sortPlan(sort).split || q.conditions.some((c) => c.ranged)) return null;
  const [row] = await db
    .select({ n: sql<string | null>`sum(${loadStatusCounts.n})` })
    .from(loadStatusCounts)
    .where(eq(loadStatusCounts.organization_id, scope.organizationId));
  const expected = (upTo * Number(row?.n ?? 0)) / matches;
  return expected < matches ? Math.ceil(3 * expected) + 200 : null;
}
