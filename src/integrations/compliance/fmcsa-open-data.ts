import { z } from 'zod';
import type { PacedJsonClient } from './paced-json-client.js';

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
 */
export interface OpenDataOptions {
  baseUrl: string;
  censusDataset: string;
  authorityHistoryDataset: string;
}

export interface OpenDataFacts {
  phone: string | null;
  registered_at: string | null;
  authority_granted_at: string | null;
  raw: { census: unknown; authority_history: unknown };
}

export type OpenDataAnswer = { ok: true; facts: OpenDataFacts } | { ok: false; error: string };

const text = z.union([z.string(), z.number()]).transform(String);
const censusRow = z.looseObject({
  dot_number: text.optional(),
  phone: text.optional(),
  add_date: text.optional(),
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
    const [census, history] = await Promise.all([
      this.rows(this.options.censusDataset, `dot_number = '${dot}'`, 5, censusRow, signal),
      this.rows(
        this.options.authorityHistoryDataset,
        `dot_number in ('${dot.padStart(8, '0')}', '${dot}')`,
        500,
        authorityRow,
        signal,
      ),
    ]);
    if (!census.ok) return census;
    if (!history.ok) return history;
    const row = census.rows[0];
    return {
      ok: true,
      facts: {
        phone: row?.phone?.trim() || null,
        registered_at: toIsoDate(row?.add_date),
        authority_granted_at: standingGrantDate(history.rows),
        raw: { census: census.rows, authority_history: history.rows },
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
  if (standing.length) return standing[0]!.at;
  return grants.at(-1)?.at ?? null;
}

/** `YYYY-MM-DD` from the forms these datasets use: `MM/DD/YYYY`, `YYYYMMDD`, ISO 8601. */
export function toIsoDate(value: string | null | undefined): string | null {
  const v = value?.trim();
  if (!v) return null;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v);
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  const iso8601 = /^(\d{4}-\d{2}-\d{2})([T ].*)?$/.exec(v);
  const iso = us
    ? `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}`
    : compact
      ? `${compact[1]}-${compact[2]}-${compact[3]}`
      : (iso8601?.[1] ?? null);
  return iso && !Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ? iso : null;
}
