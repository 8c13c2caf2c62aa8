import { z } from 'zod';
import type { WallClock } from '../../lib/wall-clock.js';
import type { CensusRecord, ComplianceProvider, LookupResult } from './compliance-provider.js';
import { FmcsaOpenData, type OpenDataOptions } from './fmcsa-open-data.js';
import { type JsonAnswer, PacedJsonClient } from './paced-json-client.js';

export interface FmcsaProviderOptions {
  /** QCMobile, e.g. `https://mobile.fmcsa.dot.gov/qc/services`. */
  baseUrl: string;
  webKey: string;
  openData: OpenDataOptions & { appToken: string | undefined };
  /** Applied to each of the two hosts separately. */
  pacing: {
    minIntervalMs: number;
    maxRetries: number;
    retryBaseMs: number;
    timeoutMs: number;
    cacheTtlMs: number;
  };
  /** What day it is for the insurance and out-of-service records: real carriers' real dates. */
  wall: WallClock;
}

// QCMobile answers `{content, retrievalDate, _links}`; field names as FMCSA publishes them.
const flag = z.string().nullish();
const qcCarrier = z.looseObject({
  dotNumber: z.union([z.number(), z.string()]).nullish(),
  legalName: z.string().nullish(),
  allowedToOperate: flag,
  statusCode: flag,
  oosDate: z.string().nullish(),
  commonAuthorityStatus: flag,
  contractAuthorityStatus: flag,
  bipdInsuranceOnFile: z.union([z.string(), z.number()]).nullish(),
});
const qcAuthority = z.looseObject({
  carrierAuthority: z
    .looseObject({
      commonAuthorityStatus: flag,
      contractAuthorityStatus: flag,
      authorizedForProperty: flag,
    })
    .nullish(),
});
const qcDocket = z.looseObject({ docketNumber: z.union([z.number(), z.string()]).nullish(), prefix: flag });
const qcOos = z.looseObject({
  oos: z.looseObject({ oosDate: z.string().nullish(), oosReasonDescription: z.string().nullish() }).nullish(),
});
/** A list answer: an array, or null/absent content when there is nothing. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.looseObject({ content: z.array(item).nullable() }).transform((b) => b.content ?? []);

const digits = (v: unknown) =>
  v === null || v === undefined ? null : String(v).replace(/\D/g, '').replace(/^0+/, '') || null;

/**
 * The public FMCSA QCMobile API (`webKey` in the query) for registration, authority, insurance and
 * out-of-service facts, and FMCSA's open datasets for the phone and the dates QCMobile lacks.
 *
 * A well-formed empty answer means "not registered" (QCMobile is the complete register). Anything
 * else that is not a well-formed answer (a 404 of a wrong path, 401, 5xx, a timeout, a body that is
 * not QCMobile's) is "unavailable": nothing is concluded and the check is retried later.
 */
export class FmcsaProvider implements ComplianceProvider {
  readonly name = 'fmcsa';
  private readonly qcMobile: PacedJsonClient;
  private readonly openData: FmcsaOpenData;

  constructor(private readonly options: FmcsaProviderOptions) {
    // One client per host: each is paced on its own.
    this.qcMobile = new PacedJsonClient({ name: 'FMCSA QCMobile', ...options.pacing });
    const openDataClient = new PacedJsonClient({
      name: 'FMCSA open data',
      ...options.pacing,
      headers: options.openData.appToken ? { 'X-App-Token': options.openData.appToken } : {},
    });
    this.openData = new FmcsaOpenData(openDataClient, options.openData, options.wall);
  }

  async lookup(
    query: { mc_number: string | null; dot_number: string | null },
    signal: AbortSignal,
  ): Promise<LookupResult> {
    // Keyed on the DOT number when there is one, so every carrier of a DOT shares cached answers.
    const byDot = query.dot_number !== null;
    const path = byDot ? `/carriers/${query.dot_number}` : `/carriers/docket-number/${query.mc_number ?? ''}`;
    const first = await this.get(path, signal);
    if (!first.ok) return { status: 'unavailable', error: first.error };
    const carrier = byDot ? singleCarrier(first.body) : firstCarrier(first.body);
    if (carrier === 'malformed') return malformed(path);
    if (carrier === null) return { status: 'not_found', authoritative: true, raw: first.body };
    const dot = digits(carrier.dotNumber) ?? query.dot_number;
    if (!dot) return malformed(path);

    const checkDockets = byDot && query.mc_number !== null;
    const [authority, dockets, oos, openData] = await Promise.all([
      this.get(`/carriers/${dot}/authority`, signal),
      checkDockets ? this.get(`/carriers/${dot}/docket-numbers`, signal) : null,
      carrier.oosDate ? this.get(`/carriers/${dot}/oos`, signal) : null,
      this.openData.factsFor(dot, signal),
    ]);
    const missing: string[] = [];

    // For-hire authority: the authority endpoint's dockets when it answers, else the carrier record.
    const authorities = parseList(qcAuthority, authority)
      ?.map((a) => a.carrierAuthority)
      .filter((a) => !!a);
    const active = (a: { commonAuthorityStatus?: string | null; contractAuthorityStatus?: string | null }) =>
      a.commonAuthorityStatus === 'A' || a.contractAuthorityStatus === 'A';
    const authorizedForHire = authorities?.length
      ? authorities.some((a) => active(a) && a.authorizedForProperty !== 'N')
      : active(carrier);

    let mcNumbers: string[] | null = null;
    if (dockets) {
      const list = parseList(qcDocket, dockets);
      if (list === null)
        missing.push(dockets.ok ? `${path}/docket-numbers: unexpected shape` : dockets.error);
      else
        mcNumbers = list
          .filter((d) => (d.prefix ?? 'MC').toUpperCase() === 'MC')
          .map((d) => digits(d.docketNumber))
          .filter((d): d is string => d !== null);
    }
    if (!openData.ok) missing.push(openData.error);

    const orders = oos ? (parseList(qcOos, oos) ?? []) : [];
    const order = orders.map((o) => o.oos).find((o) => o?.oosDate === carrier.oosDate) ?? orders[0]?.oos;
    const insurance = carrier.bipdInsuranceOnFile;
    const facts = openData.ok ? openData.facts : null;
    const openOrder = facts?.out_of_service ?? null;
    const { census, liability, shared_with } = facts ?? { census: null, liability: null, shared_with: null };
    const record: CensusRecord = {
      dot_number: dot,
      // A placeholder MC when FMCSA lists none under the DOT, so the rules see the mismatch.
      mc_number: byDot ? docketOf(mcNumbers, query.mc_number) : query.mc_number,
      legal_name: carrier.legalName ?? null,
      allowed_to_operate: carrier.allowedToOperate === 'Y',
      // `statusCode` I is an inactive USDOT number, not an out-of-service order.
      out_of_service: !!carrier.oosDate || openOrder !== null,
      out_of_service_detail: outOfServiceDetail(carrier.oosDate, order?.oosReasonDescription, openOrder),
      authorized_for_hire: authorizedForHire,
      // The amount on file, in thousands of dollars; "0" means none.
      insurance_on_file: insurance === null || insurance === undefined ? null : Number(insurance) > 0,
      authority_granted_at: openData.ok ? openData.facts.authority_granted_at : null,
      authority_source: openData.ok && openData.facts.authority_granted_at ? 'FMCSA authority history' : null,
      registered_at: openData.ok ? openData.facts.registered_at : null,
      phone: facts?.phone ?? null,
      census,
      liability,
      shared_with,
      incomplete: missing.length ? missing.join('; ') : null,
    };
    return {
      status: 'found',
      record,
      raw: {
        carrier: first.body,
        authority: authority.ok ? authority.body : null,
        docket_numbers: dockets?.ok ? dockets.body : null,
        oos: oos?.ok ? oos.body : null,
        open_data: openData.ok ? openData.facts.raw : null,
      },
    };
  }

  private get(path: string, signal: AbortSignal): Promise<JsonAnswer> {
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + path);
    url.searchParams.set('webKey', this.options.webKey);
    return this.qcMobile.get(url, signal);
  }
}

/** The MC given when FMCSA lists it under the DOT; else one it lists (or a placeholder when none). */
function docketOf(listed: string[] | null, given: string | null): string | null {
  if (listed === null) return null;
  return given && listed.includes(given) ? given : (listed[0] ?? 'none on file');
}

/** QCMobile's order (its date and reason) when it has one, else the open-data order in force. */
function outOfServiceDetail(
  oosDate: string | null | undefined,
  reason: string | null | undefined,
  openOrder: { since: string | null; reason: string | null } | null,
): string | null {
  if (oosDate) return `out of service since ${oosDate}${reason ? `: ${reason}` : ''}`;
  if (!openOrder) return null;
  return `out-of-service order since ${openOrder.since ?? 'an unknown date'}${openOrder.reason ? `: ${openOrder.reason}` : ''} (FMCSA out-of-service orders)`;
}

const malformed = (path: string): LookupResult => ({
  status: 'unavailable',
  error: `FMCSA QCMobile GET ${path} answered an unexpected shape`,
});

type QcCarrier = z.output<typeof qcCarrier>;

/** `/carriers/{dot}`: `{content: {carrier}}`, or empty content for a DOT FMCSA does not know. */
function singleCarrier(body: unknown): QcCarrier | null | 'malformed' {
  const parsed = z
    .looseObject({
      content: z.union([z.looseObject({ carrier: qcCarrier }), z.array(z.never()).length(0), z.null()]),
    })
    .safeParse(body);
  if (!parsed.success) return 'malformed';
  const content = parsed.data.content;
  return content && !Array.isArray(content) ? content.carrier : null;
}

/** `/carriers/docket-number/{mc}`: `{content: [{carrier}, ...]}`, empty when the docket is unknown. */
function firstCarrier(body: unknown): QcCarrier | null | 'malformed' {
  const parsed = listOf(z.looseObject({ carrier: qcCarrier.nullish() })).safeParse(body);
  if (!parsed.success) return 'malformed';
  return parsed.data.find((c) => c.carrier)?.carrier ?? null;
}

function parseList<T extends z.ZodType>(item: T, answer: JsonAnswer): z.output<T>[] | null {
  if (!answer.ok) return null;
  const parsed = listOf(item).safeParse(answer.body);
  return parsed.success ? parsed.data : null;
}
