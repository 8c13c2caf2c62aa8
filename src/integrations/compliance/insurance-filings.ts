import { z } from 'zod';
import type { LiabilityInsurance } from './compliance-provider.js';
import { text, toIsoDate } from './open-data-signals.js';

// Liability insurance on file, from the licensing and insurance datasets of the DOT open-data
// portal. FMCSA moved registration into its Motus system on 2026-05-14; since then filings land in
// the Motus datasets, and the older ActPendInsur file no longer changes. Neither is whole (filings
// made before the move were not all carried across), so both are read: Motus first, the older
// file for what Motus lacks. docs/carrier-vetting.md explains the rules in prose.

/** Motus Insur: one row per filing transaction (a policy can appear several times); no cancellation date. */
export const motusFilingRow = z.looseObject({
  usdot_number: text.optional(),
  docket_number: text.optional(),
  ins_form_code: text.optional(),
  ins_type_code: text.optional(),
  ins_class_code: text.optional(),
  max_cov_amount: text.optional(),
  underl_lim_amount: text.optional(),
  policy_no: text.optional(),
  effective_date: text.optional(),
  insurance_company_name: text.optional(),
  trans_date: text.optional(),
});

/** Motus InsHist: filings that ended or will end (`filing_status_reason` CANCEL, TERM/REPL, NAMECHG). */
export const motusHistoryRow = z.looseObject({
  usdot_number: text.optional(),
  ins_form_code: text.optional(),
  ins_type_code: text.optional(),
  ins_type_desc: text.optional(),
  filing_status_reason: text.optional(),
  policy_no: text.optional(),
  effective_date: text.optional(),
  cancl_effective_date: text.optional(),
  max_cov_amount: text.optional(),
  insurance_company_name: text.optional(),
});

/** ActPendInsur (before Motus): `mod_col_1` names the coverage (`BIPD/Primary`), amounts in thousands. */
export const legacyFilingRow = z.looseObject({
  docket_number: text.optional(),
  dot_number: text.optional(),
  ins_form_code: text.optional(),
  mod_col_1: text.optional(),
  name_company: text.optional(),
  policy_no: text.optional(),
  trans_date: text.optional(),
  underl_lim_amount: text.optional(),
  max_cov_amount: text.optional(),
  effective_date: text.optional(),
  cancl_effective_date: text.optional(),
});

export type MotusFiling = z.output<typeof motusFilingRow>;
export type MotusHistory = z.output<typeof motusHistoryRow>;
export type LegacyFiling = z.output<typeof legacyFilingRow>;

export interface InsuranceRows {
  motus: MotusFiling[];
  history: MotusHistory[];
  /** null when the older file is not read (turned off in the settings). */
  legacy: LegacyFiling[] | null;
}

interface LiveFiling {
  key: string;
  effective: string;
  amountUsd: number;
  /** A cancellation dated after today. */
  endsOn: string | null;
}

/** The BMC-91 and BMC-91X insurance forms and the BMC-82 surety bond are liability (BI&PD) filings. */
const LIABILITY_FORM = /^(BMC-?)?(91X?|82)$/i;
/** Motus's type code 1 is BI&PD; its other codes are cargo (2), bond (3) and trust fund (4). */
const isMotusLiability = (r: { ins_type_code?: string; ins_form_code?: string }) =>
  r.ins_type_code?.trim() === '1' || LIABILITY_FORM.test(r.ins_form_code?.trim() ?? '');
const isLegacyLiability = (r: LegacyFiling) =>
  /^BIPD/i.test(r.mod_col_1?.trim() ?? '') || LIABILITY_FORM.test(r.ins_form_code?.trim() ?? '');

/** A filing's identity across the files, which write policy numbers differently: policy and start date. */
const filingKey = (policy: string | undefined, effective: string | undefined) =>
  `${(policy ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '')}|${toIsoDate(effective) ?? ''}`;

/**
 * A coverage amount in dollars. The older file writes thousands ("750" is $750,000); Motus writes
 * dollars. No liability filing is below $10,000, so a smaller number can only be thousands.
 */
export function coverageUsd(amount: string | undefined, thousands: boolean): number {
  const n = Number(amount ?? 0);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return thousands || n < 10_000 ? Math.round(n * 1000) : Math.round(n);
}

/** What Motus's history says of each filing it knows: ended on or before today, or ending later. */
function endings(history: MotusHistory[], today: string) {
  const ended = new Set<string>();
  const ending = new Map<string, string>();
  for (const h of history.filter(isMotusLiability)) {
    const key = filingKey(h.policy_no, h.effective_date);
    const cancel = toIsoDate(h.cancl_effective_date);
    const reason = h.filing_status_reason?.trim().toUpperCase() ?? '';
    // A name change ends nothing. A cancellation without a date came across from before Motus: ended.
    if (reason === 'NAMECHG') continue;
    if (cancel === null ? reason === 'CANCEL' : cancel <= today) ended.add(key);
    // A replacement (TERM/REPL) is a renewal, not a lapse: only a cancellation is reported as ending.
    else if (cancel !== null && reason === 'CANCEL') ending.set(key, cancel);
  }
  return { ended, ending };
}

function motusLive(rows: InsuranceRows, today: string) {
  const { ended, ending } = endings(rows.history, today);
  const live = new Map<string, LiveFiling>();
  for (const r of rows.motus.filter(isMotusLiability)) {
    const key = filingKey(r.policy_no, r.effective_date);
    if (ended.has(key) || live.has(key)) continue;
    live.set(key, {
      key,
      effective: toIsoDate(r.effective_date) ?? '',
      amountUsd: coverageUsd(r.max_cov_amount, false),
      endsOn: ending.get(key) ?? null,
    });
  }
  return { live, ended, ending };
}

/**
 * The older file's liability filings that Motus lacks: not ended by their own cancellation date
 * or by a cancellation Motus has recorded since, and not superseded by a Motus filing that starts
 * the same day or later.
 */
function legacyLive(legacy: LegacyFiling[], motus: ReturnType<typeof motusLive>, today: string) {
  const motusStarts = [...motus.live.values()].map((f) => f.effective);
  const out: LiveFiling[] = [];
  for (const r of legacy.filter(isLegacyLiability)) {
    const key = filingKey(r.policy_no, r.effective_date);
    const effective = toIsoDate(r.effective_date) ?? '';
    const cancel = toIsoDate(r.cancl_effective_date);
    if (motus.live.has(key) || motus.ended.has(key)) continue;
    if (cancel !== null && cancel <= today) continue;
    if (motusStarts.some((start) => start >= effective)) continue;
    const endsOn = motus.ending.get(key) ?? cancel;
    out.push({ key, effective, amountUsd: coverageUsd(r.max_cov_amount, true), endsOn });
  }
  return out;
}

/**
 * The liability (BI&PD) coverage on file today: the largest policy limit in dollars (0: none), and
 * the earliest cancellation still to come, reported only when no other filing on file would
 * still stand after it (a carrier that has already replaced its policy is not about to lapse).
 */
export function liabilityOf(rows: InsuranceRows, today: string): LiabilityInsurance {
  const motus = motusLive(rows, today);
  const filings = [...motus.live.values(), ...(rows.legacy ? legacyLive(rows.legacy, motus, today) : [])];
  const replaced = filings.some((f) => f.endsOn === null);
  const cancellations = filings
    .map((f) => f.endsOn)
    .filter((d): d is string => d !== null)
    .sort();
  return {
    amount_usd: filings.reduce((max, f) => Math.max(max, f.amountUsd), 0),
    cancellation_effective: replaced ? null : (cancellations[0] ?? null),
  };
}
