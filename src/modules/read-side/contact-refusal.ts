// The contact guard's SQL: why a carrier must not be contacted about a load, read from the carrier,
// its lane preferences and the load's lane in one expression, and the reads that apply it.

import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/** The rows the guard reads, as the caller's query names them (aliases, or table references). */
export interface GuardedRows {
  carrier: SQLWrapper;
  load: SQLWrapper;
}

/**
 * THE contact guard, as one SQL expression over a `carriers` row and a `loads` row the caller names
 * (`rows`; the expression's own aliases are `guard_`-prefixed, so they hide none of the caller's): null when the carrier may be contacted about the load, else `reason` or, for a lane
 * block, `reason:lane_preference_id`. A carrier is refused when it asked not to be contacted, is
 * disabled, failed compliance (BLOCKED) or is high risk, has insurance that expired, or holds an active restricted
 * (`dnu` or type `restricted`) or `admin_disabled` preference on the load's lane: the lane's states
 * equal the load's first pickup and last drop-off states, and its cities and equipment, when the
 * lane names them, match too. Every path that starts contact (outreaches, calls, tracking prompts,
 * the agent's carrier selection) goes through this one expression.
 */
export function refusalSql(organizationId: string | SQL, rows: GuardedRows): SQL {
  const { carrier: c, load: ld } = rows;
  return sql`CASE
    WHEN ${c}.stop_contact_requested_at IS NOT NULL THEN 'stop_contact_requested'
    WHEN NOT ${c}.is_active THEN 'inactive'
    WHEN ${c}.compliance_status = 'BLOCKED' THEN 'compliance_blocked'
    WHEN ${c}.risk_level = 'high' THEN 'risk_high'
    WHEN ${c}.insurance_expiration < envoy_now() THEN 'insurance_expired'
    ELSE (
      SELECT CASE WHEN guard_lp.preference_type = 'admin_disabled' THEN 'admin_disabled_on_lane'
                  ELSE 'restricted_on_lane' END || ':' || guard_lp.id
      FROM lane_preferences guard_lp
      JOIN lanes guard_lane ON guard_lane.id = guard_lp.lane_id
      WHERE guard_lp.organization_id = ${organizationId}
        AND guard_lp.carrier_id = ${c}.id
        AND guard_lp.is_active
        AND (guard_lp.dnu OR guard_lp.preference_type IN ('restricted', 'admin_disabled'))
        AND guard_lane.origin_state = ${ld}.origin_state
        AND guard_lane.destination_state = ${ld}.destination_state
        AND (guard_lane.origin_city IS NULL OR lower(guard_lane.origin_city) = lower(${ld}.origin_city))
        AND (guard_lane.destination_city IS NULL
             OR lower(guard_lane.destination_city) = lower(${ld}.destination_city))
        AND (guard_lane.equipment_type IS NULL OR guard_lane.equipment_type = ${ld}.equipment_type)
      ORDER BY (guard_lp.preference_type = 'admin_disabled') DESC, guard_lp.created_at
      LIMIT 1)
  END`;
}

/** A carrier as the guard saw it: `refusal` is refusalSql's value (null when it may be contacted). */
export type CarrierRefusalRow = {
  carrier_id: string;
  name: string;
  refusal: string | null;
  insurance_expiration: string | null;
};

/**
 * The guard for any number of carriers and one load, in one statement; carriers not in the
 * organization are left out.
 */
export async function carrierRefusalRows(
  db: DbOrTx,
  organizationId: string,
  carrierIds: string[],
  loadId: string,
): Promise<CarrierRefusalRow[]> {
  const result = await db.execute<CarrierRefusalRow>(sql`
    SELECT c.id AS carrier_id, c.name,
           ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('ld') })} AS refusal,
           c.insurance_expiration::text AS insurance_expiration
    FROM carriers c
    LEFT JOIN loads ld ON ld.organization_id = ${organizationId} AND ld.id = ${loadId}
    WHERE c.organization_id = ${organizationId}
      AND c.id = ANY(${sql.param(carrierIds)}::text[])`);
  return result.rows;
}

/** One load as the offer gate reads it for a carrier: the guard's refusal and the vetting facts. */
export type LoadGateRow = {
  load_id: string;
  name: string;
  refusal: string | null;
  insurance_expiration: string | null;
  compliance_status: string;
  risk_level: string | null;
};

/**
 * The guard for one carrier and any number of loads, in one statement, with the carrier's vetting
 * facts; loads not in the organization are left out, and so is every load of an unknown carrier.
 */
export async function loadGateRows(
  db: DbOrTx,
  organizationId: string,
  carrierId: string,
  loadIds: readonly string[],
): Promise<LoadGateRow[]> {
  const rows = await db.execute<LoadGateRow>(sql`
    SELECT ld.id AS load_id, c.name, c.compliance_status, c.risk_level,
           ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('ld') })} AS refusal,
           c.insurance_expiration::text AS insurance_expiration
    FROM carriers c
    JOIN loads ld ON ld.organization_id = ${organizationId} AND ld.id = ANY(${sql.param([...loadIds])}::text[])
    WHERE c.organization_id = ${organizationId} AND c.id = ${carrierId}`);
  return rows.rows;
}
