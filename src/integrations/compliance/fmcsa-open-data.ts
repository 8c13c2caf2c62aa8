import { z } from 'zod';
import { defined } from '../../lib/defined.js';
import type { CensusContact, LiabilityInsurance, SharedContact } from './compliance-provider.js';
import {
  censusContactOf,
  insuranceRow,
  liabilityOf,
  type OutOfServiceOrder,
  oosRow,
  sharedContactsOf,
  sharedContactWhere,
  standingOrder,
  toIsoDate,
} from './open-data-signals.js';
import type { PacedJsonClient } from './paced-json-client.js';

export { toIsoDate } from './open-data-signals.js';

/**
 * The dates and the phone QCMobile does not give, from FMCSA's datasets on the DOT open-data
 * portal (data.transportation.gov), read through its documented query API (Socrata SODA:
 * `GET /resource/<dataset id>.json?$where=...`, an array of rows, every value a string, empty
 * values left out):
 *
 * - the Company Census File (`az4n-8mr2`): `phone`, and `add_date`, when the USDOT number was
 *   registered;
 * - AuthHist, operating-authority history (`9mw4-x3tu`): one row per authority action, with
 *   `mod_col_1` (the authority type), `original_action_desc` (`GRANTED`, ...), `orig_served_date`
 *   and, once it ended, `disp_action_desc`. Its `dot_number` is zero-padded to eight digits.
 * - ActPendInsur, the active and pending insurance filings of the licensing and insurance (L&I)
 *   data: one row per policy, `ins_type_desc` (`BIPD/Primary`, ...), `max_cov_amount` in thousands
 *   of dollars, `cancl_effective_date` when a cancellation is pending;
 * - the out-of-service orders: one row per order, `oos_date`, `oos_reason`, `oos_rescind_date` (empty while
 *   the order stands) and `status` (the USDOT number's, not the order's).
 *
 * The census is also asked which other USDOT numbers file the same phone, e-mail or address (the
 * shared-contact signal), with one SoQL query.
 */
export interface OpenDataOptions {
  baseUrl: string;
  censusDataset: string;
  authorityHistoryDataset: string;
  insuranceDataset: string;
  outOfServiceDataset: string;
}

export interface OpenDataFacts {
  phone: string | null;
  registered_at: string | null;
  authority_granted_at: string | null;
  census: CensusContact | null;
  liability: LiabilityInsurance | null;
  out_of_service: OutOfServiceOrder | null;
  shared_with: SharedContact[] | null;
  raw: { census: unknown; authority_history: unknown; insurance: unknown; out_of_service: unknown };
}

export type OpenDataAnswer = { ok: true; facts: OpenDataFacts } | { ok: false; error: string };

const text = z.union([z.string(), z.number()]).transform(String);
export const censusRow = z.looseObject({
  dot_number: text.optional(),
  phone: text.optional(),
  add_date: text.optional(),
  email_address: text.optional(),
  phy_street: text.optional(),
  phy_city: text.optional(),
  phy_state: text.optional(),
  phy_zip: text.optional(),
  mcs150_date: text.optional(),
  power_units: text.optional(),
});
const authorityRow = z.looseObject({
  mod_col_1: text.optional(),
  original_action_desc: text.optional(),
  orig_served_date: text.optional(),
  disp_action_desc: text.optional(),
});

export class FmcsaOpenData {
  constructor(
    private readonly client: PacedJsonClient,
    private readonly options: OpenDataOptions,
  ) {}

  async factsFor(dot: string, signal: AbortSignal): Promise<OpenDataAnswer> {
    const both = `dot_number in ('${dot.padStart(8, '0')}', '${dot}')`;
    const o = this.options;
    const [census, history, insurance, orders] = await Promise.all([
      this.rows(o.censusDataset, `dot_number = '${dot}'`, 5, censusRow, signal),
      this.rows(o.authorityHistoryDataset, both, 500, authorityRow, signal),
      this.rows(o.insuranceDataset, both, 100, insuranceRow, signal),
      this.rows(o.outOfServiceDataset, `dot_number = '${dot}'`, 50, oosRow, signal),
    ]);
    if (!census.ok) return census;
    if (!history.ok) return history;
    if (!insurance.ok) return insurance;
    if (!orders.ok) return orders;
    const row = census.rows[0];
    const contact = row ? censusContactOf(row) : null;
    const where = row ? sharedContactWhere(dot, row) : null;
    const shared = where ? await this.rows(o.censusDataset, where, 25, censusRow, signal) : null;
    if (shared && !shared.ok) return shared;
    return {
      ok: true,
      facts: {
        phone: row?.phone?.trim() || null,
        registered_at: toIsoDate(row?.add_date),
        authority_granted_at: standingGrantDate(history.rows),
        census: contact,
        liability: liabilityOf(insurance.rows),
        out_of_service: standingOrder(orders.rows),
        shared_with: row && shared ? sharedContactsOf(row, shared.rows) : row ? [] : null,
        raw: {
          census: census.rows,
          authority_history: history.rows,
          insurance: insurance.rows,
          out_of_service: orders.rows,
        },
      },
    };
  }

  private async rows<T extends z.ZodType>(
    dataset: string,
    where: string,
    limit: number,
    row: T,
    signal: AbortSignal,
  ): Promise<{ ok: true; rows: z.output<T>[] } | { ok: false; error: string }> {
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}/resource/${dataset}.json`);
    url.searchParams.set('$where', where);
    url.searchParams.set('$limit', String(limit));
    const answer = await this.client.get(url, signal);
    if (!answer.ok) return answer;
    const parsed = z.array(row).safeParse(answer.body);
    if (!parsed.success) {
      return { ok: false, error: `FMCSA open data GET ${url.pathname} answered an unexpected shape` };
    }
    return { ok: true, rows: parsed.data };
  }
}

/**
 * The grant date of the motor-carrier authority standing now: the earliest grant (or
 * reinstatement) without a later disposition; when every grant has one, the latest grant. Broker
 * and freight-forwarder authority is not hauling authority and is left out.
 */
function standingGrantDate(rows: z.output<typeof authorityRow>[]): string | null {
  const grants = rows
    .filter(
      (r) =>
        /GRANT|REINSTAT/i.test(r.original_action_desc ?? '') && !/BROKER|FORWARDER/i.test(r.mod_col_1 ?? ''),
    )
    .map((r) => ({ at: toIsoDate(r.orig_served_date), standing: !r.disp_action_desc?.trim() }))
    .filter((g): g is { at: string; standing: boolean } => g.at !== null)
    .sort((a, b) => a.at.localeCompare(b.at));
  const standing = grants.filter((g) => g.standing);
  if (standing.length) return defined(standing[0], 'standing[0]').at;
  return grants.at(-1)?.at ?? null;
}
