// One load as the API reads it (with its stops and offer and escalation aggregates), the writes of
// an upsert, and the records attached to a load. The list's pages are in
// loads-list-repository, its counts and stats in loads-list-counts, its filters in loads-list-filters.

import { and, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../db/client.js';
import { type CopyColumn, type CopyType, copyRows } from '../../db/copy.js';
import { preparedFor } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { loadFigures } from './load-figures-tables.js';
import { carrierVerifications, loadStatusMappings, loads } from './loads-tables.js';

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
 * A load (its stops included) with its offer and escalation figures, which triggers keep in
 * load_figures (a load without a row there has none). Used for a single load and a page alike.
 */
const loadSelection = {
  ...loadColumns,
  offer_count: sql<number>`coalesce(${loadFigures.offer_count}, 0)`,
  max_offer_amount: loadFigures.max_offer_amount,
  min_offer_amount: loadFigures.min_offer_amount,
  active_escalation_count: sql<number>`coalesce(${loadFigures.active_escalation_count}, 0)`,
};

export type LoadView = Awaited<ReturnType<typeof selectLoads>>[number];

const withFigures = (db: DbOrTx) =>
  db.select(loadSelection).from(loads).leftJoin(loadFigures, eq(loadFigures.load_id, loads.id));

export function selectLoads(db: DbOrTx, where: SQL | undefined) {
  return withFigures(db).where(where);
}

const loadById = preparedFor((db: Db) =>
  withFigures(db)
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

/** Loads of the organization carrying any of these identifiers (or ids), locked in id order for the upsert. */
export async function findLoadsByIdentifiers(
  db: DbOrTx,
  scope: OrgScope,
  ids: { tmsLoadIds: string[]; externalIds: string[]; loadNumbers: string[]; loadIds?: string[] },
): Promise<LoadRow[]> {
  return db
    .select(storedLoadColumns)
    .from(loads)
    .where(
      and(
        eq(loads.organization_id, scope.organizationId),
        sql`(${loads.tms_load_id} = ANY(${textArray(ids.tmsLoadIds)}) OR ${loads.external_id} = ANY(${textArray(ids.externalIds)}) OR ${loads.load_number} = ANY(${textArray(ids.loadNumbers)}) OR ${loads.id} = ANY(${textArray(ids.loadIds ?? [])}))`,
      ),
    )
    .orderBy(loads.id)
    .for('update');
}

const storedColumnList = Object.values(storedLoadColumns);

/** How COPY writes a column of each SQL type loads has. */
const COPY_TYPES: Record<string, CopyType> = {
  text: 'text',
  jsonb: 'jsonb',
  boolean: 'boolean',
  'text[]': 'text[]',
  integer: 'number',
  'double precision': 'number',
  numeric: 'number',
  'timestamp (3) with time zone': 'timestamp',
};

const copyColumns: CopyColumn[] = storedColumnList.map((c) => ({
  name: c.name,
  type: defined(COPY_TYPES[c.getSQLType()], `COPY type of loads.${c.name}`),
}));

/** New loads, every column given, written with COPY (one statement however many rows). */
export async function insertLoads(tx: Tx, rows: LoadRow[]): Promise<void> {
  await copyRows(tx, 'loads', copyColumns, rows);
}

/** A row to rewrite; without `stops`, the stored stops stay. */
export type LoadUpdate = Omit<LoadRow, 'stops'> & { stops?: LoadRow['stops'] };

/**
 * Rewrites whole rows (the service merged what was sent into what was stored): the rows are copied
 * into a staging table of the transaction's own, then applied in one UPDATE. A row whose stops did
 * not change leaves them out (NULL in the staging table), so they are neither sent nor rewritten.
 */
export async function updateLoads(tx: Tx, scope: OrgScope, rows: LoadUpdate[]): Promise<void> {
  if (rows.length === 0) return;
  const names = columnList(loadColumnNames);
  // Dropped at commit at the latest; dropped here too, so a second upsert in the same transaction
  // (a keyed request) starts from an empty one.
  await tx.execute(
    sql`CREATE TEMP TABLE load_updates ON COMMIT DROP AS SELECT ${names} FROM loads WITH NO DATA`,
  );
  await copyRows(tx, 'load_updates', copyColumns, rows);
  const assigned = loadColumnNames.filter((n) => n !== 'id' && n !== 'organization_id' && n !== 'created_at');
  const values = assigned.map((n) => (n === 'stops' ? 'coalesce(u."stops", l."stops")' : `u."${n}"`));
  await tx.execute(
    sql`UPDATE loads l SET (${columnList(assigned)}) = (${sql.raw(values.join(', '))}) FROM load_updates u WHERE l.id = u.id AND l.organization_id = ${scope.organizationId}`,
  );
  await tx.execute(sql`DROP TABLE load_updates`);
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
