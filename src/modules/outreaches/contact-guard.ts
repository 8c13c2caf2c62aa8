import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';

/** Why a carrier must not be contacted about a load, strongest reason first. */
export type RefusalReason =
  | 'stop_contact_requested'
  | 'inactive'
  | 'compliance_blocked'
  | 'risk_high'
  | 'insurance_expired'
  | 'restricted_on_lane'
  | 'admin_disabled_on_lane';

export interface ContactRefusal {
  reason: RefusalReason;
  message: string;
}

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

type Row = { carrier_id: string; name: string; refusal: string | null; insurance_expiration: string | null };

/**
 * The guard for any number of carriers and one load, in one statement; carriers not in the
 * organization are left out.
 */
export async function contactRefusals(
  db: DbOrTx,
  scope: OrgScope,
  carrierIds: string[],
  loadId: string,
): Promise<Map<string, ContactRefusal>> {
  const out = new Map<string, ContactRefusal>();
  if (carrierIds.length === 0) return out;
  const result = await db.execute<Row>(sql`
    SELECT c.id AS carrier_id, c.name,
           ${refusalSql(scope.organizationId, { carrier: sql.identifier('c'), load: sql.identifier('ld') })} AS refusal,
           c.insurance_expiration::text AS insurance_expiration
    FROM carriers c
    LEFT JOIN loads ld ON ld.organization_id = ${scope.organizationId} AND ld.id = ${loadId}
    WHERE c.organization_id = ${scope.organizationId}
      AND c.id = ANY(${sql.param(carrierIds)}::text[])`);
  for (const r of result.rows) {
    if (!r.refusal) continue;
    // The SQL above writes refusal as `<reason>` or `<reason>:<lane preference id>`, from RefusalReason's values.
    const [reason, lanePreferenceId] = r.refusal.split(':') as [RefusalReason, string | undefined];
    out.set(r.carrier_id, { reason, message: refusalMessage(r, reason, loadId, lanePreferenceId) });
  }
  return out;
}

export function refusalMessage(
  r: Pick<Row, 'carrier_id' | 'name' | 'insurance_expiration'>,
  reason: RefusalReason,
  loadId: string,
  lanePreferenceId?: string,
) {
  const who = `Carrier '${r.carrier_id}' (${r.name})`;
  switch (reason) {
    case 'stop_contact_requested':
      return `${who} asked not to be contacted`;
    case 'inactive':
      return `${who} is disabled`;
    case 'compliance_blocked':
      return `${who} is BLOCKED by its compliance check`;
    case 'risk_high':
      return `${who} is high risk (its fraud signals)`;
    case 'insurance_expired':
      return `${who} has insurance that expired (${r.insurance_expiration})`;
    case 'admin_disabled_on_lane':
      return `${who} is disabled on the lane of load '${loadId}' (lane preference '${lanePreferenceId}')`;
    case 'restricted_on_lane':
      return `${who} is restricted (do not use) on the lane of load '${loadId}' (lane preference '${lanePreferenceId}')`;
  }
}

/** The guard for one carrier: why it must not be contacted about the load, or null. */
export async function contactRefusal(
  db: DbOrTx,
  scope: OrgScope,
  carrierId: string,
  loadId: string,
): Promise<ContactRefusal | null> {
  return (await contactRefusals(db, scope, [carrierId], loadId)).get(carrierId) ?? null;
}
