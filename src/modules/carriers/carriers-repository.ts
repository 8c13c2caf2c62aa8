import { and, asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { contactsOf } from './carrier-queries.js';
import { digitsOnly, type ListCarriersQuery } from './carriers-schemas.js';
import { carrierContacts, carriers, complianceChecks, lanePreferences, lanes } from './carriers-tables.js';

export {
  type CarrierRow,
  type ContactRow,
  contactsOf,
  findCarrier,
  findCarriers,
} from './carrier-queries.js';

/** Columns an ingestion or a PATCH may write, with their PostgreSQL types for jsonb_to_recordset. */
export const WRITABLE_COLUMNS = {
  name: 'text',
  tms_carrier_id: 'text',
  mc_number: 'text',
  dot_number: 'text',
  email: 'text',
  phone: 'text',
  dispatcher_name: 'text',
  dispatcher_phone: 'text',
  dispatcher_email: 'text',
  on_time_delivery_pct: 'float8',
  on_time_pickup_pct: 'float8',
  tracking_compliance_pct: 'float8',
  avg_response_time_min: 'float8',
  total_loads_hauled: 'int4',
  is_onboarded: 'bool',
  tms_status: 'text',
  home_state: 'text',
  preferred_channel: 'text',
  equipment_types: 'text[]',
  carrier_rep_name: 'text',
  carrier_rep_email: 'text',
  routing_guide_tier: 'int4',
  insurance_expiration: 'timestamptz',
  w9_on_file: 'bool',
  provider: 'text',
} as const;
export type WritableColumn = keyof typeof WRITABLE_COLUMNS;
// Object.keys types its keys as string; these are WRITABLE_COLUMNS' own keys.
const COLUMNS = Object.keys(WRITABLE_COLUMNS) as WritableColumn[];
const recordType = (extra: string) =>
  sql.raw([extra, ...COLUMNS.map((c) => `${c} ${WRITABLE_COLUMNS[c]}`)].join(', '));

export type CarrierValues = Partial<Record<WritableColumn, unknown>>;

export interface NewCarrier {
  id: string;
  values: CarrierValues;
  is_active: boolean;
  ingestion_method: string;
}

/** One INSERT for any number of carriers; every new carrier is due a compliance check. */
export async function insertCarriers(db: DbOrTx, scope: OrgScope, rows: NewCarrier[]): Promise<void> {
  if (rows.length === 0) return;
  const payload = rows.map((r) => ({
    ...r.values,
    id: r.id,
    is_active: r.is_active,
    ingestion_method: r.ingestion_method,
  }));
  const cols = sql.raw(COLUMNS.join(', '));
  const selected = sql.raw(
    COLUMNS.map((c) => (c === 'is_onboarded' ? 'coalesce(x.is_onboarded, false)' : `x.${c}`)).join(', '),
  );
  await db.execute(sql`
    INSERT INTO carriers (id, organization_id, is_active, ingestion_method, compliance_check_due_at, ${cols})
    SELECT x.id, ${scope.organizationId}, x.is_active, x.ingestion_method, envoy_now(), ${selected}
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
      AS x(${recordType('id text, is_active bool, ingestion_method text')})`);
}

export interface CarrierUpdate {
  id: string;
  /** The fields the request sent: only these change. */
  sent: WritableColumn[];
  values: CarrierValues;
  /** true: disable (ingestion never re-enables). */
  disable: boolean;
  ingestion_method: string | null;
  recheck: boolean;
}

/** One UPDATE for any number of carriers, changing only the fields each request sent. */
export async function updateCarriers(db: DbOrTx, scope: OrgScope, rows: CarrierUpdate[]): Promise<void> {
  if (rows.length === 0) return;
  const payload = rows.map((r) => ({
    ...r.values,
    id: r.id,
    sent: r.sent,
    disable: r.disable,
    ingestion_method: r.ingestion_method,
    recheck: r.recheck,
  }));
  const sets = sql.raw(
    COLUMNS.map((c) => {
      const value = c === 'is_onboarded' ? 'coalesce(x.is_onboarded, false)' : `x.${c}`;
      return `${c} = CASE WHEN '${c}' = ANY(x.sent) THEN ${value} ELSE c.${c} END`;
    }).join(',\n'),
  );
  await db.execute(sql`
    UPDATE carriers c SET ${sets},
      is_active = CASE WHEN x.disable THEN false ELSE c.is_active END,
      ingestion_method = coalesce(x.ingestion_method, c.ingestion_method),
      compliance_check_due_at = CASE WHEN x.recheck THEN envoy_now() ELSE c.compliance_check_due_at END,
      updated_at = envoy_now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
      AS x(${recordType('id text, sent text[], disable bool, ingestion_method text, recheck bool')})
    WHERE c.id = x.id AND c.organization_id = ${scope.organizationId}`);
}

/** Every carrier holding one of these identifiers or names: the candidates ingestion matches against. */
export async function matchCandidates(
  db: DbOrTx,
  scope: OrgScope,
  keys: { tms: string[]; mc: string[]; dot: string[]; names: string[] },
) {
  const ors: SQL[] = [];
  if (keys.tms.length) ors.push(inArray(carriers.tms_carrier_id, keys.tms));
  if (keys.mc.length) ors.push(inArray(carriers.mc_number, keys.mc));
  if (keys.dot.length) ors.push(inArray(carriers.dot_number, keys.dot));
  if (keys.names.length) ors.push(sql`lower(${carriers.name}) = ANY(${sql.param(keys.names)}::text[])`);
  if (ors.length === 0) return [];
  return db
    .select({
      id: carriers.id,
      name: carriers.name,
      tms_carrier_id: carriers.tms_carrier_id,
      mc_number: carriers.mc_number,
      dot_number: carriers.dot_number,
      is_active: carriers.is_active,
    })
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), sql`(${sql.join(ors, sql` OR `)})`))
    .orderBy(asc(carriers.created_at), asc(carriers.id));
}
export type Candidate = Awaited<ReturnType<typeof matchCandidates>>[number];

export interface NewContact {
  carrier_id: string;
  contact_type: string;
  name: string | null;
  phone: string | null;
  email: string | null;
  equipment_type: string | null;
  position: number;
  id: string;
}

const contactShape = (c: Pick<NewContact, 'contact_type' | 'name' | 'phone' | 'email' | 'equipment_type'>) =>
  JSON.stringify([c.contact_type, c.name, c.phone, c.email, c.equipment_type]);

/**
 * Replaces the contacts of these carriers with `incoming`, rewriting only the carriers whose list
 * differs from the stored one (a re-sync of unchanged carriers writes nothing).
 */
export async function replaceContacts(db: DbOrTx, scope: OrgScope, owners: string[], incoming: NewContact[]) {
  if (owners.length === 0) return;
  const stored = await contactsOf(db, scope, owners);
  const wanted = new Map<string, string[]>();
  for (const c of incoming) wanted.set(c.carrier_id, [...(wanted.get(c.carrier_id) ?? []), contactShape(c)]);
  const changed = new Set(
    owners.filter(
      (id) => (stored.get(id) ?? []).map(contactShape).join('\n') !== (wanted.get(id) ?? []).join('\n'),
    ),
  );
  const carrierIds = [...changed];
  const contacts = incoming.filter((c) => changed.has(c.carrier_id));
  if (carrierIds.length === 0) return;
  await db
    .delete(carrierContacts)
    .where(
      and(
        eq(carrierContacts.organization_id, scope.organizationId),
        inArray(carrierContacts.carrier_id, carrierIds),
      ),
    );
  if (contacts.length === 0) return;
  await db.execute(sql`
    INSERT INTO carrier_contacts (id, organization_id, carrier_id, contact_type, name, phone, email, equipment_type, position)
    SELECT x.id, ${scope.organizationId}, x.carrier_id, x.contact_type, x.name, x.phone, x.email, x.equipment_type, x.position
    FROM jsonb_to_recordset(${JSON.stringify(contacts)}::jsonb) AS x(
      id text, carrier_id text, contact_type text, name text, phone text, email text, equipment_type text, position int)`);
}

export async function setCarrierFields(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  fields: PgUpdateSetSource<typeof carriers>,
) {
  const [row] = await db
    .update(carriers)
    .set({ ...fields, updated_at: productNow })
    .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, id)))
    .returning();
  return row ?? null;
}

/** The carrier list with its filters; with a lane filter, the strongest tier held on that lane. */
export async function listCarriers(db: DbOrTx, scope: OrgScope, q: ListCarriersQuery) {
  const conditions: SQL[] = [eq(carriers.organization_id, scope.organizationId)];
  if (q.search) {
    const term = q.search.trim();
    const digits = digitsOnly(term);
    const like = `%${term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    const byNumber = digits
      ? sql` OR ${carriers.mc_number} = ${digits} OR ${carriers.dot_number} = ${digits}`
      : sql``;
    conditions.push(sql`(${carriers.name} ILIKE ${like}${byNumber})`);
  }
  if (q.is_active !== undefined) conditions.push(eq(carriers.is_active, q.is_active));
  if (q.compliance_status?.length) conditions.push(inArray(carriers.compliance_status, q.compliance_status));
  if (q.equipment_type?.length) {
    conditions.push(sql`${carriers.equipment_types} && ${sql.param(q.equipment_type)}::text[]`);
  }
  if (q.routing_guide_tier?.length)
    conditions.push(inArray(carriers.routing_guide_tier, q.routing_guide_tier));

  const laneFilter =
    q.lane_id !== undefined || q.origin_state !== undefined || q.destination_state !== undefined;
  let laneTier: SQL = sql`NULL::int`;
  if (laneFilter) {
    const laneConds: SQL[] = [
      eq(lanes.organization_id, scope.organizationId),
      sql`${lanePreferences.carrier_id} = ${carriers.id}`,
      eq(lanePreferences.is_active, true),
    ];
    if (q.lane_id !== undefined) laneConds.push(eq(lanes.id, q.lane_id));
    if (q.origin_state !== undefined) laneConds.push(eq(lanes.origin_state, q.origin_state));
    if (q.destination_state !== undefined) laneConds.push(eq(lanes.destination_state, q.destination_state));
    const onLane = sql`FROM ${lanePreferences} JOIN ${lanes} ON ${lanes.id} = ${lanePreferences.lane_id} WHERE ${and(...laneConds)}`;
    conditions.push(sql`EXISTS (SELECT 1 ${onLane})`);
    laneTier = sql`(SELECT min(${lanePreferences.routing_guide_tier}) ${onLane})`;
  }
  const where = and(...conditions);
  const orderColumn = {
    created_at: carriers.created_at,
    updated_at: carriers.updated_at,
    name: carriers.name,
    routing_guide_tier: carriers.routing_guide_tier,
  }[q.order_by];
  const direction = q.order_desc ? desc : asc;
  const [rows, [total]] = await Promise.all([
    db
      .select({ carrier: carriers, lane_routing_guide_tier: sql<number | null>`${laneTier}` })
      .from(carriers)
      .where(where)
      .orderBy(
        q.order_desc ? sql`${orderColumn} DESC NULLS LAST` : sql`${orderColumn} ASC NULLS LAST`,
        direction(carriers.id),
      )
      .limit(q.page_size)
      .offset(offsetOf(q.page, q.page_size)),
    db.select({ n: count() }).from(carriers).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The carrier's compliance checks, newest first. */
export async function complianceChecksOf(db: DbOrTx, scope: OrgScope, carrierId: string, limit: number) {
  return db
    .select({
      id: complianceChecks.id,
      provider: complianceChecks.provider,
      verdict: complianceChecks.verdict,
      reasons: complianceChecks.reasons,
      risk_level: complianceChecks.risk_level,
      signals: complianceChecks.signals,
      detail: complianceChecks.detail,
      checked_at: complianceChecks.checked_at,
    })
    .from(complianceChecks)
    .where(
      and(
        eq(complianceChecks.organization_id, scope.organizationId),
        eq(complianceChecks.carrier_id, carrierId),
      ),
    )
    .orderBy(desc(complianceChecks.checked_at), desc(complianceChecks.id))
    .limit(limit);
}
