import type { LookupResult } from '../../integrations/compliance/compliance-provider.js';
import type { ComplianceStatus } from './carriers-tables.js';

export interface Verdict {
  status: ComplianceStatus;
  reasons: string[];
}

export interface FraudSignals {
  /** Another carrier of the organization with a different MC/DOT uses this phone or e-mail. */
  sharedContact: boolean;
}

const DAY_MS = 86_400_000;

/**
 * DESIGN.md section 5: BLOCKED when not authorized for hire, out of service, without insurance on
 * file, or on any fraud signal; PASSED when active and insured; UNVERIFIED without MC/DOT or an
 * answer. Reasons are machine-readable codes.
 */
export function verdictOf(
  carrier: { mc_number: string | null; dot_number: string | null },
  lookup: LookupResult | null,
  fraud: FraudSignals,
  minAuthorityDays: number,
  now = new Date(),
): Verdict {
  const blocking: string[] = [];
  const unverified: string[] = [];
  if (fraud.sharedContact) blocking.push('shared_contact');

  if (!carrier.mc_number && !carrier.dot_number) {
    unverified.push('no_mc_or_dot');
  } else if (!lookup || lookup.status === 'unavailable') {
    unverified.push('no_answer');
  } else if (lookup.status === 'not_found') {
    if (lookup.authoritative) blocking.push('not_registered');
    else unverified.push('not_in_registry');
  } else {
    const r = lookup.record;
    if (carrier.dot_number && r.dot_number && carrier.dot_number !== r.dot_number)
      blocking.push('mc_dot_mismatch');
    if (carrier.mc_number && r.mc_number && carrier.mc_number !== r.mc_number)
      blocking.push('mc_dot_mismatch');
    if (!r.allowed_to_operate) blocking.push('not_allowed_to_operate');
    if (r.out_of_service) blocking.push('out_of_service');
    if (!r.authorized_for_hire) blocking.push('not_authorized_for_hire');
    if (r.insurance_on_file === false) blocking.push('no_insurance_on_file');
    if (r.insurance_on_file === null) unverified.push('insurance_unknown');
    if (r.authority_granted_at) {
      const ageDays = (now.getTime() - Date.parse(r.authority_granted_at)) / DAY_MS;
      if (ageDays < minAuthorityDays) blocking.push('new_authority');
    }
  }
  const reasons = [...new Set([...blocking, ...unverified])];
  if (blocking.length) return { status: 'BLOCKED', reasons };
  if (unverified.length) return { status: 'UNVERIFIED', reasons };
  return { status: 'PASSED', reasons: [] };
}
