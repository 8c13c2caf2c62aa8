// The list's filters as SQL conditions on loads: what the page, the count and the stats of a list
// share (loads-list-repository and loads-list-counts read with them).

import { eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { allOf } from '../../db/conditions.js';
import { executeReused } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { type LoadFacet, loadFilterValues } from './loads-list-tables.js';
import { loadsId, loadsOrganizationId, textArray } from './loads-repository.js';
import type { LoadFilters, LoadTab } from './loads-schemas.js';
import { carrierVerifications, distanceKey, escalations, loads, notifications } from './loads-tables.js';

/** Start of a UTC day, and the start of the day after (ranges are inclusive of whole days). */
const dayStart = (date: string) => `${date}T00:00:00.000Z`;
const dayAfter = (date: string) => new Date(Date.parse(dayStart(date)) + 86_400_000).toISOString();

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
  /**
   * Set on a date range: its loads sit together in time, so a time-ordered sort index holds them
   * in one stretch, possibly far from its start (the page is not read by walking that index).
   */
  ranged?: true;
}

const plain = (condition: SQL, facet?: LoadCondition['facet']): LoadCondition => ({
  indexed: condition,
  row: condition,
  ...(facet ? { facet } : {}),
});

/**
 * A filter matched against the stored values of a load_filter_values field (`test` on `v.value`):
 * the values are looked up before the list's statements run (resolveStoredValues), so those
 * statements carry them as a plain array. PostgreSQL then plans with the values' own statistics:
 * with the lookup as a subquery it could not see them, and read `origin_city` + a pickup week
 * through the pickup index and the table (10 ms) rather than the covering city index (2.5 ms).
 */
interface StoredLookup {
  field: string;
  test: SQL;
  condition: (values: SQL) => LoadCondition;
}

/** Whole-value match of customer_name ignoring case. */
function sameCustomer(values: string[]): StoredLookup {
  const lowered = textArray(lowerAll(values));
  return {
    field: 'customer_name',
    test: sql`lower(v.value) = ANY(${lowered})`,
    condition: (stored) => ({
      indexed: sql`${loads.customer_name} = ANY(${stored})`,
      row: sql`lower(${loads.customer_name}) = ANY(${lowered})`,
    }),
  };
}

/** Case-insensitive substring (origin_city, destination_city). */
function containing(
  field: 'origin_city' | 'destination_city',
  column: AnyPgColumn,
  term: string,
): StoredLookup {
  const pattern = `%${likeEscape(term)}%`;
  return {
    field,
    test: sql`v.value ILIKE ${pattern}`,
    condition: (stored) => ({
      indexed: sql`${column} = ANY(${stored})`,
      row: sql`${column} ILIKE ${pattern}`,
    }),
  };
}

/** The stored values each lookup matches, in one statement. */
async function resolveStoredValues(
  db: DbOrTx,
  organizationId: string,
  lookups: StoredLookup[],
): Promise<LoadCondition[]> {
  if (lookups.length === 0) return [];
  const columns = lookups.map(
    (l, i) =>
      sql`ARRAY(SELECT v.value FROM ${loadFilterValues} v WHERE v.organization_id = ${organizationId} AND v.field = ${l.field} AND ${l.test} ORDER BY v.value) AS ${sql.raw(`v${i}`)}`,
  );
  const [row] = await executeReused<Record<string, string[]>>(db, sql`SELECT ${sql.join(columns, sql`, `)}`);
  if (!row) throw new Error('the stored-values lookup returned no row');
  return lookups.map((l, i) => l.condition(textArray(row[`v${i}`] ?? [])));
}

function dateRange(column: AnyPgColumn, from?: string, to?: string): LoadCondition[] {
  const out: LoadCondition[] = [];
  if (from) out.push({ ...plain(sql`${column} >= ${dayStart(from)}::timestamptz`), ranged: true });
  if (to) out.push({ ...plain(sql`${column} < ${dayAfter(to)}::timestamptz`), ranged: true });
  return out;
}

/** A tab of the list ('all' aside): an existence condition over the load's related records. */
export interface TabRule {
  readonly name: Exclude<LoadTab, 'all'>;
  /** The condition on the list's load. */
  readonly condition: SQL;
  /**
   * The tab alone, counted on its table's narrow (organization_id, load_id) index: the distinct
   * loads with such a record, without visiting the loads. DISTINCT in a subquery streams over the
   * index order; count(DISTINCT ...) would sort every entry again.
   */
  readonly countAlone: (organizationId: string) => SQL;
  /**
   * The table the tab reads (its source in load_list_versions). active_offers and booked both read
   * offers alone (pending and accepted ones): every accept and un-accept writes that table, so it
   * moves their kept counts and pages like any other offer.
   */
  readonly source: string;
}

/** The tabs over the records other modules keep of a load (outreaches, calls, offers). */
export type RelatedTabName = 'active_outreaches' | 'all_calls' | 'active_offers' | 'booked';

/**
 * A tab over another module's records, as that module writes it: its condition on any load's
 * organization and id (here the list's), its count alone, and the table it reads.
 */
export interface RelatedTab {
  readonly condition: (organizationId: SQL, loadId: SQL) => SQL;
  readonly countAlone: (organizationId: string) => SQL;
  readonly source: string;
}

/** Every tab of the list: the loads module's own and the related ones it is handed (LoadRelations). */
export function tabRules(
  related: Record<RelatedTabName, RelatedTab>,
): Record<Exclude<LoadTab, 'all'>, TabRule> {
  const relatedRule = (name: RelatedTabName): TabRule => ({
    name,
    condition: related[name].condition(loadsOrganizationId, loadsId),
    countAlone: related[name].countAlone,
    source: related[name].source,
  });
  return {
    active_outreaches: relatedRule('active_outreaches'),
    all_calls: relatedRule('all_calls'),
    active_offers: relatedRule('active_offers'),
    booked: relatedRule('booked'),
    failed_verifications: {
      name: 'failed_verifications',
      condition: sql`EXISTS (SELECT 1 FROM ${carrierVerifications} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status = 'BLOCKED')`,
      countAlone: (o) =>
        sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${carrierVerifications} WHERE organization_id = ${o} AND status = 'BLOCKED') d`,
      source: 'carrier_verifications',
    },
    active_notifications: {
      name: 'active_notifications',
      condition: sql`EXISTS (SELECT 1 FROM ${notifications} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.read_at IS NULL)`,
      countAlone: (o) =>
        sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${notifications} WHERE organization_id = ${o} AND read_at IS NULL AND load_id IS NOT NULL) d`,
      source: 'notifications',
    },
    active_escalations: {
      name: 'active_escalations',
      condition: sql`EXISTS (SELECT 1 FROM ${escalations} x WHERE x.organization_id = ${loadsOrganizationId} AND x.load_id = ${loadsId} AND x.status = 'ACTIVE')`,
      countAlone: (o) =>
        sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${escalations} WHERE organization_id = ${o} AND status = 'ACTIVE') d`,
      source: 'escalations',
    },
  };
}

/**
 * The conditions of one set of filters on the load's own columns: not `status` (the caller
 * intersects the statuses of the query and of a saved view, so the counter table can still answer
 * a status-only list) and not `tab` (conditions on other tables, kept apart in LoadQuery.tabs).
 */
export async function filterConditions(
  db: DbOrTx,
  organizationId: string,
  f: LoadFilters,
): Promise<LoadCondition[]> {
  const out: LoadCondition[] = [];
  const lookups: StoredLookup[] = [];
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
  if (f.customer_name?.length) lookups.push(sameCustomer(f.customer_name));
  if (f.carrier_rep_name?.length) {
    // A load counts under each of its names: the counter answers one name, not a list of them.
    const values = lowerAll(f.carrier_rep_name);
    const facet = values.length === 1 ? { name: 'rep_name' as const, values } : undefined;
    out.push(plain(sql`${loads.rep_names} && ${textArray(values)}`, facet));
  }
  if (f.origin_city?.trim()) lookups.push(containing('origin_city', loads.origin_city, f.origin_city.trim()));
  if (f.destination_city?.trim()) {
    lookups.push(containing('destination_city', loads.destination_city, f.destination_city.trim()));
  }
  out.push(...(await resolveStoredValues(db, organizationId, lookups)));
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
  tabs: TabRule[];
}

/**
 * The WHERE clause of a list. The row form tests the load's own columns and, for tabs, the related
 * tables as they are now: a count brought up to date with it is exact only while those tables
 * have not changed (countChangesSince reports their versions).
 */
export function whereOf(scope: OrgScope, q: LoadQuery, form: 'indexed' | 'row' = 'indexed'): SQL {
  const parts: SQL[] = [eq(loads.organization_id, scope.organizationId)];
  if (q.statuses) parts.push(sql`${loads.load_status} = ANY(${textArray(q.statuses)})`);
  parts.push(...q.conditions.map((c) => c[form]));
  parts.push(...q.tabs.map((t) => t.condition));
  return allOf(...parts);
}
