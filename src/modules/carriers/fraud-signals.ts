import { toE164 } from '../../domain/phone.js';
import type { CensusRecord } from '../../integrations/compliance/compliance-provider.js';
import type { ComplianceStatus, ContactSnapshot, FraudSignal, RiskLevel } from './carriers-tables.js';
import type { SignalCode, VettingPolicy } from './vetting-policy.js';

const DAY_MS = 86_400_000;

/** Mailbox providers anyone can sign up to: a carrier's company mail is not at one of these. */
const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mail.com',
  'gmx.com',
  'proton.me',
  'protonmail.com',
  'zoho.com',
  'yandex.com',
]);

const domainOf = (email: string | null | undefined) => email?.split('@')[1]?.trim().toLowerCase() ?? null;
export const isFreeMail = (email: string | null | undefined) => FREE_MAIL.has(domainOf(email) ?? '');

/** What a check knows besides the registry's record. */
export interface SignalInputs {
  carrier: { phone: string | null; email: string | null };
  record: CensusRecord | null;
  /** Another carrier of the organization, with a different MC/DOT, holding this one's contact. */
  orgShared: string | null;
  /** The contact snapshots of earlier checks, newest first, with when each was taken. */
  history: { snapshot: ContactSnapshot; at: Date }[];
  policy: VettingPolicy;
  now: Date;
}

/** The census contact of a record, as a check keeps it. */
export function snapshotOf(record: CensusRecord | null): ContactSnapshot | null {
  if (!record?.census && !record?.phone) return null;
  return {
    phone: record.phone ? toE164(record.phone) : null,
    email: record.census?.email ?? null,
    address: record.census?.address ?? null,
  };
}

const sameSnapshot = (a: ContactSnapshot, b: ContactSnapshot) =>
  a.phone === b.phone && a.email === b.email && a.address === b.address;

/** Every fraud signal the facts show, each with the action the organization's policy gives it. */
export function signalsOf(i: SignalInputs): FraudSignal[] {
  const out: FraudSignal[] = [];
  const add = (code: SignalCode, evidence: string) => {
    const action =
      code === 'authority_inactive' || code === 'out_of_service' ? 'block' : i.policy.signals[code];
    out.push({ code, action, evidence });
  };
  if (i.orgShared) add('shared_contact', i.orgShared);
  const r = i.record;
  if (!r) return out;
  if (r.shared_with?.length) {
    const list = r.shared_with.slice(0, 5).map((s) => `DOT ${s.dot_number} (${s.via})`);
    add('shared_contact', `the census lists the same contact for ${list.join(', ')}`);
  }
  if (!r.authorized_for_hire || !r.allowed_to_operate)
    add(
      'authority_inactive',
      r.allowed_to_operate ? 'no active for-hire authority' : 'not allowed to operate',
    );
  if (r.out_of_service) add('out_of_service', r.out_of_service_detail ?? 'under an out-of-service order');
  const census = r.census;
  if (census?.mcs150_date) {
    const months = (i.now.getTime() - Date.parse(census.mcs150_date)) / (30.44 * DAY_MS);
    if (months > i.policy.census_max_age_months)
      add(
        'stale_census',
        `MCS-150 last updated ${census.mcs150_date}, over ${i.policy.census_max_age_months} months ago`,
      );
  }
  if (census?.power_units === 0) add('no_power_units', 'the census lists 0 power units');
  if (r.liability) {
    if (r.liability.amount_usd < i.policy.required_liability_usd)
      add(
        'insurance_below_required',
        `liability coverage on file $${r.liability.amount_usd.toLocaleString('en-US')}, required $${i.policy.required_liability_usd.toLocaleString('en-US')}`,
      );
    if (r.liability.cancellation_effective)
      add(
        'insurance_cancellation_pending',
        `liability policy cancellation effective ${r.liability.cancellation_effective}`,
      );
  }
  contactSignals(i, add);
  return out;
}

function contactSignals(i: SignalInputs, add: (code: SignalCode, evidence: string) => void) {
  const now = snapshotOf(i.record);
  if (!now) return;
  const carrierPhone = i.carrier.phone ? toE164(i.carrier.phone) : null;
  if (carrierPhone && now.phone && carrierPhone !== now.phone)
    add('contact_mismatch', `phone on file ${carrierPhone}, census phone ${now.phone}`);
  const email = i.carrier.email?.trim().toLowerCase() ?? null;
  if (email && now.email && email !== now.email)
    add('contact_mismatch', `e-mail on file ${email}, census e-mail ${now.email}`);
  if (email && isFreeMail(email) && now.email && !isFreeMail(now.email))
    add('free_mail', `e-mail on file ${email} is a free-mail address; the census has ${domainOf(now.email)}`);
  // The change: the newest earlier snapshot that differs; it changed at the next check after it.
  let since: Date = i.now;
  for (const h of i.history) {
    if (!sameSnapshot(h.snapshot, now)) {
      const days = Math.floor((i.now.getTime() - since.getTime()) / DAY_MS);
      if (days <= i.policy.contact_change_days)
        add(
          'contact_changed_recently',
          `census contact changed within ${days} days: ${describeChange(h.snapshot, now)}`,
        );
      return;
    }
    since = h.at;
  }
}

function describeChange(before: ContactSnapshot, after: ContactSnapshot) {
  const parts: string[] = [];
  for (const k of ['phone', 'email', 'address'] as const)
    if (before[k] !== after[k]) parts.push(`${k} ${before[k] ?? 'none'} -> ${after[k] ?? 'none'}`);
  return parts.join(', ');
}

/** high when blocked, medium when unverified or sent to review, else low. */
export function riskOf(status: ComplianceStatus, signals: FraudSignal[]): RiskLevel {
  if (status === 'BLOCKED' || signals.some((s) => s.action === 'block')) return 'high';
  if (status === 'UNVERIFIED' || signals.some((s) => s.action === 'review')) return 'medium';
  return 'low';
}
