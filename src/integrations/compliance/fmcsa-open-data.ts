import { z } from 'zod';
import type { WallClock } from '../../lib/wall-clock.js';
import type { CensusContact, LiabilityInsurance, SharedContact } from './compliance-provider.js';
import { legacyFilingRow, liabilityOf, motusFilingRow, motusHistoryRow } from './insurance-filings.js';
import {
  censusContactOf,
  type OutOfServiceOrder,
  oosRow,
  sharedContactsOf,
  sharedContactWhere,
  standingOrder,
  text,
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
 * - operating-authority history, in two files: Motus AuthHist (`yu5v-wbh6`, since FMCSA's move to
 *   Motus on 2026-05-14: `op_auth_type`, `reason` such as `GRANTED`, `status_change_date`
 *   `YYYYMMDD`, keyed by `usdot_number`) and the older AuthHist (`9mw4-x3tu`, which stopped changing
 *   then: one row per authority action, `mod_col_1` the authority type, `original_action_desc`,
 *   `orig_served_date` and, once it ended, `disp_action_desc`; `dot_number` zero-padded);
 * - liability insurance, in three files (see insurance-filings.ts): Motus Insur (`c5y8-a4uz`),
 *   Motus InsHist (`3uet-3z4i`) and the older ActPendInsur (`qh9u-swkp`);
 * - the out-of-service orders: one row per order, `oos_date`, `oos_reason`, `oos_rescind_date` (empty while
 *   the order stands) and `status` (the USDOT number's, not the order's).
 *
 * The census is also asked which other USDOT numbers file the same phone, e-mail or address (the
 * shared-contact signal), with one SoQL query. A file set to null in the options is not read.
 */
export interface OpenDataOptions {
  baseUrl: string;
  censusDataset: string;
  authorityHistoryDataset: string;
  legacyAuthorityHistoryDataset: string | null;
  insuranceDataset: string;
  insuranceHistoryDataset: string;
  legacyInsuranceDataset: string | null;
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
  raw: {
    census: unknown;
    authority_history: { motus: unknown; legacy: unknown };
    insurance: { motus: unknown; history: unknown; legacy: unknown };
    out_of_service: unknown;
  };
}

export type OpenDataAnswer = { ok: true; facts: OpenDataFacts } | { ok: false; error: string };

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
const motusAuthorityRow = z.looseObject({
  usdot_number: text.optional(),
  docket_number: text.optional(),
  op_auth_type: text.optional(),
  op_auth_status: text.optional(),
  reason: text.optional(),
  status_change_date: text.optional(),
});

/** A query the portal did not answer usably: the whole lookup is unavailable, never "nothing on file". */
class Unanswered extends Error {}

export class FmcsaOpenData {
  constructor(
    private readonly client: PacedJsonClient,
    private readonly options: OpenDataOptions,
    private readonly wall: WallClock,
  ) {}

  async factsFor(dot: string, signal: AbortSignal): Promise<OpenDataAnswer> {
    try {
      return { ok: true, facts: await this.read(dot, signal) };
    } catch (err) {
      if (err instanceof Unanswered) return { ok: false, error: err.message };
      throw err;
    }
  }

  private async read(dot: string, signal: AbortSignal): Promise<OpenDataFacts> {
    const either = `('${dot.padStart(8, '0')}', '${dot}')`;
    const o = this.options;
    const [census, motusAuthority, legacyAuthority, motus, history, legacy, orders] = await Promise.all([
      this.rows(o.censusDataset, `dot_number = '${dot}'`, 5, censusRow, signal),
      this.rows(o.authorityHistoryDataset, `usdot_number in ${either}`, 500, motusAuthorityRow, signal),
      this.rows(o.legacyAuthorityHistoryDataset, `dot_number in ${either}`, 500, authorityRow, signal),
      this.rows(o.insuranceDataset, `usdot_number in ${either}`, 200, motusFilingRow, signal),
      this.rows(o.insuranceHistoryDataset, `usdot_number in ${either}`, 200, motusHistoryRow, signal),
      this.rows(o.legacyInsuranceDataset, `dot_number in ${either}`, 100, legacyFilingRow, signal),
      this.rows(o.outOfServiceDataset, `dot_number = '${dot}'`, 50, oosRow, signal),
    ]);
    const row = census[0];
    const where = row ? sharedContactWhere(dot, row) : null;
    const shared = where ? await this.rows(o.censusDataset, where, 25, censusRow, signal) : [];
    const today = this.wall.now().toISOString().slice(0, 10);
    return {
      phone: row?.phone?.trim() || null,
      registered_at: toIsoDate(row?.add_date),
      authority_granted_at: grantDate(legacyAuthority, motusAuthority),
      census: row ? censusContactOf(row) : null,
      liability: liabilityOf({ motus, history, legacy: o.legacyInsuranceDataset ? legacy : null }, today),
      out_of_service: standingOrder(orders, today),
      shared_with: row ? sharedContactsOf(row, shared) : null,
      raw: {
        census,
        authority_history: { motus: motusAuthority, legacy: legacyAuthority },
        insurance: { motus, history, legacy },
        out_of_service: orders,
      },
    };
  }

  /** The rows of one dataset matching `where`; none when the settings turn the dataset off (null). */
  private async rows<T extends z.ZodType>(
    dataset: string | null,
    where: string,
    limit: number,
    row: T,
    signal: AbortSignal,
  ): Promise<z.output<T>[]> {
    if (dataset === null) return [];
    const url = new URL(`${this.options.baseUrl.replace(/\/$/, '')}/resource/${dataset}.json`);
    url.searchParams.set('$where', where);
    url.searchParams.set('$limit', String(limit));
    const answer = await this.client.get(url, signal);
    if (!answer.ok) throw new Unanswered(answer.error);
    const parsed = z.array(row).safeParse(answer.body);
    if (!parsed.success)
      throw new Unanswered(`FMCSA open data GET ${url.pathname} answered an unexpected shape`);
    return parsed.data;
  }
}

/** Broker and freight-forwarder authority is not hauling authority. */
const notHauling = (type: string | undefined) => /BROKER|FORWARDER/i.test(type ?? '');

/**
 * The grant date of the motor-carrier authority standing now. From the older history (complete up
 * to FMCSA's move to Motus): the earliest grant (or reinstatement) without a later disposition.
 * When it has none standing, Motus's earliest carrier grant (a carrier granted since the move, or
 * one reinstated there); its rows carried over from before the move under other reasons, such as
 * an administrative correction, are not grants. Failing both, the older history's latest grant.
 */
function grantDate(
  legacy: z.output<typeof authorityRow>[],
  motus: z.output<typeof motusAuthorityRow>[],
): string | null {
  const grants = legacy
    .filter((r) => /GRANT|REINSTAT/i.test(r.original_action_desc ?? '') && !notHauling(r.mod_col_1))
    .map((r) => ({ at: toIsoDate(r.orig_served_date), standing: !r.disp_action_desc?.trim() }))
    .filter((g): g is { at: string; standing: boolean } => g.at !== null)
    .sort((a, b) => a.at.localeCompare(b.at));
  const standing = grants.find((g) => g.standing);
  if (standing) return standing.at;
  const motusGrants = motus
    .filter((r) => /^(GRANTED|REINSTATED)$/i.test(r.reason?.trim() ?? '') && !notHauling(r.op_auth_type))
    .map((r) => toIsoDate(r.status_change_date))
    .filter((d): d is string => d !== null)
    .sort();
  return motusGrants[0] ?? grants.at(-1)?.at ?? null;
}
