import { and, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import { type AnyPgColumn, PgDialect } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { OrgScope } from '../../http/authentication.js';
import { calls } from '../calls/calls-tables.js';
import { offers } from '../offers/offers-tables.js';
import { outreaches } from '../outreaches/outreaches-tables.js';
import type { LoadFilters, LoadSortField, LoadTab } from './loads-schemas.js';
import {
  carrierVerifications,
  distanceKey,
  escalations,
  type LoadFacet,
  loadChanges,
  loadChangesHorizon,
  loadFacetCounts,
  loadFilterValues,
  loadListVersions,
  loadStatusCounts,
  loadStatusMappings,
  loads,
  notifications,
  stops,
} from './loads-tables.js';

/** A load as written by the app: every column but the generated one. */
export type LoadRow = Omit<typeof loads.$inferSelect, 'distance_key'>;
export type LoadInsert = typeof loads.$inferInsert;
export type StopRow = typeof stops.$inferSelect;

/** A stop as it comes back inside a load query: JSON, so datetimes are strings. */
export type StopJson = Omit<
  StopRow,
  | 'expected_date'
  | 'planned_start'
  | 'planned_end'
  | 'actual_arrival_datetime'
  | 'actual_departure_datetime'
  | 'carrier_eta'
> & {
  expected_date: string | null;
  planned_start: string | null;
  planned_end: string | null;
  actual_arrival_datetime: string | null;
  actual_departure_datetime: string | null;
  carrier_eta: string | null;
};

// Inside subqueries columns must be qualified: drizzle renders \${loads.id} as a bare "id" when
// selecting from one table, which a subquery would resolve to its own table's column.
const loadsId = sql.raw('"loads"."id"');
const loadsOrganizationId = sql.raw('"loads"."organization_id"');

// Columns kept for filtering and search only; never read back.
const {
  search_text: _searchText,
  rep_names: _repNames,
  origin_city: _originCity,
  origin_state: _originState,
  destination_city: _destinationCity,
  destination_state: _destinationState,
  pickup_date: _pickupDate,
  delivery_date: _deliveryDate,
  distance_key: _distanceKey,
  ...loadColumns
} = getTableColumns(loads);

// Every column the app writes (the generated distance_key is computed by PostgreSQL).
const { distance_key: _generated, ...storedLoadColumns } = getTableColumns(loads);

/**
 * A load with what the API derives in the database: its stops (as JSON, in order) and the offer
 * and escalation aggregates. Used for a single load and for a page of them alike.
 */
const loadSelection = {
  ...loadColumns,
  stops: sql<
    StopJson[]
  >`(SELECT coalesce(json_agg(s ORDER BY s.position), '[]'::json) FROM stops s WHERE s.load_id = ${loadsId})`,
  offer_count: sql<number>`(SELECT count(DISTINCT o.carrier_id)::int FROM offers o WHERE o.load_id = ${loadsId})`,
  max_offer_amount: sql<
    number | null
  >`(SELECT max(o.offer_amount)::float8 FROM offers o WHERE o.load_id = ${loadsId})`,
  min_offer_amount: sql<
    number | null
  >`(SELECT min(o.offer_amount)::float8 FROM offers o WHERE o.load_id = ${loadsId})`,
  active_escalation_count: sql<number>`(SELECT count(*)::int FROM escalations e WHERE e.load_id = ${loadsId} AND e.status = 'active')`,
};

export type LoadView = Awaited<ReturnType<typeof selectLoads>>[number];

function selectLoads(db: DbOrTx, where: SQL | undefined) {
  return db.select(loadSelection).from(loads).where(where);
}

const loadById = preparedFor((db: Db) =>
  db
    .select(loadSelection)
    .from(loads)
    .where(
      and(eq(loads.organization_id, sql.placeholder('organizationId')), eq(loads.id, sql.placeholder('id'))),
    )
    .prepare('load_by_id'),
);

export async function findLoadView(db: Db, scope: OrgScope, id: string): Promise<LoadView | null> {
  const [row] = await loadById(db).execute({ organizationId: scope.organizationId, id });
  return row ?? null;
}

// ---------------------------------------------------------------------------------------------
// The list

/** Start of a UTC day, and the start of the day after (ranges are inclusive of whole days). */
const dayStart = (date: string) => `${date}T00:00:00.000Z`;
const dayAfter = (date: string) => new Date(Date.parse(dayStart(date)) + 86_400_000).toISOString();

/** A JS array as one text[] parameter (drizzle would expand it into a list of parameters). */
const textArray = (values: string[]) => sql`${sql.param(values)}::text[]`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const lowerAll = (values: string[]) => [...new Set(values.map((v) => v.toLowerCase()))];

/**
 * One filter as two predicates that hold for the same loads. `indexed` is what the list runs: it
 * reads the loads' indexes, resolving case-insensitive and substring matches of customers and
 * cities to stored values through load_filter_values first. `row` tests the load's own columns
 * only: what a count brought up to date re-tests on the old and the new version of each changed
 * load (countChangesSince).
 */
export interface LoadCondition {
  indexed: SQL;
  row: SQL;
  /** Set when load_facet_counts counts this filter alone: its facet and the values it keeps. */
  facet?: { name: LoadFacet; values: string[] };
}

const plain = (condition: SQL, facet?: LoadCondition['facet']): LoadCondition => ({
  indexed: condition,
  row: condition,
  ...(facet ? { facet } : {}),
});

/** The organization's stored values of a load_filter_values field that pass `test` (on `v.value`). */
const storedValues = (organizationId: string, field: string, test: SQL) =>
  sql`ARRAY(SELECT v.value FROM ${loadFilterValues} v WHERE v.organization_id = ${organizationId} AND v.field = ${field} AND ${test})`;

/** Whole-value match of customer_name ignoring case. */
function sameCustomer(organizationId: string, values: string[]): LoadCondition {
  const lowered = textArray(lowerAll(values));
  return {
    indexed: sql`${loads.customer_name} = ANY(${storedValues(organizationId, 'customer_name', sql`lower(v.value) = ANY(${lowered})`)})`,
    row: sql`lower(${loads.customer_name}) = ANY(${lowered})`,
  };
}

/** Case-insensitive substring (origin_city, destination_city). */
function containing(
  organizationId: string,
  field: 'origin_city' | 'destination_city',
  column: AnyPgColumn,
  term: string,
): LoadCondition {
  const pattern = `%${likeEscape(term)}%`;
  return {
    indexed: sql`${column} = ANY(${storedValues(organizationId, field, sql`v.value ILIKE ${pattern}`)})`,
    row: sql`${column} ILIKE ${pattern}`,
  };
}

function dateRange(column: AnyPgColumn, from?: string, to?: string): LoadCondition[] {
  const out: LoadCondition[] = [];
  if (from) out.push(plain(sql`${column} >= ${dayStart(from)}::timestamptz`));
  if (to) out.push(plain(sql`${column} < ${dayAfter(to)}::timestamptz`));
  return out;
}

/** Each tab is an existence condition over the load's related records. */
const tabConditions: Record<Exclude<LoadTab, 'all'>, SQL> = {
  active_outreaches: sql`EXISTS (SELECT 1 FROM ${outreaches} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status IN ('pending', 'active'))`,
  all_calls: sql`EXISTS (SELECT 1 FROM ${calls} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId})`,
  active_offers: sql`EXISTS (SELECT 1 FROM ${offers} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status = 'pending')`,
  failed_verifications: sql`EXISTS (SELECT 1 FROM ${carrierVerifications} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status = 'BLOCKED')`,
  active_notifications: sql`EXISTS (SELECT 1 FROM ${notifications} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.read_at IS NULL)`,
  active_escalations: sql`EXISTS (SELECT 1 FROM ${escalations} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status = 'active')`,
};

/**
 * The conditions of one set of filters on the load's own columns: not `status` (the caller
 * intersects the statuses of the query and of a saved view, so the counter table can still answer
 * a status-only list) and not `tab` (conditions on other tables, kept apart in LoadQuery.tabs).
 */
export function filterConditions(organizationId: string, f: LoadFilters): LoadCondition[] {
  const out: LoadCondition[] = [];
  if (f.search?.trim()) {
    out.push(plain(sql`${loads.search_text} LIKE ${`%${likeEscape(f.search.trim().toLowerCase())}%`}`));
  }
  if (f.tms_status?.length) {
    const values = lowerAll(f.tms_status);
    out.push(
      plain(sql`lower(${loads.tms_status}) = ANY(${textArray(values)})`, { name: 'tms_status', values }),
    );
  }
  if (f.is_posted !== undefined) {
    out.push(plain(eq(loads.is_posted, f.is_posted), { name: 'is_posted', values: [String(f.is_posted)] }));
  }
  if (f.mode?.length) {
    const values = [...new Set<string>(f.mode)];
    out.push(plain(sql`${loads.mode} = ANY(${textArray(values)})`, { name: 'mode', values }));
  }
  if (f.equipment_type?.length) {
    const values = [...new Set<string>(f.equipment_type)];
    out.push(
      plain(sql`${loads.equipment_type} = ANY(${textArray(values)})`, { name: 'equipment_type', values }),
    );
  }
  if (f.customer_name?.length) out.push(sameCustomer(organizationId, f.customer_name));
  if (f.carrier_rep_name?.length) {
    // A load counts under each of its names: the counter answers one name, not a list of them.
    const values = lowerAll(f.carrier_rep_name);
    const facet = values.length === 1 ? { name: 'rep_name' as const, values } : undefined;
    out.push(plain(sql`${loads.rep_names} && ${textArray(values)}`, facet));
  }
  if (f.origin_city?.trim()) {
    out.push(containing(organizationId, 'origin_city', loads.origin_city, f.origin_city.trim()));
  }
  if (f.destination_city?.trim()) {
    out.push(
      containing(organizationId, 'destination_city', loads.destination_city, f.destination_city.trim()),
    );
  }
  out.push(
    ...dateRange(loads.pickup_date, f.pickup_date_from, f.pickup_date_to),
    ...dateRange(loads.delivery_date, f.delivery_date_from, f.delivery_date_to),
    ...dateRange(loads.created_at, f.created_at_from, f.created_at_to),
    ...dateRange(loads.updated_at, f.updated_at_from, f.updated_at_to),
    ...dateRange(loads.last_posted_at, f.last_posted_at_from, f.last_posted_at_to),
  );
  // Distances are read on distance_key, which orders (and equals) as the distance does.
  if (f.distance_min !== undefined) {
    out.push({
      indexed: sql`${loads.distance_key} >= ${distanceKey(sql`${f.distance_min}::float8`)}`,
      row: sql`${loads.distance} >= ${f.distance_min}`,
    });
  }
  if (f.distance_max !== undefined) {
    out.push({
      indexed: sql`${loads.distance_key} <= ${distanceKey(sql`${f.distance_max}::float8`)}`,
      row: sql`${loads.distance} <= ${f.distance_max}`,
    });
  }
  if (f.posted_rate_min !== undefined) out.push(plain(sql`${loads.posted_rate} >= ${f.posted_rate_min}`));
  if (f.posted_rate_max !== undefined) out.push(plain(sql`${loads.posted_rate} <= ${f.posted_rate_max}`));
  return out;
}

export interface LoadQuery {
  /** Statuses to keep; null keeps every load, [] keeps none. */
  statuses: string[] | null;
  /** Conditions on the load's own columns. */
  conditions: LoadCondition[];
  /** Tabs to apply ('all' left out): existence conditions on related tables. */
  tabs: Exclude<LoadTab, 'all'>[];
}

function whereOf(scope: OrgScope, q: LoadQuery, form: 'indexed' | 'row' = 'indexed'): SQL {
  const parts: SQL[] = [eq(loads.organization_id, scope.organizationId)];
  if (q.statuses) parts.push(sql`${loads.load_status} = ANY(${textArray(q.statuses)})`);
  parts.push(...q.conditions.map((c) => c[form]));
  if (form === 'indexed') parts.push(...q.tabs.map((t) => tabConditions[t]));
  return and(...parts)!;
}

/**
 * A tab alone is counted on its table's narrow (organization_id, load_id) index: the distinct
 * loads with such a record, without visiting the loads. DISTINCT in a subquery streams over the
 * index order; count(DISTINCT ...) would sort every entry again.
 */
const tabOnlyCounts: Record<Exclude<LoadTab, 'all'>, (organizationId: string) => SQL> = {
  active_outreaches: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${outreaches} WHERE organization_id = ${o} AND status IN ('pending', 'active')) d`,
  all_calls: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${calls} WHERE organization_id = ${o} AND load_id IS NOT NULL) d`,
  active_offers: (o) =>
    sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${offers} WHERE organization_id = ${o} AND status = 'pending') d`,
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
 * `fewMatches`: the list is known to match few loads (its count). Walking a sort index until
 * enough of them turn up can then read most of the organization when the matches sit at its far
 * end (filters correlate with time: a week of pickups, an old customer). So the matches are read
 * first, through the filters' own indexes, and only they are sorted.
 */
function pageIds(
  scope: OrgScope,
  q: LoadQuery,
  sort: LoadSort,
  limit: number,
  offset: number,
  fewMatches: boolean,
): SQL {
  const plan = sortPlan(sort);
  const where = whereOf(scope, q);
  const orderBy = sql.join(plan.order, sql`, `);
  if (fewMatches) {
    return sql`WITH matches AS MATERIALIZED (SELECT ${loads.id} AS id, ${sortColumns[sort.field]} AS key FROM ${loads} WHERE ${where})
      SELECT id FROM matches ORDER BY key ${sql.raw(sort.desc ? 'DESC NULLS LAST' : 'ASC')}, id ${sql.raw(sort.desc ? 'DESC' : 'ASC')}
      LIMIT ${limit} OFFSET ${offset}`;
  }
  if (!plan.split) {
    return sql`SELECT ${loads.id} FROM ${loads} WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`;
  }
  const { column, keys, nullKeys } = plan.split;
  const upTo = offset + limit;
  const dir = sql.raw(sort.desc ? 'DESC' : 'ASC');
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
  const filtered = q.conditions.length > 0 || q.tabs.length > 0;
  const ids = pageIds(scope, q, sort, limit, offset, filtered && matches <= FEW_MATCHES);
  return selectLoads(
    db,
    and(eq(loads.organization_id, scope.organizationId), sql`${loads.id} IN (${ids})`),
  ).orderBy(...sortPlan(sort).order);
}

/** Up to this many matches, a filtered page is read as its matches sorted (pageIds fewMatches). */
const FEW_MATCHES = 25_000;

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

/** Counts the loads a list matches on the indexes, with the snapshot the count was taken at. */
export async function countLoads(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
): Promise<{ count: number; snapshot: string }> {
  const result = await db.execute<{ n: number; snapshot: string }>(
    sql`SELECT count(*)::int AS n, pg_current_snapshot()::text AS snapshot FROM ${loads} WHERE ${whereOf(scope, q)}`,
  );
  const row = result.rows[0]!;
  return { count: row.n, snapshot: row.snapshot };
}

/**
 * How the count of a list (without tabs) moved between `snapshot` and now: each load written by a
 * transaction the old snapshot did not see is tested as it is now and as it was then (the row
 * before the first such write, from load_changes). Null when that history may be purged already,
 * or when more than `maxChanges` loads changed (counting afresh is then as cheap).
 */
export async function countChangesSince(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  snapshot: string,
  maxChanges: number,
): Promise<{ delta: number; snapshot: string } | null> {
  const where = whereOf(scope, q, 'row');
  const result = await db.execute<{
    snapshot: string;
    usable: boolean;
    changed: number;
    delta: number | null;
  }>(
    sql`WITH ch AS (
          SELECT DISTINCT ON (u.load_id) u.load_id, u.before
          FROM ${loadChanges} c CROSS JOIN LATERAL unnest(c.load_ids, c.befores) AS u(load_id, before)
          WHERE c.organization_id = ${scope.organizationId}
            AND c.xid >= pg_snapshot_xmin(${snapshot}::pg_snapshot)
            AND NOT pg_visible_in_snapshot(c.xid, ${snapshot}::pg_snapshot)
          ORDER BY u.load_id, c.seq
        ), changed AS (SELECT count(*)::int AS n FROM ch)
        SELECT pg_current_snapshot()::text AS snapshot,
          coalesce((SELECT h.snapshot_xmin <= pg_snapshot_xmin(${snapshot}::pg_snapshot) FROM ${loadChangesHorizon} h), false) AS usable,
          (SELECT n FROM changed) AS changed,
          CASE WHEN (SELECT n FROM changed) <= ${maxChanges} THEN
            (SELECT count(*) FROM ch JOIN ${loads} ON ${loads.id} = ch.load_id WHERE ${where})::int
            - (SELECT count(*) FROM ch CROSS JOIN LATERAL jsonb_populate_record(NULL::loads, ch.before) AS loads
               WHERE ch.before IS NOT NULL AND ${where})::int
          END AS delta`,
  );
  const row = result.rows[0]!;
  if (!row.usable || row.delta === null) return null;
  return { delta: row.delta, snapshot: row.snapshot };
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

// ---------------------------------------------------------------------------------------------
// Ingestion

const loadColumnNames = Object.values(storedLoadColumns).map((c) => c.name);
const stopColumnNames = Object.values(getTableColumns(stops)).map((c) => c.name);
const columnList = (names: string[]) => sql.raw(names.map((n) => `"${n}"`).join(', '));

/** Loads of the organization carrying any of these identifiers, locked for the upsert. */
export async function findLoadsByIdentifiers(
  db: DbOrTx,
  scope: OrgScope,
  ids: { tmsLoadIds: string[]; externalIds: string[]; loadNumbers: string[] },
): Promise<LoadRow[]> {
  return db
    .select(storedLoadColumns)
    .from(loads)
    .where(
      and(
        eq(loads.organization_id, scope.organizationId),
        sql`(${loads.tms_load_id} = ANY(${textArray(ids.tmsLoadIds)}) OR ${loads.external_id} = ANY(${textArray(ids.externalIds)}) OR ${loads.load_number} = ANY(${textArray(ids.loadNumbers)}))`,
      ),
    )
    .orderBy(loads.id)
    .for('update');
}

/** Every column of every row is given: one statement over a JSON array, whatever the batch size. */
export async function insertLoads(db: DbOrTx, rows: LoadRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(
    sql`INSERT INTO loads (${columnList(loadColumnNames)}) SELECT ${columnList(loadColumnNames)} FROM jsonb_populate_recordset(NULL::loads, ${JSON.stringify(rows)}::jsonb)`,
  );
}

/** Rewrites whole rows (the service merged what was sent into what was stored). */
export async function updateLoads(db: DbOrTx, scope: OrgScope, rows: LoadRow[]): Promise<void> {
  if (rows.length === 0) return;
  const assigned = loadColumnNames.filter((n) => n !== 'id' && n !== 'organization_id' && n !== 'created_at');
  await db.execute(
    sql`UPDATE loads l SET (${columnList(assigned)}) = (${sql.raw(assigned.map((n) => `r."${n}"`).join(', '))}) FROM jsonb_populate_recordset(NULL::loads, ${JSON.stringify(rows)}::jsonb) r WHERE l.id = r.id AND l.organization_id = ${scope.organizationId}`,
  );
}

/** Drops the stored stops of `replacedFor` (loads that had some), then writes `rows`. */
export async function replaceStops(db: DbOrTx, scope: OrgScope, replacedFor: string[], rows: StopRow[]) {
  if (replacedFor.length > 0) {
    await db
      .delete(stops)
      .where(and(eq(stops.organization_id, scope.organizationId), inArray(stops.load_id, replacedFor)));
  }
  if (rows.length === 0) return;
  await db.execute(
    sql`INSERT INTO stops (${columnList(stopColumnNames)}) SELECT ${columnList(stopColumnNames)} FROM jsonb_populate_recordset(NULL::stops, ${JSON.stringify(rows)}::jsonb)`,
  );
}

/** The stored stops of loads whose stops were not sent again: what their derived columns need. */
export async function storedStops(db: DbOrTx, scope: OrgScope, loadIds: string[]): Promise<StopRow[]> {
  if (loadIds.length === 0) return [];
  return db
    .select()
    .from(stops)
    .where(and(eq(stops.organization_id, scope.organizationId), inArray(stops.load_id, loadIds)))
    .orderBy(stops.load_id, stops.position);
}

export async function statusMappingsOf(db: DbOrTx, scope: OrgScope): Promise<Map<string, string>> {
  const rows = await db
    .select({ tms_status: loadStatusMappings.tms_status, load_status: loadStatusMappings.load_status })
    .from(loadStatusMappings)
    .where(eq(loadStatusMappings.organization_id, scope.organizationId));
  return new Map(rows.map((r) => [r.tms_status, r.load_status]));
}

// ---------------------------------------------------------------------------------------------
// Records attached to a load

export function listLoadCalls(db: DbOrTx, scope: OrgScope, loadId: string) {
  return db
    .select()
    .from(calls)
    .where(and(eq(calls.organization_id, scope.organizationId), eq(calls.load_id, loadId)))
    .orderBy(desc(calls.created_at), desc(calls.id));
}

export function listLoadVerifications(db: DbOrTx, scope: OrgScope, loadId: string) {
  return db
    .select()
    .from(carrierVerifications)
    .where(
      and(
        eq(carrierVerifications.organization_id, scope.organizationId),
        eq(carrierVerifications.load_id, loadId),
      ),
    )
    .orderBy(desc(carrierVerifications.created_at), desc(carrierVerifications.id));
}

export function listLoadEscalations(db: DbOrTx, scope: OrgScope, loadId: string) {
  return db
    .select()
    .from(escalations)
    .where(and(eq(escalations.organization_id, scope.organizationId), eq(escalations.load_id, loadId)))
    .orderBy(desc(escalations.created_at), desc(escalations.id));
}
