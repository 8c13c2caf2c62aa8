import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { newId } from '../../domain/ids.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { LanePreferenceInput } from './carriers-schemas.js';
import { lanePreferences, lanes } from './carriers-tables.js';

export interface LaneKey {
  origin_city: string | null;
  origin_state: string;
  origin_country: string;
  destination_city: string | null;
  destination_state: string;
  destination_country: string;
  equipment_type: string | null;
}

export function laneKeyOf(input: LanePreferenceInput): LaneKey {
  const city = (c: string | null | undefined) => (c?.trim() ? c.trim() : null);
  return {
    origin_city: city(input.origin.city),
    origin_state: input.origin.state,
    origin_country: input.origin.country ?? 'US',
    destination_city: city(input.destination.city),
    destination_state: input.destination.state,
    destination_country: input.destination.country ?? 'US',
    equipment_type: input.equipment_type ?? null,
  };
}

/** The identity the unique index enforces: cities compared without case, missing parts as ''. */
export const laneIdentity = (k: LaneKey) =>
  [
    (k.origin_city ?? '').toLowerCase(),
    k.origin_state,
    k.origin_country,
    (k.destination_city ?? '').toLowerCase(),
    k.destination_state,
    k.destination_country,
    k.equipment_type ?? '',
  ].join('|');

const IDENTITY_SQL = sql.raw(
  `lower(coalesce(origin_city, '')) || '|' || origin_state || '|' || origin_country || '|' ||
   lower(coalesce(destination_city, '')) || '|' || destination_state || '|' || destination_country || '|' ||
   coalesce(equipment_type, '')`,
);

/** Finds or creates each lane; the same origin, destination and equipment reuse one lane. */
export async function ensureLanes(
  db: DbOrTx,
  scope: OrgScope,
  keys: LaneKey[],
): Promise<Map<string, string>> {
  const unique = new Map(keys.map((k) => [laneIdentity(k), k]));
  if (unique.size === 0) return new Map();
  const payload = [...unique.values()].map((k) => ({ ...k, id: newId('lane') }));
  await db.execute(sql`
    INSERT INTO lanes (id, organization_id, origin_city, origin_state, origin_country,
                       destination_city, destination_state, destination_country, equipment_type)
    SELECT x.id, ${scope.organizationId}, x.origin_city, x.origin_state, x.origin_country,
           x.destination_city, x.destination_state, x.destination_country, x.equipment_type
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS x(
      id text, origin_city text, origin_state text, origin_country text,
      destination_city text, destination_state text, destination_country text, equipment_type text)
    ON CONFLICT DO NOTHING`);
  const found = await db.execute<{ id: string; identity: string }>(sql`
    SELECT id, ${IDENTITY_SQL} AS identity FROM lanes
    WHERE organization_id = ${scope.organizationId}
      AND ${IDENTITY_SQL} = ANY(${sql.param([...unique.keys()])}::text[])`);
  return new Map(found.rows.map((r) => [r.identity, r.id]));
}

export interface NewPreference {
  carrier_id: string;
  lane_id: string;
  preference_type: string;
  routing_guide_tier: number | null;
}

/** Inserts preferences a carrier does not hold yet on that lane; returns the ones created. */
export async function insertPreferences(db: DbOrTx, scope: OrgScope, rows: NewPreference[]) {
  if (rows.length === 0) return [];
  const payload = rows.map((r) => ({ ...r, id: newId('lanePreference') }));
  const result = await db.execute<{ id: string; carrier_id: string }>(sql`
    INSERT INTO lane_preferences (id, organization_id, carrier_id, lane_id, preference_type, routing_guide_tier)
    SELECT x.id, ${scope.organizationId}, x.carrier_id, x.lane_id, x.preference_type, x.routing_guide_tier
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS x(
      id text, carrier_id text, lane_id text, preference_type text, routing_guide_tier int)
    ON CONFLICT (carrier_id, lane_id) DO NOTHING
    RETURNING id, carrier_id`);
  return result.rows;
}

const preferenceColumns = { preference: lanePreferences, lane: lanes };

export async function findPreference(
  db: DbOrTx,
  scope: OrgScope,
  carrierId: string,
  id: string,
  forUpdate = false,
) {
  const query = db
    .select(preferenceColumns)
    .from(lanePreferences)
    .innerJoin(lanes, eq(lanes.id, lanePreferences.lane_id))
    .where(
      and(
        eq(lanePreferences.organization_id, scope.organizationId),
        eq(lanePreferences.carrier_id, carrierId),
        eq(lanePreferences.id, id),
      ),
    )
    .limit(1);
  const [row] = forUpdate ? await query.for('update', { of: lanePreferences }) : await query;
  return row ?? null;
}

export async function findPreferenceOnLane(db: DbOrTx, scope: OrgScope, carrierId: string, laneId: string) {
  const [row] = await db
    .select(preferenceColumns)
    .from(lanePreferences)
    .innerJoin(lanes, eq(lanes.id, lanePreferences.lane_id))
    .where(
      and(
        eq(lanePreferences.organization_id, scope.organizationId),
        eq(lanePreferences.carrier_id, carrierId),
        eq(lanePreferences.lane_id, laneId),
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function listPreferences(
  db: DbOrTx,
  scope: OrgScope,
  carrierId: string,
  q: { page: number; page_size: number; is_active?: boolean | undefined },
) {
  const where = and(
    eq(lanePreferences.organization_id, scope.organizationId),
    eq(lanePreferences.carrier_id, carrierId),
    q.is_active === undefined ? undefined : eq(lanePreferences.is_active, q.is_active),
  );
  const [rows, [total]] = await Promise.all([
    db
      .select(preferenceColumns)
      .from(lanePreferences)
      .innerJoin(lanes, eq(lanes.id, lanePreferences.lane_id))
      .where(where)
      .orderBy(desc(lanePreferences.created_at), asc(lanePreferences.id))
      .limit(q.page_size)
      .offset(offsetOf(q.page, q.page_size)),
    db.select({ n: count() }).from(lanePreferences).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

export async function setPreferenceFields(
  db: DbOrTx,
  scope: OrgScope,
  id: string,
  fields: PgUpdateSetSource<typeof lanePreferences>,
) {
  await db
    .update(lanePreferences)
    .set({ ...fields, updated_at: productNow })
    .where(and(eq(lanePreferences.organization_id, scope.organizationId), eq(lanePreferences.id, id)));
}
