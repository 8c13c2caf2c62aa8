// The load list: one page of a list (sorted on the indexes), its exact count (from the counters,
// kept, or brought up to date), and the per-status and per-tab stats.

import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { countLoadsWithCalls } from '../calls/index.js';
import { countLoadsWithPendingOffer } from '../offers/index.js';
import { countLoadsWithActiveOutreach } from '../outreaches/index.js';
import { type LoadQuery, tabConditions, whereOf } from './loads-list-filters.js';
import {
  loadChanges,
  loadChangesHorizon,
  loadFacetCounts,
  loadListVersions,
  loadStatusCounts,
} from './loads-list-tables.js';
import { type LoadView, selectLoads, textArray } from './loads-repository.js';
import type { LoadSortField, LoadTab } from './loads-schemas.js';
import { carrierVerifications, escalations, loads, notifications } from './loads-tables.js';

/**
 * A tab alone is counted on its table's narrow (organization_id, load_id) index: the distinct
 * loads with such a record, without visiting the loads. DISTINCT in a subquery streams over the
 * index order; count(DISTINCT ...) would sort every entry again.
 */
const tabOnlyCounts: Record<Exclude<LoadTab, 'all'>, (organizationId: string) => SQL> = {
  active_outreaches: countLoadsWithActiveOutreach,
  all_calls: countLoadsWithCalls,
  active_offers: countLoadsWithPendingOffer,
  failed_verifications: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${carrierVerifications} WHERE organization_id = ${o} AND status = 'BLOCKED') d`,
  active_notifications: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${notifications} WHERE organization_id = ${o} AND read_at IS NULL AND load_id IS NOT NULL) d`,
  active_escalations: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${escalations} WHERE organization_id = ${o} AND status = 'active') d`,
};

/** The table each tab reads (its source in load_list_versions). */
export const tabSources: Record<Exclude<LoadTab, 'all'>, string> = {
  active_outreaches: 'outreaches',
  all_calls: 'calls',
  active_offers: 'offers',
  failed_verifications: 'carrier_verifications',
  active_notifications: 'notifications',
  active_escalations: 'escalations',
};

/**
 * The organization's write versions of the loads and of the tables its tabs read (or of the
 * `sources` named), as one string.
 */
export async function listVersions(db: DbOrTx, scope: OrgScope, sources?: string[]): Promise<string> {
  const rows = await db
    .select({ source: loadListVersions.source, version: loadListVersions.version })
    .from(loadListVersions)
    .where(
      and(
        eq(loadListVersions.organization_id, scope.organizationId),
        sources ? inArray(loadListVersions.source, sources) : undefined,
      ),
    )
    .orderBy(loadListVersions.source);
  return rows.map((r) => `${r.source}:${r.version}`).join(',');
}

const dialect = new PgDialect();

/** A stable key for what a count depends on (the rendered WHERE clause and its parameters). */
export function countKey(scope: OrgScope, q: LoadQuery): string {
  const rendered = dialect.sqlToQuery(whereOf(scope, q));
  return `${rendered.sql}\u0000${JSON.stringify(rendered.params)}`;
}

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
    return sql`WITH matches AS MATERIALIZED (SELECT ${loads.id} AS id, ${sortColumns[sort.field]} AS key FROM ${loads} WHERE ${where})
      SELECT id FROM matches ORDER BY key ${sql.raw(sort.desc ? 'DESC NULLS LAST' : 'ASC')}, id ${dir}
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

/**
 * The exact count of a list when a maintained structure answers it without counting loads: no
 * condition but statuses (load_status_counts), one tab alone (its table's index), or one filter
 * load_facet_counts keeps, alone or with statuses. Null when none applies.
 */
export async function countFromCounters(db: DbOrTx, scope: OrgScope, q: LoadQuery): Promise<number | null> {
  if (q.conditions.length === 0 && q.statuses === null && q.tabs.length === 1) {
    const result = await db.execute<{ n: number }>(tabOnlyCounts[q.tabs[0]!](scope.organizationId));
    return result.rows[0]?.n ?? 0;
  }
  if (q.tabs.length > 0 || q.conditions.length > 1) return null;
  if (q.statuses && q.statuses.length === 0) return 0;
  const facet = q.conditions[0]?.facet;
  if (q.conditions.length === 1 && !facet) return null;
  const counter = facet ? loadFacetCounts : loadStatusCounts;
  const [row] = await db
    .select({ n: sql<string | null>`sum(${counter.n})` })
    .from(counter)
    .where(
      and(
        eq(counter.organization_id, scope.organizationId),
        facet ? eq(loadFacetCounts.facet, facet.name) : undefined,
        facet ? sql`${loadFacetCounts.value} = ANY(${textArray(facet.values)})` : undefined,
        q.statuses ? inArray(counter.load_status, q.statuses) : undefined,
      ),
    );
  return Number(row?.n ?? 0);
}

/**
 * The write versions of the tables a list's tabs read, as one string, read in the statement's own
 * snapshot (so they describe exactly the tables the statement's count saw).
 */
function tabVersionsOf(scope: OrgScope, q: LoadQuery): SQL {
  if (q.tabs.length === 0) return sql`''`;
  const sources = textArray([...new Set(q.tabs.map((t) => tabSources[t]))].sort());
  return sql`coalesce((SELECT string_agg(${loadListVersions.source} || ':' || ${loadListVersions.version}, ',' ORDER BY ${loadListVersions.source})
    FROM ${loadListVersions} WHERE ${loadListVersions.organization_id} = ${scope.organizationId}
      AND ${loadListVersions.source} = ANY(${sources})), '')`;
}

/**
 * Counts the loads a list matches on the indexes, with the snapshot the count was taken at and
 * the versions of its tabs' tables in that snapshot.
 */
export async function countLoads(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
): Promise<{ count: number; snapshot: string; tabVersions: string }> {
  const result = await db.execute<{ n: number; snapshot: string; tab_versions: string }>(
    sql`SELECT count(*)::int AS n, pg_current_snapshot()::text AS snapshot, ${tabVersionsOf(scope, q)} AS tab_versions
        FROM ${loads} WHERE ${whereOf(scope, q)}`,
  );
  const row = result.rows[0]!;
  return { count: row.n, snapshot: row.snapshot, tabVersions: row.tab_versions };
}

/**
 * How the count of a list moved between `snapshot` and now: each load written by a transaction
 * the old snapshot did not see is tested as it is now and as it was then (the row before the first
 * such write, from load_changes). Null when that history may be purged already, or when more than
 * `maxChanges` loads changed (counting afresh is then as cheap). A tab is tested against its table
 * as it is now, which is what it was then only if that table has not been written since: the
 * caller compares `tabVersions` (read in this statement's snapshot) with those of the old count.
 */
export async function countChangesSince(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  snapshot: string,
  maxChanges: number,
): Promise<{ delta: number; snapshot: string; tabVersions: string } | null> {
  const where = whereOf(scope, q, 'row');
  const result = await db.execute<{
    snapshot: string;
    usable: boolean;
    changed: number;
    delta: number | null;
    tab_versions: string;
  }>(
    // Each step only runs when the one before leaves the count worth bringing up to date: the
    // log is not read when its history may be purged (`usable`), and the rows as they were
    // (`befores`, the bulk of the log) are not read when more loads changed than `maxChanges`.
    // A count kept long ago by a list nobody read since costs a look at the horizon, not a pass
    // over every change the log still holds.
    sql`WITH usable AS MATERIALIZED (
          SELECT coalesce((SELECT h.snapshot_xmin <= pg_snapshot_xmin(${snapshot}::pg_snapshot) FROM ${loadChangesHorizon} h), false) AS ok
        ), entries AS (
          SELECT c.seq, c.load_ids, c.befores FROM ${loadChanges} c
          WHERE (SELECT ok FROM usable)
            AND c.organization_id = ${scope.organizationId}
            AND c.xid >= pg_snapshot_xmin(${snapshot}::pg_snapshot)
            AND NOT pg_visible_in_snapshot(c.xid, ${snapshot}::pg_snapshot)
        ), changed AS MATERIALIZED (
          SELECT count(DISTINCT u.load_id)::int AS n FROM entries e CROSS JOIN LATERAL unnest(e.load_ids) AS u(load_id)
        ), ch AS MATERIALIZED (
          SELECT DISTINCT ON (u.load_id) u.load_id, u.before
          FROM entries c CROSS JOIN LATERAL unnest(c.load_ids, c.befores) AS u(load_id, before)
          WHERE (SELECT n FROM changed) <= ${maxChanges}
          ORDER BY u.load_id, c.seq
        )
        SELECT pg_current_snapshot()::text AS snapshot, ${tabVersionsOf(scope, q)} AS tab_versions,
          (SELECT ok FROM usable) AS usable,
          (SELECT n FROM changed) AS changed,
          CASE WHEN (SELECT ok FROM usable) AND (SELECT n FROM changed) <= ${maxChanges} THEN
            (SELECT count(*) FROM ch JOIN ${loads} ON ${loads.id} = ch.load_id WHERE ${where})::int
            - (SELECT count(*) FROM ch CROSS JOIN LATERAL jsonb_populate_record(NULL::loads, ch.before) AS loads
               WHERE ch.before IS NOT NULL AND ${where})::int
          END AS delta`,
  );
  const row = result.rows[0]!;
  if (!row.usable || row.delta === null) return null;
  return { delta: row.delta, snapshot: row.snapshot, tabVersions: row.tab_versions };
}

/** Drops load_changes entries no usable count needs any more (see load_changes_purge). */
export async function purgeLoadChanges(db: DbOrTx, keepSeconds: number): Promise<void> {
  await db.execute(sql`SELECT load_changes_purge(make_interval(secs => ${keepSeconds}))`);
}

/** Per-status and per-tab counts of the loads a list matches (GET /loads/stats). */
export async function loadStats(db: DbOrTx, scope: OrgScope, q: LoadQuery, tabs: LoadTab[]) {
  const where = whereOf(scope, q);
  const [byStatus, [byTab]] = await Promise.all([
    db
      .select({ load_status: loads.load_status, n: sql<number>`count(*)::int` })
      .from(loads)
      .where(where)
      .groupBy(loads.load_status),
    db
      .select(
        Object.fromEntries(
          tabs.map((tab) => {
            const condition = tab === 'all' ? null : tabConditions[tab];
            return [
              tab,
              condition ? sql<number>`count(*) FILTER (WHERE ${condition})::int` : sql<number>`count(*)::int`,
            ];
          }),
        ),
      )
      .from(loads)
      .where(where),
  ]);
  return { byStatus, byTab: (byTab ?? {}) as Record<string, number> };
}
