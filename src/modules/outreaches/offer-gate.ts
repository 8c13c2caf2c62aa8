import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { passesVetting, readVettingPolicy } from '../carriers/index.js';
import { loadGateRows } from '../read-side/index.js';
import { type ContactRefusal, type RefusalReason, refusalMessage } from './contact-guard.js';

/**
 * What the gate says of a carrier's words about one load, before any of them becomes an offer:
 * `open`, `refused` by the contact guard (its reason code), or `held` by strict mode (the carrier
 * has not passed vetting: its quote is kept for a rep and no rate is discussed).
 */
export type GateVerdict =
  | { kind: 'open' }
  | { kind: 'refused'; reason: RefusalReason; message: string }
  | { kind: 'held'; reason: 'vetting_pending' };

export type GateReason = RefusalReason | 'vetting_pending';

/**
 * THE gate of every channel (an e-mail or WhatsApp reply, a voice tool, an offer released after
 * vetting): the same checks in the same order with the same reason codes. First the contact guard
 * (stop requested, disabled, BLOCKED, high risk, insurance expired, restricted or disabled on the
 * load's lane), then strict mode. One statement for all the loads of a conversation; a load not in
 * the organization is left out, an unknown carrier refuses nothing (there is no carrier to hold).
 */
export async function offerGate(
  db: DbOrTx,
  scope: OrgScope,
  carrierId: string,
  loadIds: readonly string[],
): Promise<Map<string, GateVerdict>> {
  const out = new Map<string, GateVerdict>();
  if (loadIds.length === 0) return out;
  let strict: boolean | null = null;
  for (const r of await loadGateRows(db, scope.organizationId, carrierId, loadIds)) {
    if (r.refusal) {
      // refusalSql writes `<reason>` or `<reason>:<lane preference id>`, from RefusalReason's values.
      const [reason, lanePreferenceId] = r.refusal.split(':') as [RefusalReason, string | undefined];
      const refusal: ContactRefusal = {
        reason,
        message: refusalMessage({ carrier_id: carrierId, ...r }, reason, r.load_id, lanePreferenceId),
      };
      out.set(r.load_id, { kind: 'refused', ...refusal });
      continue;
    }
    if (!passesVetting(r)) {
      strict ??= (await readVettingPolicy(db, scope.organizationId)).strict_mode;
      if (strict) {
        out.set(r.load_id, { kind: 'held', reason: 'vetting_pending' });
        continue;
      }
    }
    out.set(r.load_id, { kind: 'open' });
  }
  return out;
}

/** The verdict's reason code, or null when the gate is open. */
export const gateReason = (v: GateVerdict | undefined): GateReason | null =>
  !v || v.kind === 'open' ? null : v.reason;
