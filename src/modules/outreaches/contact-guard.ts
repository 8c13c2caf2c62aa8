import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../http/authentication.js';

/** Why a carrier must not be contacted about a load, strongest reason first. */
export type RefusalReason =
  | 'stop_contact_requested'
  | 'inactive'
  | 'compliance_blocked'
  | 'restricted_on_lane'
  | 'admin_disabled_on_lane';

export interface ContactRefusal {
  reason: RefusalReason;
  message: string;
}

type Row = {
  carrier_id: string;
  name: string;
  is_active: boolean;
  compliance_status: string;
  stop_contact_requested_at: string | null;
  lane_block: 'restricted' | 'admin_disabled' | null;
  lane_preference_id: string | null;
};

/**
 * THE contact guard: every path that starts contact with a carrier about a load (outreaches, calls,
 * tracking prompts) asks it first. A carrier is refused when it asked not to be contacted, is
 * disabled, failed compliance (BLOCKED), or holds an active restricted (`dnu` or type `restricted`)
 * or `admin_disabled` preference on the load's lane: the lane's states equal the load's first
 * pickup and last drop-off states, and its cities and equipment, when the lane names them, match
 * too. One statement for any number of carriers; carriers not in the organization are left out.
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
    SELECT c.id AS carrier_id, c.name, c.is_active, c.compliance_status,
           c.stop_contact_requested_at::text AS stop_contact_requested_at,
           block.kind AS lane_block, block.id AS lane_preference_id
    FROM carriers c
    LEFT JOIN loads ld ON ld.organization_id = ${scope.organizationId} AND ld.id = ${loadId}
    LEFT JOIN LATERAL (
      SELECT lp.id,
             CASE WHEN lp.preference_type = 'admin_disabled' THEN 'admin_disabled' ELSE 'restricted' END AS kind
      FROM lane_preferences lp
      JOIN lanes l ON l.id = lp.lane_id
      WHERE lp.organization_id = ${scope.organizationId}
        AND lp.carrier_id = c.id
        AND lp.is_active
        AND (lp.dnu OR lp.preference_type IN ('restricted', 'admin_disabled'))
        AND l.origin_state = ld.origin_state
        AND l.destination_state = ld.destination_state
        AND (l.origin_city IS NULL OR lower(l.origin_city) = lower(ld.origin_city))
        AND (l.destination_city IS NULL OR lower(l.destination_city) = lower(ld.destination_city))
        AND (l.equipment_type IS NULL OR l.equipment_type = ld.equipment_type)
      ORDER BY (lp.preference_type = 'admin_disabled') DESC, lp.created_at
      LIMIT 1
    ) block ON true
    WHERE c.organization_id = ${scope.organizationId}
      AND c.id = ANY(${sql.param(carrierIds)}::text[])`);
  for (const r of result.rows) {
    const who = `Carrier '${r.carrier_id}' (${r.name})`;
    const refusal: ContactRefusal | null = r.stop_contact_requested_at
      ? { reason: 'stop_contact_requested', message: `${who} asked not to be contacted` }
      : !r.is_active
        ? { reason: 'inactive', message: `${who} is disabled` }
        : r.compliance_status === 'BLOCKED'
          ? { reason: 'compliance_blocked', message: `${who} is BLOCKED by its compliance check` }
          : r.lane_block === 'admin_disabled'
            ? {
                reason: 'admin_disabled_on_lane',
                message: `${who} is disabled on the lane of load '${loadId}' (lane preference '${r.lane_preference_id}')`,
              }
            : r.lane_block === 'restricted'
              ? {
                  reason: 'restricted_on_lane',
                  message: `${who} is restricted (do not use) on the lane of load '${loadId}' (lane preference '${r.lane_preference_id}')`,
                }
              : null;
    if (refusal) out.set(r.carrier_id, refusal);
  }
  return out;
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
