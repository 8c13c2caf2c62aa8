import type { LookupResult } from '../../integrations/compliance/compliance-provider.js';
import type { ComplianceStatus, FraudSignal } from './carriers-tables.js';

export interface Verdict {
  status: ComplianceStatus;
  /** Machine-readable rule codes, e.g. `new_authority`, `no_answer`, `authority_age_unknown`. */
  reasons: string[];
  /** The facts behind the reasons, in words (dates, what failed), or null. */
  detail: string | null;
}

const DAY_MS = 86_400_000;

const ageInDays = (date: string, now: Date) => Math.floor((now.getTime() - Date.parse(date)) / DAY_MS);

/**
 * docs/carrier-vetting.md. BLOCKED when not authorized for hire, out of service, without insurance on file, or on a fraud
 * signal the organization's policy blocks; PASSED when active and insured; UNVERIFIED without MC/DOT
 * or an answer (`no_data` when the provider has nothing to check with). Reasons are
 * machine-readable codes; signals sent to review do not change the status (they raise the risk).
 *
 * The authority-age rule (`new_authority`) reads the grant date when the provider knows it, else
 * the USDOT registration date (authority is never older than that); with neither, the carrier is
 * UNVERIFIED with `authority_age_unknown` rather than passed.
 */
export function verdictOf(
  carrier: { mc_number: string | null; dot_number: string | null },
  lookup: LookupResult | null,
  signals: FraudSignal[],
  minAuthorityDays: number,
  now: Date,
): Verdict {
  const blocking: string[] = [];
  const unverified: string[] = [];
  const details: string[] = [];
  for (const signal of signals) {
    if (signal.action !== 'block' || signal.code === 'authority_inactive') continue;
    blocking.push(signal.code);
    details.push(signal.evidence);
  }

  if (!carrier.mc_number && !carrier.dot_number) {
    unverified.push('no_mc_or_dot');
  } else if (lookup?.status === 'no_data') {
    unverified.push('no_data');
    details.push(lookup.error);
  } else if (!lookup || lookup.status === 'unavailable') {
    unverified.push('no_answer');
    if (lookup) details.push(lookup.error);
  } else if (lookup.status === 'not_found') {
    if (lookup.authoritative) blocking.push('not_registered');
    else unverified.push('not_in_registry');
  } else {
    const r = lookup.record;
    if (carrier.dot_number && r.dot_number && carrier.dot_number !== r.dot_number) {
      blocking.push('mc_dot_mismatch');
      details.push(`MC ${carrier.mc_number} belongs to DOT ${r.dot_number}, not ${carrier.dot_number}`);
    }
    if (carrier.mc_number && r.mc_number && carrier.mc_number !== r.mc_number) {
      blocking.push('mc_dot_mismatch');
      details.push(`MC ${carrier.mc_number} is not a docket of DOT ${r.dot_number}`);
    }
    if (!r.allowed_to_operate) blocking.push('not_allowed_to_operate');
    if (r.out_of_service) {
      blocking.push('out_of_service');
      if (r.out_of_service_detail) details.push(r.out_of_service_detail);
    }
    if (!r.authorized_for_hire) blocking.push('not_authorized_for_hire');
    if (r.insurance_on_file === false) blocking.push('no_insurance_on_file');
    if (r.insurance_on_file === null) unverified.push('insurance_unknown');
    if (r.authorized_for_hire && minAuthorityDays > 0) {
      const granted = r.authority_granted_at;
      const registered = r.registered_at;
      if (granted && !Number.isNaN(Date.parse(granted))) {
        const days = ageInDays(granted, now);
        if (days < minAuthorityDays) {
          blocking.push('new_authority');
          details.push(
            `operating authority granted ${granted.slice(0, 10)}${r.authority_source ? ` (${r.authority_source})` : ''}, ${days} days ago; the minimum is ${minAuthorityDays} days`,
          );
        }
      } else if (registered && ageInDays(registered, now) < minAuthorityDays) {
        blocking.push('new_authority');
        details.push(
          `USDOT number registered ${registered} (FMCSA census), ${ageInDays(registered, now)} days ago, so its operating authority is younger; the minimum is ${minAuthorityDays} days`,
        );
      } else if (!r.incomplete) {
        unverified.push('authority_age_unknown');
        details.push('authority age unknown: no grant date on file');
      }
    }
    if (r.incomplete) {
      unverified.push('no_answer');
      details.push(r.incomplete);
    }
  }
  const reasons = [...new Set([...blocking, ...unverified])];
  const detail = details.length ? [...new Set(details)].join('; ').slice(0, 2000) : null;
  if (blocking.length) return { status: 'BLOCKED', reasons, detail };
  if (unverified.length) return { status: 'UNVERIFIED', reasons, detail };
  return { status: 'PASSED', reasons: [], detail };
}
