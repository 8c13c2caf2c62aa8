// The contact guard's verdicts as reasons and messages; its SQL is refusalSql, in read-side (it
// reads the carrier, its lane preferences and the load).

import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { type CarrierRefusalRow, carrierRefusalRows } from '../read-side/index.js';

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
  for (const r of await carrierRefusalRows(db, scope.organizationId, carrierIds, loadId)) {
    if (!r.refusal) continue;
    // refusalSql writes refusal as `<reason>` or `<reason>:<lane preference id>`, from RefusalReason's values.
    const [reason, lanePreferenceId] = r.refusal.split(':') as [RefusalReason, string | undefined];
    out.set(r.carrier_id, { reason, message: refusalMessage(r, reason, loadId, lanePreferenceId) });
  }
  return out;
}

export function refusalMessage(
  r: Pick<CarrierRefusalRow, 'carrier_id' | 'name' | 'insurance_expiration'>,
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
