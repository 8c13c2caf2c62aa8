// The load list's counts: its exact total (from the counters, kept, or brought up to date from
// the change log) and the per-status and per-tab stats. Its pages are in loads-list-repository.

import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { executeReused } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { type LoadQuery, type TabRule, whereOf } from './loads-list-filters.js';
import {
  loadChanges,
  loadChangesHorizon,
  loadFacetCounts,
  loadListVersions,
  loadStatusCounts,
} from './loads-list-tables.js';
import { textArray } from './loads-repository.js';
import { loads } from './loads-tables.js';

/** The write versions of the tables a list's tabs read, as tabVersionsOf gives them. */
export async function listVersions(db: DbOrTx, scope: OrgScope, q: LoadQuery): Promise<string> {
  const result = await db.execute<{ v: string }>(sql`SELECT ${tabVersionsOf(scope, q)} AS v`);
  return result.rows[0]?.v ?? '';
}

const dialect = new PgDialect();

/** A stable key for what a count depends on (the rendered WHERE clause and its parameters). */
export function countKey(scope: OrgScope, q: LoadQuery): string {
  const rendered = dialect.sqlToQuery(whereOf(scope, q));
  return `${rendered.sql}\u0000${JSON.stringify(rendered.params)}`;
}

/**
 * The exact count of a list when a maintained structure answers it without counting loads: no
 * condition but statuses (load_status_counts), one tab alone (its table's index), or one filter
 * load_facet_counts keeps, alone or with statuses. Null when none applies.
 */
export async function countFromCounters(db: DbOrTx, scope: OrgScope, q: LoadQuery): Promise<number | null> {
  if (q.conditions.length === 0 && q.statuses === null && q.tabs.length === 1) {
    const [tab] = q.tabs;
    if (!tab) return null;
    const result = await db.execute<{ n: number }>(tab.countAlone(scope.organizationId));
    return result.rows[0]?.n ?? 0;
  }
  const byStatus = await statusCountsFromCounters(db, scope, q);
  return byStatus?.reduce((sum, r) => sum + r.n, 0) ?? null;
}

/**
 * The write versions of the tables a list's tabs read, as one string, read in the statement's own
 * snapshot (so they describe exactly the tables the statement's count saw).
 */
function tabVersionsOf(scope: OrgScope, q: LoadQuery): SQL {
  if (q.tabs.length === 0) return sql`''`;
  const sources = textArray([...new Set(q.tabs.map((t) => t.source))].sort());
  return sql`coalesce((SELECT string_agg(${loadListVersions.source} || ':' || ${loadListVersions.version}, ',' ORDER BY ${loadListVersions.source})
    FROM ${loadListVersions} WHERE ${loadListVersions.organization_id} = ${scope.organizationId}
      AND ${loadListVersions.source} = ANY(${sources})), '')`;
}

/**
 * Counts the loads a list matches on the indexes, with the snapshot the count was taken at, the
 * versions of its tabs' tables in that snapshot, and how long PostgreSQL took to run the count
 * (`ms`: from the statement's start to its one row, read after the count; no wait for a pooled
 * connection, no round trip, nothing of this process's event loop).
 */
export async function countLoads(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
): Promise<{ count: number; snapshot: string; tabVersions: string; ms: number }> {
  const result = await db.execute<{ n: number; snapshot: string; tab_versions: string; ms: number }>(
    sql`SELECT count(*)::int AS n, pg_current_snapshot()::text AS snapshot, ${tabVersionsOf(scope, q)} AS tab_versions,
          (extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000)::float8 AS ms
        FROM ${loads} WHERE ${whereOf(scope, q)}`,
  );
  const row = defined(result.rows[0], 'result.rows[0]');
  return { count: row.n, snapshot: row.snapshot, tabVersions: row.tab_versions, ms: row.ms };
}

/**
 * The loads written since `snapshot` by transactions it did not see, as a WITH prefix: `usable`
 * (false when the log's history behind the snapshot may be purged already), `changed` (how many
 * distinct loads) and `ch` (each changed load with its row as it was at the snapshot: the `before`
 * of its first change since, null for a load inserted since). Each step only runs when the one
 * before leaves the answer worth having: the log is not read when its history may be purged, and
 * the rows as they were (`befores`, the bulk of the log) are not read when more loads changed
 * than `maxChanges`. A snapshot kept long ago costs a look at the horizon, not a pass over every
 * change the log still holds.
 */
function changesSince(scope: OrgScope, snapshot: string, maxChanges: number): SQL {
  return sql`WITH usable AS MATERIALIZED (
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
    )`;
}

/**
 * One statement over the changes since `snapshot` (changesSince, then the CTEs `more` adds): the
 * integer `value` computes from them, with the statement's own snapshot and its tabs' versions in
 * it. Null when the changes may not be read (history purged, or more than `maxChanges` loads).
 */
async function overChangesSince(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  snapshot: string,
  maxChanges: number,
  value: SQL,
  more?: SQL,
): Promise<{ value: number; snapshot: string; tabVersions: string } | null> {
  // The same few texts run for every request of a list: planned once per connection (their plan
  // walks the few changed loads by key whatever the values).
  const [row] = await executeReused<{ snapshot: string; value: number | null; tab_versions: string }>(
    db,
    sql`${changesSince(scope, snapshot, maxChanges)}${more ? sql`, ${more}` : sql``}
        SELECT pg_current_snapshot()::text AS snapshot, ${tabVersionsOf(scope, q)} AS tab_versions,
          CASE WHEN (SELECT ok FROM usable) AND (SELECT n FROM changed) <= ${maxChanges}
            THEN (${value})::int END AS value`,
  );
  if (!row) throw new Error('the change-log statement returned no row');
  if (row.value === null) return null;
  return { value: row.value, snapshot: row.snapshot, tabVersions: row.tab_versions };
}

/**
 * The changed loads (`ch`) the list matches, with `columns`: as they are now (`now`), and as they
 * were at the snapshot (`before`: each row as it was, read back into the loads' own columns).
 */
function matchingChanges(scope: OrgScope, q: LoadQuery, columns: SQL) {
  const where = whereOf(scope, q, 'row');
  return {
    now: sql`SELECT ${columns} FROM ch JOIN ${loads} ON ${loads.id} = ch.load_id WHERE ${where}`,
    before: sql`SELECT ${columns} FROM ch CROSS JOIN LATERAL jsonb_populate_record(NULL::loads, ch.before) AS loads
      WHERE ch.before IS NOT NULL AND ${where}`,
  };
}

/**
 * How the count of a list moved between `snapshot` and now: each load written by a transaction
 * the old snapshot did not see is tested as it is now and as it was then. Null when that history
 * may be purged already, or when more than `maxChanges` loads changed (counting afresh is then as
 * cheap). A tab is tested against its table as it is now, which is what it was then only if that
 * table has not been written since: the caller compares `tabVersions` (read in this statement's
 * snapshot) with those of the old count.
 */
export async function countChangesSince(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  snapshot: string,
  maxChanges: number,
): Promise<{ delta: number; snapshot: string; tabVersions: string } | null> {
  const { now, before } = matchingChanges(scope, q, sql`ch.load_id`);
  const moved = await overChangesSince(
    db,
    scope,
    q,
    snapshot,
    maxChanges,
    sql`(SELECT count(*) FROM (${now}) n) - (SELECT count(*) FROM (${before}) t)`,
  );
  return moved && { delta: moved.value, snapshot: moved.snapshot, tabVersions: moved.tabVersions };
}

/**
 * How many loads written since `snapshot` could move a page of the list in this sort order: those
 * that entered or left it, and those in it whose sort key changed (load_list_image keeps every
 * sort key; one missing from an entry logged before migration 0015 counts as changed). At 0, every
 * page of the list in this order holds the same loads as at the snapshot, as long as its tabs'
 * tables are unchanged (`tabVersions`, read in this statement's snapshot). Null when the history
 * may be purged or more than `maxChanges` loads changed.
 */
export async function pageChangesSince(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  sortKey: SQL,
  snapshot: string,
  maxChanges: number,
): Promise<{ moved: number; snapshot: string; tabVersions: string } | null> {
  const { now, before } = matchingChanges(scope, q, sql`ch.load_id, ${sortKey} AS k`);
  const moved = await overChangesSince(
    db,
    scope,
    q,
    snapshot,
    maxChanges,
    sql`SELECT count(*) FROM now_in FULL JOIN then_in ON then_in.load_id = now_in.load_id
      WHERE now_in.load_id IS NULL OR then_in.load_id IS NULL OR now_in.k IS DISTINCT FROM then_in.k`,
    sql`now_in AS (${now}), then_in AS (${before})`,
  );
  return moved && { moved: moved.value, snapshot: moved.snapshot, tabVersions: moved.tabVersions };
}

/** The current snapshot and the versions of the list's tabs' tables in it. */
export async function listSnapshot(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
): Promise<{ snapshot: string; tabVersions: string }> {
  const result = await db.execute<{ snapshot: string; tab_versions: string }>(
    sql`SELECT pg_current_snapshot()::text AS snapshot, ${tabVersionsOf(scope, q)} AS tab_versions`,
  );
  const row = defined(result.rows[0], 'result.rows[0]');
  return { snapshot: row.snapshot, tabVersions: row.tab_versions };
}

/** Drops load_changes entries no usable count needs any more (see load_changes_purge). */
export async function purgeLoadChanges(db: DbOrTx, keepSeconds: number): Promise<void> {
  await db.execute(sql`SELECT load_changes_purge(make_interval(secs => ${keepSeconds}))`);
}

/**
 * Per-status counts from the counters when they answer the list (no condition but statuses, or one
 * filter load_facet_counts keeps, alone or with statuses); null otherwise. Loads without a status
 * come back as null, as in a count over loads.
 */
async function statusCountsFromCounters(db: DbOrTx, scope: OrgScope, q: LoadQuery) {
  if (q.tabs.length > 0 || q.conditions.length > 1) return null;
  const facet = q.conditions[0]?.facet;
  if (q.conditions.length === 1 && !facet) return null;
  if (q.statuses && q.statuses.length === 0) return [];
  const counter = facet ? loadFacetCounts : loadStatusCounts;
  const rows = await db
    .select({ load_status: counter.load_status, n: sql<string>`sum(${counter.n})` })
    .from(counter)
    .where(
      and(
        eq(counter.organization_id, scope.organizationId),
        facet ? eq(loadFacetCounts.facet, facet.name) : undefined,
        facet ? sql`${loadFacetCounts.value} = ANY(${textArray(facet.values)})` : undefined,
        q.statuses ? inArray(counter.load_status, q.statuses) : undefined,
      ),
    )
    .groupBy(counter.load_status);
  return rows.map((r) => ({ load_status: r.load_status === '' ? null : r.load_status, n: Number(r.n) }));
}

/** Per-status counts of the loads a list matches: from the counters when they answer it. */
export async function statusCounts(db: DbOrTx, scope: OrgScope, q: LoadQuery) {
  return (
    (await statusCountsFromCounters(db, scope, q)) ??
    (await db
      .select({ load_status: loads.load_status, n: sql<number>`count(*)::int` })
      .from(loads)
      .where(whereOf(scope, q))
      .groupBy(loads.load_status))
  );
}

/**
 * Per-tab counts of the loads a list matches, over those loads (GET /loads/stats of a filtered
 * list; the whole organization's come from the tabs' own tables, LoadListReader.tabTotals).
 */
export async function tabCounts(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  tabs: readonly (TabRule | 'all')[],
): Promise<Record<string, number>> {
  const [row] = await db
    .select(
      Object.fromEntries(
        tabs.map((tab) => {
          const condition = tab === 'all' ? null : tab.condition;
          return [
            tab === 'all' ? tab : tab.name,
            condition ? sql<number>`count(*) FILTER (WHERE ${condition})::int` : sql<number>`count(*)::int`,
          ];
        }),
      ),
    )
    .from(loads)
    .where(whereOf(scope, q));
  return row ?? {};
}
