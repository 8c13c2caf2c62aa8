import { and, asc, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
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
  escalations,
  loadListVersions,
  loadStatusCounts,
  loadStatusMappings,
  loads,
  notifications,
  stops,
} from './loads-tables.js';

export type LoadRow = typeof loads.$inferSelect;
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
  ...loadColumns
} = getTableColumns(loads);

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

export async function loadExists(db: DbOrTx, scope: OrgScope, id: string): Promise<boolean> {
  const [row] = await db
    .select({ id: loads.id })
    .from(loads)
    .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, id)))
    .limit(1);
  return row !== undefined;
}

// ---------------------------------------------------------------------------------------------
// The list

/** Start of a UTC day, and the start of the day after (ranges are inclusive of whole days). */
const dayStart = (date: string) => `${date}T00:00:00.000Z`;
const dayAfter = (date: string) => new Date(Date.parse(dayStart(date)) + 86_400_000).toISOString();

/** A JS array as one text[] parameter (drizzle would expand it into a list of parameters). */
const textArray = (values: string[]) => sql`${sql.param(values)}::text[]`;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function dateRange(column: SQL | typeof loads.created_at, from?: string, to?: string): SQL[] {
  const out: SQL[] = [];
  if (from) out.push(sql`${column} >= ${dayStart(from)}::timestamptz`);
  if (to) out.push(sql`${column} < ${dayAfter(to)}::timestamptz`);
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

const lowerAll = (values: string[]) => values.map((v) => v.toLowerCase());

/**
 * The conditions of one set of filters on the load's own columns: not `status` (the caller
 * intersects the statuses of the query and of a saved view, so the counter table can still answer
 * a status-only list) and not `tab` (conditions on other tables, kept apart in LoadQuery.tabs).
 */
export function filterConditions(f: LoadFilters): SQL[] {
  const out: SQL[] = [];
  if (f.search?.trim()) {
    out.push(sql`${loads.search_text} LIKE ${`%${likeEscape(f.search.trim().toLowerCase())}%`}`);
  }
  if (f.tms_status?.length) {
    out.push(sql`lower(${loads.tms_status}) = ANY(${textArray(lowerAll(f.tms_status))})`);
  }
  if (f.is_posted !== undefined) out.push(eq(loads.is_posted, f.is_posted));
  if (f.mode?.length) out.push(sql`${loads.mode} = ANY(${textArray(f.mode)})`);
  if (f.equipment_type?.length) out.push(sql`${loads.equipment_type} = ANY(${textArray(f.equipment_type)})`);
  if (f.customer_name?.length) {
    out.push(sql`lower(${loads.customer_name}) = ANY(${textArray(lowerAll(f.customer_name))})`);
  }
  if (f.carrier_rep_name?.length) {
    out.push(sql`${loads.rep_names} && ${textArray(lowerAll(f.carrier_rep_name))}`);
  }
  if (f.origin_city?.trim()) {
    out.push(sql`${loads.origin_city} ILIKE ${`%${likeEscape(f.origin_city.trim())}%`}`);
  }
  if (f.destination_city?.trim()) {
    out.push(sql`${loads.destination_city} ILIKE ${`%${likeEscape(f.destination_city.trim())}%`}`);
  }
  out.push(
    ...dateRange(sql`${loads.pickup_date}`, f.pickup_date_from, f.pickup_date_to),
    ...dateRange(sql`${loads.delivery_date}`, f.delivery_date_from, f.delivery_date_to),
    ...dateRange(sql`${loads.created_at}`, f.created_at_from, f.created_at_to),
    ...dateRange(sql`${loads.updated_at}`, f.updated_at_from, f.updated_at_to),
    ...dateRange(sql`${loads.last_posted_at}`, f.last_posted_at_from, f.last_posted_at_to),
  );
  if (f.distance_min !== undefined) out.push(sql`${loads.distance} >= ${f.distance_min}`);
  if (f.distance_max !== undefined) out.push(sql`${loads.distance} <= ${f.distance_max}`);
  if (f.posted_rate_min !== undefined) out.push(sql`${loads.posted_rate} >= ${f.posted_rate_min}`);
  if (f.posted_rate_max !== undefined) out.push(sql`${loads.posted_rate} <= ${f.posted_rate_max}`);
  return out;
}

export interface LoadQuery {
  /** Statuses to keep; null keeps every load, [] keeps none. */
  statuses: string[] | null;
  /** Conditions on the load's own columns. */
  conditions: SQL[];
  /** Tabs to apply ('all' left out): existence conditions on related tables. */
  tabs: Exclude<LoadTab, 'all'>[];
}

function whereOf(scope: OrgScope, q: LoadQuery, withTabs = true): SQL {
  const parts: SQL[] = [eq(loads.organization_id, scope.organizationId)];
  if (q.statuses) parts.push(sql`${loads.load_status} = ANY(${textArray(q.statuses)})`);
  parts.push(...q.conditions);
  if (withTabs) parts.push(...q.tabs.map((t) => tabConditions[t]));
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

/** The organization's write versions of the loads and of the tables its tabs read, as one string. */
export async function listVersions(db: DbOrTx, scope: OrgScope): Promise<string> {
  const rows = await db
    .select({ source: loadListVersions.source, version: loadListVersions.version })
    .from(loadListVersions)
    .where(eq(loadListVersions.organization_id, scope.organizationId))
    .orderBy(loadListVersions.source);
  return rows.map((r) => `${r.source}:${r.version}`).join(',');
}

/** A stable key for what a count depends on (the rendered WHERE clause and its parameters). */
export function countKey(scope: OrgScope, q: LoadQuery): string {
  const rendered = dialect.sqlToQuery(whereOf(scope, q));
  return `${rendered.sql}\u0000${JSON.stringify(rendered.params)}`;
}

const dialect = new PgDialect();

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

const nullableSorts = new Set<LoadSortField>([
  'pickup_date',
  'delivery_date',
  'posted_rate',
  'distance',
  'last_posted_at',
]);

/**
 * One page: the positions are found on the narrow (organization_id, sort, id) indexes first and
 * only the page's rows are read in full (a deferred join), so OFFSET skips index entries, not rows.
 * Nulls sort after every value both ways round.
 */
export async function listLoadPage(
  db: DbOrTx,
  scope: OrgScope,
  q: LoadQuery,
  sort: { field: LoadSortField; desc: boolean },
  limit: number,
  offset: number,
): Promise<LoadView[]> {
  const column = sortColumns[sort.field];
  const direction = sort.desc ? desc : asc;
  // Nullable sort columns keep their nulls last when descending too; the others need no clause,
  // which keeps ORDER BY equal to the (organization_id, column, id) index read backwards.
  const nulls = sort.desc && nullableSorts.has(sort.field) ? sql` NULLS LAST` : sql``;
  const order = [sql`${direction(column)}${nulls}`, direction(loads.id)];
  const page = db
    .select({ id: loads.id })
    .from(loads)
    .where(whereOf(scope, q))
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
  return selectLoads(
    db,
    and(eq(loads.organization_id, scope.organizationId), inArray(loads.id, page)),
  ).orderBy(...order);
}

/**
 * The exact number of loads a list matches. A list narrowed by status alone (or not at all) is
 * answered from load_status_counts; anything else counts rows, on indexes where it can.
 */
export async function countLoads(db: DbOrTx, scope: OrgScope, q: LoadQuery): Promise<number> {
  if (q.conditions.length === 0 && q.statuses === null && q.tabs.length === 1) {
    const result = await db.execute<{ n: number }>(tabOnlyCounts[q.tabs[0]!](scope.organizationId));
    return result.rows[0]?.n ?? 0;
  }
  if (q.conditions.length === 0 && q.tabs.length === 0) {
    const statuses = q.statuses?.map((s) => s) ?? null;
    if (statuses && statuses.length === 0) return 0;
    const [row] = await db
      .select({ n: sql<string | null>`sum(${loadStatusCounts.n})` })
      .from(loadStatusCounts)
      .where(
        and(
          eq(loadStatusCounts.organization_id, scope.organizationId),
          statuses ? inArray(loadStatusCounts.load_status, statuses) : undefined,
        ),
      );
    return Number(row?.n ?? 0);
  }
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(loads).where(whereOf(scope, q));
  return row?.n ?? 0;
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

const loadColumnNames = Object.values(getTableColumns(loads)).map((c) => c.name);
const stopColumnNames = Object.values(getTableColumns(stops)).map((c) => c.name);
const columnList = (names: string[]) => sql.raw(names.map((n) => `"${n}"`).join(', '));

/** Loads of the organization carrying any of these identifiers, locked for the upsert. */
export async function findLoadsByIdentifiers(
  db: DbOrTx,
  scope: OrgScope,
  ids: { tmsLoadIds: string[]; externalIds: string[]; loadNumbers: string[] },
): Promise<LoadRow[]> {
  return db
    .select()
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

export async function replaceStops(db: DbOrTx, scope: OrgScope, loadIds: string[], rows: StopRow[]) {
  if (loadIds.length === 0) return;
  await db
    .delete(stops)
    .where(and(eq(stops.organization_id, scope.organizationId), inArray(stops.load_id, loadIds)));
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
