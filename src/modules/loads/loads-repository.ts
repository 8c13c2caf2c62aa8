// One load as the API reads it (with its stops and offer and escalation aggregates), the writes of
// an upsert, and the records attached to a load. The list's pages are in
// loads-list-repository, its counts and stats in loads-list-counts, its filters in loads-list-filters.

import { and, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
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
  active_escalation_count: sql<number>`(SELECT count(*)::int FROM escalations e WHERE e.load_id = ${loadsId} AND e.status = 'ACTIVE')`,
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

/**
 * The stored columns in order, each with how PostgreSQL reads it back from its position in a row
 * of a JSON array: jsonb as it is (a JSON null is SQL NULL), text as text, other types cast from
 * their text (text[] is sent as an array literal).
 */
const storedColumnList = Object.values(storedLoadColumns);
const readColumn = (i: number) => {
  const type = defined(storedColumnList[i], 'storedColumnList[i]').getSQLType();
  if (type === 'jsonb') return `nullif(r->${i}, 'null')`;
  if (type === 'text') return `r->>${i}`;
  return `(r->>${i})::${type}`;
};

/** A text[] as an array literal: each element quoted, with its quotes and backslashes escaped. */
const arrayLiteral = (values: readonly string[]) =>
  `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;

const repNamesAt = loadColumnNames.indexOf('rep_names');

/**
 * Rows as one JSON array of arrays, each a row's columns by position: PostgreSQL parses it into
 * jsonb once and reads each column from its position, with no column names to send or match, and
 * the jsonb columns (stops among them) copied out without being parsed again.
 */
function rowsJson(rows: readonly object[]): SQL {
  const out = new Array<unknown[]>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    // Load rows are read column by column, by name.
    const row = rows[i] as Record<string, unknown>;
    const values = new Array<unknown>(loadColumnNames.length);
    for (let c = 0; c < loadColumnNames.length; c++) {
      const value = row[defined(loadColumnNames[c], 'loadColumnNames[c]')];
      values[c] =
        value === undefined ? null : Array.isArray(value) && c === repNamesAt ? arrayLiteral(value) : value;
    }
    out[i] = values;
  }
  return sql`${JSON.stringify(out)}::jsonb`;
}

/**
 * Rows per statement: a 1,000-load batch of full TMS records is about 6 MiB of JSON, and
 * stringifying (then encoding) it in one piece held the event loop for tens of milliseconds; in
 * pieces of this many rows each piece is a few milliseconds, with the round trip in between.
 */
const ROWS_PER_STATEMENT = 200;

/** `rows` in pieces of ROWS_PER_STATEMENT, one statement each, one after another. */
async function inPieces<T>(rows: readonly T[], write: (piece: readonly T[]) => Promise<unknown>) {
  for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
    await write(rows.slice(at, at + ROWS_PER_STATEMENT));
  }
}

/** Every column of every row is given: a statement over a JSON array per ROWS_PER_STATEMENT rows. */
export async function insertLoads(db: DbOrTx, rows: LoadRow[]): Promise<void> {
  await inPieces(rows, (piece) =>
    db.execute(
      sql`INSERT INTO loads (${columnList(loadColumnNames)}) SELECT ${sql.raw(loadColumnNames.map((_, i) => readColumn(i)).join(', '))} FROM jsonb_array_elements(${rowsJson(piece)}) AS r`,
    ),
  );
}

/** A row to rewrite; without `stops`, the stored stops stay. */
export type LoadUpdate = Omit<LoadRow, 'stops'> & { stops?: LoadRow['stops'] };

/**
 * Rewrites whole rows (the service merged what was sent into what was stored). A row whose stops
 * did not change leaves them out, so they are neither sent nor parsed again.
 */
export async function updateLoads(db: DbOrTx, scope: OrgScope, rows: LoadUpdate[]): Promise<void> {
  const assigned = loadColumnNames
    .map((n, i) => ({ n, i }))
    .filter(({ n }) => n !== 'id' && n !== 'organization_id' && n !== 'created_at');
  const values = assigned.map(({ n, i }) =>
    n === 'stops' ? `coalesce(${readColumn(i)}, l."stops")` : readColumn(i),
  );
  const idAt = loadColumnNames.indexOf('id');
  await inPieces(rows, (piece) =>
    db.execute(
      sql`UPDATE loads l SET (${columnList(assigned.map((a) => a.n))}) = (${sql.raw(values.join(', '))}) FROM jsonb_array_elements(${rowsJson(piece)}) AS r WHERE l.id = r->>${sql.raw(String(idAt))} AND l.organization_id = ${scope.organizationId}`,
    ),
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
