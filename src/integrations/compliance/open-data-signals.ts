import { z } from 'zod';
import { defined } from '../../lib/defined.js';
import type { CensusContact, SharedContact } from './compliance-provider.js';

// The rows of the open-data datasets the fraud signals read, and what they say. Socrata answers
// every value as a string and leaves empty values out.

/** A dataset value: Socrata writes text, and a number where a column is numeric. */
export const text = z.union([z.string(), z.number()]).transform(String);

/** An out-of-service order. */
export const oosRow = z.looseObject({
  dot_number: text.optional(),
  legal_name: text.optional(),
  dba_name: text.optional(),
  oos_date: text.optional(),
  oos_reason: text.optional(),
  status: text.optional(),
  oos_rescind_date: text.optional(),
});

export interface OutOfServiceOrder {
  since: string | null;
  reason: string | null;
}

type CensusFields = {
  dot_number?: string | undefined;
  phone?: string | undefined;
  email_address?: string | undefined;
  phy_street?: string | undefined;
  phy_city?: string | undefined;
  phy_state?: string | undefined;
  phy_zip?: string | undefined;
  mcs150_date?: string | undefined;
  power_units?: string | undefined;
};

const clean = (v: string | undefined) => v?.trim().replace(/\s+/g, ' ') || null;
const phoneDigits = (v: string | undefined) => v?.replace(/\D/g, '').replace(/^1(?=\d{10}$)/, '') || null;

/** One upper-case line of the physical address, or null without a street. */
export function addressLine(r: CensusFields): string | null {
  const street = clean(r.phy_street);
  if (!street) return null;
  return [street, clean(r.phy_city), clean(r.phy_state), clean(r.phy_zip)?.slice(0, 5)]
    .filter(Boolean)
    .join(', ')
    .toUpperCase();
}

export function censusContactOf(r: CensusFields): CensusContact {
  const units = r.power_units === undefined ? null : Number(r.power_units);
  return {
    email: clean(r.email_address)?.toLowerCase() ?? null,
    address: addressLine(r),
    mcs150_date: toIsoDate(r.mcs150_date),
    power_units: units !== null && Number.isFinite(units) ? units : null,
  };
}

const quote = (v: string) => `'${v.replace(/'/g, "''")}'`;

/**
 * The SoQL condition for other census records with this record's phone, e-mail or street address
 * (street and ZIP), or null when the record has none of them.
 */
export function sharedContactWhere(dot: string, r: CensusFields): string | null {
  const parts: string[] = [];
  const phone = r.phone?.trim();
  if (phone) parts.push(`phone = ${quote(phone)}`);
  const email = clean(r.email_address);
  if (email) parts.push(`upper(email_address) = ${quote(email.toUpperCase())}`);
  const street = r.phy_street?.trim();
  const zip = r.phy_zip?.trim();
  if (street && zip) parts.push(`(phy_street = ${quote(street)} AND phy_zip = ${quote(zip)})`);
  if (parts.length === 0) return null;
  return `dot_number != ${quote(dot)} AND (${parts.join(' OR ')})`;
}

/** Which of `others` share what with `r` (each USDOT number once per kind). */
export function sharedContactsOf(r: CensusFields, others: CensusFields[]): SharedContact[] {
  const out = new Map<string, SharedContact>();
  const phone = phoneDigits(r.phone);
  const email = clean(r.email_address)?.toLowerCase();
  const address = addressLine(r);
  for (const o of others) {
    const dot = o.dot_number?.replace(/^0+/, '');
    if (!dot || dot === r.dot_number?.replace(/^0+/, '')) continue;
    const add = (via: SharedContact['via']) => out.set(`${dot}:${via}`, { dot_number: dot, via });
    if (phone && phoneDigits(o.phone) === phone) add('phone');
    if (email && clean(o.email_address)?.toLowerCase() === email) add('email');
    if (address && addressLine(o) === address) add('address');
  }
  return [...out.values()];
}

/**
 * The order in force: the latest not rescinded. An order is lifted on its rescind date (empty while
 * it stands; `status` describes the USDOT number, not the order), or when its status says so.
 */
export function standingOrder(rows: z.output<typeof oosRow>[], today: string): OutOfServiceOrder | null {
  const lifted = (r: z.output<typeof oosRow>) => {
    const rescinded = toIsoDate(r.oos_rescind_date);
    return (rescinded !== null && rescinded <= today) || /RESCIND|LIFTED/i.test(r.status ?? '');
  };
  const active = rows
    .filter((r) => !lifted(r))
    .map((r) => ({ since: toIsoDate(r.oos_date), reason: clean(r.oos_reason) }))
    .sort((a, b) => (b.since ?? '').localeCompare(a.since ?? ''));
  return active[0] ?? null;
}

/** `YYYY-MM-DD` from the forms these datasets use: `MM/DD/YYYY`, `YYYYMMDD`, ISO 8601. */
export function toIsoDate(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  const iso8601 = /^(\d{4}-\d{2}-\d{2})([T ].*)?$/.exec(v);
  const iso = us
    ? `${us[3]}-${defined(us[1], 'us[1]').padStart(2, '0')}-${defined(us[2], 'us[2]').padStart(2, '0')}`
    : compact
      ? `${compact[1]}-${compact[2]}-${compact[3]}`
      : (iso8601?.[1] ?? null);
  return iso && !Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ? iso : null;
}
