// One load as the API reads it (with its stops and offer and escalation aggregates), the writes of
// an upsert, and the records attached to a load. The list's pages are in
// loads-list-repository, its counts and stats in loads-list-counts, its filters in loads-list-filters.

import { and, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { carrierVerifications, escalations, loadStatusMappings, loads } from './loads-tables.js';

/** A load as written by the app: every column but the generated one. */
export type LoadRow = Omit<typeof loads.$inferSelect, 'distance_key'>;
export type LoadInsert = typeof loads.$inferInsert;

// Inside subqueries columns must be qualified: drizzle renders \${loads.id} as a bare "id" when
// selecting from one table, which a subquery would resolve to its own table's column.
export const loadsId = sql.raw('"loads"."id"');
export const loadsOrganizationId = sql.raw('"loads"."organization_id"');

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
 * A load (its stops included) with what the API derives in the database: the offer and escalation
 * aggregates. Used for a single load and for a page of them alike.
 */
const loadSelection = {
  ...loadColumns,
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

export function selectLoads(db: DbOrTx, where: SQL | undefined) {
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
// Ingestion

/** A JS array as one text[] parameter (drizzle would expand it into a list of parameters). */
export const textArray = (values: string[]) => sql`${sql.param(values)}::text[]`;

const loadColumnNames = Object.values(storedLoadColumns).map((c) => c.name);
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

/**
 * Rows as one JSON array for json_populate_recordset, each without its null fields: a missing key
 * reads as NULL, and a new load is mostly nulls, so this halves what is encoded, sent and parsed.
 * (json rather than jsonb: PostgreSQL reads each record's fields straight from the text instead of
 * first building a sorted jsonb value of the whole record.)
 */
function recordsetJson(rows: readonly object[]): SQL {
  const compact = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Record<string, unknown>;
    const kept: Record<string, unknown> = {};
    for (const key in row) {
      const value = row[key];
      if (value !== null && value !== undefined) kept[key] = value;
    }
    compact[i] = kept;
  }
  return sql`${JSON.stringify(compact)}::json`;
}

/** Every column of every row is given: one statement over a JSON array, whatever the batch size. */
export async function insertLoads(db: DbOrTx, rows: LoadRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(
    sql`INSERT INTO loads (${columnList(loadColumnNames)}) SELECT ${columnList(loadColumnNames)} FROM json_populate_recordset(NULL::loads, ${recordsetJson(rows)})`,
  );
}

/** A row to rewrite; without `stops`, the stored stops stay. */
export type LoadUpdate = Omit<LoadRow, 'stops'> & { stops?: LoadRow['stops'] };

/**
 * Rewrites whole rows (the service merged what was sent into what was stored). A row whose stops
 * did not change leaves them out, so they are neither sent nor parsed again.
 */
export async function updateLoads(db: DbOrTx, scope: OrgScope, rows: LoadUpdate[]): Promise<void> {
  if (rows.length === 0) return;
  const assigned = loadColumnNames.filter((n) => n !== 'id' && n !== 'organization_id' && n !== 'created_at');
  const values = assigned.map((n) => (n === 'stops' ? 'coalesce(r."stops", l."stops")' : `r."${n}"`));
  await db.execute(
    sql`UPDATE loads l SET (${columnList(assigned)}) = (${sql.raw(values.join(', '))}) FROM json_populate_recordset(NULL::loads, ${recordsetJson(rows)}) r WHERE l.id = r.id AND l.organization_id = ${scope.organizationId}`,
  );
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
