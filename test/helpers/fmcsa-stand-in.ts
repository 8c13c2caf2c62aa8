import { createServer, type Server } from 'node:http';
import { defined } from '../../src/lib/defined.js';
import { portOf } from './listening.js';

/**
 * A local stand-in for FMCSA's two public sources, answering with their published shapes:
 *
 * - QCMobile under `/qc/services`: `{content, retrievalDate, _links}`; `/carriers/{dot}` has
 *   `content: {carrier, _links}` (`null` for a DOT FMCSA does not know), `/carriers/docket-number/{mc}`
 *   a list of `{carrier, _links}`, `/authority` a list of `{carrierAuthority, _links}`,
 *   `/docket-numbers` a list of `{docketNumber, docketNumberId, dotNumber, prefix}`, `/oos` a list of
 *   `{oos: {dotNumber, id, oosDate, oosReason, oosReasonDescription}, _links}`. A wrong web key is a
 *   401 whose content is the message; an unknown path a 404 HTML page.
 * - The DOT open-data portal (Socrata SODA) under `/resource/{dataset}.json?$where=...`: an array of
 *   rows whose values are all strings, empty values left out. The Company Census File
 *   (`az4n-8mr2`); the Motus files Insur (`c5y8-a4uz`), InsHist (`3uet-3z4i`) and AuthHist
 *   (`yu5v-wbh6`), keyed by `usdot_number`, dates `YYYYMMDD`; the files from before Motus,
 *   ActPendInsur (`qh9u-swkp`) and AuthHist (`9mw4-x3tu`), keyed by `dot_number` zero-padded to
 *   eight digits, dates `MM/DD/YYYY`; and the out-of-service orders (`p2mt-9ige`).
 */

export interface StandInCarrier {
  dot: string;
  /** MC dockets of the DOT. */
  mcs?: string[];
  /** Fields of QCMobile's carrier record to change from a carrier in good standing. */
  carrier?: Record<string, unknown>;
  /** `carrierAuthority` entries; default: active common authority on each MC, property. */
  authority?: Record<string, unknown>[];
  oos?: { oosDate: string; oosReason: string; oosReasonDescription: string }[];
  /** Census row fields to change (or null: no census row). */
  census?: Record<string, string> | null;
  /** AuthHist rows (before Motus); default: one standing common-carrier grant in 2015. */
  authorityHistory?: Record<string, string>[];
  /** Motus AuthHist rows; default: none. */
  motusAuthority?: Record<string, string>[];
  /** Motus Insur rows; default: one BI&PD primary filing of $1,000,000. */
  insurance?: Record<string, string>[];
  /** Motus InsHist rows (ended or ending filings); default: none. */
  insuranceHistory?: Record<string, string>[];
  /** ActPendInsur rows (before Motus); default: the same policy as the default Motus filing. */
  legacyInsurance?: Record<string, string>[];
  /** Out-of-service order rows; default: none. */
  oosOrders?: Record<string, string>[];
}

export interface StandInRequest {
  path: string;
  query: URLSearchParams;
}

const retrievalDate = () => new Date().toISOString().replace('Z', '+0000');

/** `MM/DD/YYYY`, as AuthHist writes dates. */
export const usDate = (d: Date) =>
  `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCDate()).padStart(2, '0')}/${d.getUTCFullYear()}`;
/** `YYYYMMDD`, as the census writes `add_date`. */
export const compactDate = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');
export const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);

export const WEB_KEY = 'stand-in-web-key';

export class FmcsaStandIn {
  readonly requests: StandInRequest[] = [];
  private readonly carriers = new Map<string, StandInCarrier>();
  private readonly byMc = new Map<string, string>();
  /** Every answer is a 503 while set. */
  down = false;
  /** Only the open-data portal answers 503 while set. */
  openDataDown = false;
  /** Paths answered 503 this many more times. */
  private readonly failures = new Map<string, number>();
  /** Paths answered this many milliseconds late. */
  readonly slow = new Map<string, number>();
  /** Paths whose answers wait until `release()`; how many such answers wait now. */
  readonly held = new Set<string>();
  private waiting: (() => void)[] = [];
  get heldAnswers(): number {
    return this.waiting.length;
  }
  /** Sends every answer held so far. */
  release() {
    const waiting = this.waiting;
    this.waiting = [];
    for (const answer of waiting) answer();
  }
  private server: Server | undefined;
  url = '';

  add(...list: StandInCarrier[]) {
    for (const c of list) {
      this.carriers.set(c.dot, c);
      for (const mc of c.mcs ?? []) this.byMc.set(mc, c.dot);
    }
    return this;
  }

  failNext(path: string, times: number) {
    this.failures.set(path, times);
  }

  requestsTo(pathPattern: RegExp) {
    return this.requests.filter((r) => pathPattern.test(r.path));
  }

  get qcMobileUrl() {
    return `${this.url}/qc/services`;
  }

  async start() {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      this.requests.push({ path: url.pathname, query: url.searchParams });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const left = this.failures.get(url.pathname) ?? 0;
      if (left > 0) this.failures.set(url.pathname, left - 1);
      if (this.down || left > 0 || (this.openDataDown && url.pathname.startsWith('/resource/'))) {
        res.writeHead(503, { 'content-type': 'text/html' });
        return res.end('<html><body>503 Service Unavailable</body></html>');
      }
      const answer = () => {
        if (url.pathname.startsWith('/qc/services/')) return this.qcMobile(url, send, res);
        if (url.pathname.startsWith('/resource/')) return this.openData(url, send);
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Not Found</h1></body></html>');
      };
      const delay = this.slow.get(url.pathname);
      if (this.held.has(url.pathname)) this.waiting.push(answer);
      else if (delay) setTimeout(answer, delay);
      else answer();
    });
    await new Promise<void>((resolve) => defined(this.server, 'this.server').listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${portOf(this.server)}`;
    return this;
  }

  stop() {
    this.server?.closeAllConnections();
    return new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private qcMobile(
    url: URL,
    send: (status: number, body: unknown) => void,
    res: import('node:http').ServerResponse,
  ) {
    const base = 'https://mobile.fmcsa.dot.gov/qc/services';
    if (url.searchParams.get('webKey') !== WEB_KEY) {
      return send(401, { content: 'Webkey not found', retrievalDate: retrievalDate() });
    }
    const rest = url.pathname.slice('/qc/services'.length);
    let m = /^\/carriers\/docket-number\/(\d+)\/?$/.exec(rest);
    if (m) {
      const dot = this.byMc.get(defined(m[1], 'm[1]'));
      const c = dot ? this.carriers.get(dot) : undefined;
      return send(200, {
        content: c ? [{ _links: links(base, c.dot), carrier: carrierRecord(c) }] : [],
        retrievalDate: retrievalDate(),
      });
    }
    m = /^\/carriers\/(\d+)(\/[a-z-]+)?$/.exec(rest);
    const c = m ? this.carriers.get(defined(m[1], 'm[1]')) : undefined;
    switch (m?.[2]) {
      case undefined:
        if (!m) break;
        return send(200, {
          content: c ? { _links: links(base, c.dot), carrier: carrierRecord(c) } : null,
          retrievalDate: retrievalDate(),
        });
      case '/authority':
        return send(200, {
          content: (c ? authorityOf(c) : []).map((a, i) => ({
            carrierAuthority: a,
            _links: { self: { href: `${base}/carriers/${c?.dot}/authority/${8960 + i}` } },
          })),
          retrievalDate: retrievalDate(),
        });
      case '/docket-numbers':
        return send(200, {
          content: (c?.mcs ?? []).map((mc, i) => ({
            docketNumber: Number(mc),
            docketNumberId: 125044 + i,
            dotNumber: Number(defined(c, 'c').dot),
            prefix: 'MC',
          })),
          retrievalDate: retrievalDate(),
          _links: { self: { href: `${base}/carriers/${c?.dot}/mc-numbers` } },
        });
      case '/oos':
        return send(200, {
          content: (c?.oos ?? []).map((o, i) => ({
            oos: { dotNumber: Number(defined(c, 'c').dot), id: 2992 + i, ...o },
            _links: { self: { href: `${base}/carriers/${defined(c, 'c').dot}/oos/${2992 + i}` } },
          })),
          retrievalDate: retrievalDate(),
        });
    }
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body><h1>404 Not Found</h1></body></html>');
  }

  /**
   * The shared-contact query: `dot_number != 'X' AND (phone = '..' OR upper(email_address) = '..'
   * OR (phy_street = '..' AND phy_zip = '..'))`, answered over every census row of the stand-in.
   */
  private sharing(where: string): Record<string, string>[] {
    const value = (re: RegExp) => re.exec(where)?.[1]?.replace(/''/g, "'");
    const self = value(/^dot_number != '(\d+)'/);
    const phone = value(/phone = '((?:[^']|'')*)'/);
    const email = value(/upper\(email_address\) = '((?:[^']|'')*)'/);
    const street = value(/phy_street = '((?:[^']|'')*)'/);
    const zip = value(/phy_zip = '((?:[^']|'')*)'/);
    return [...this.carriers.values()]
      .filter((c) => c.dot !== self && c.census !== null)
      .map(censusRow)
      .filter(
        (r) =>
          (phone !== undefined && r.phone === phone) ||
          (email !== undefined && r.email_address?.toUpperCase() === email) ||
          (street !== undefined && r.phy_street === street && r.phy_zip === zip),
      );
  }

  private openData(url: URL, send: (status: number, body: unknown) => void) {
    const dataset = /^\/resource\/([a-z0-9]{4}-[a-z0-9]{4})\.json$/.exec(url.pathname)?.[1];
    const where = url.searchParams.get('$where') ?? '';
    const dots = [...where.matchAll(/'(\d+)'/g)].map((x) => defined(x[1], 'x[1]').replace(/^0+/, ''));
    const found = dots.map((d) => this.carriers.get(d)).find((c) => c !== undefined);
    if (dataset === 'az4n-8mr2' && where.startsWith('dot_number != ')) return send(200, this.sharing(where));
    if (dataset === 'az4n-8mr2') {
      if (!/^dot_number = '\d+'$/.test(where)) return send(400, soqlError(where));
      return send(200, found && found.census !== null ? [censusRow(found)] : []);
    }
    if (dataset === '9mw4-x3tu') {
      if (!/^dot_number in \('\d{8}', '\d+'\)$/.test(where)) return send(400, soqlError(where));
      return send(200, found ? authorityHistoryOf(found) : []);
    }
    if (dataset === 'qh9u-swkp') {
      if (!/^dot_number in \('\d{8}', '\d+'\)$/.test(where)) return send(400, soqlError(where));
      return send(
        200,
        found ? (found.legacyInsurance ?? [legacyFiling(found.dot, found.mcs?.[0] ?? '0', '1000')]) : [],
      );
    }
    const motus = MOTUS[dataset ?? ''];
    if (motus) {
      if (!/^usdot_number in \('\d{8}', '\d+'\)$/.test(where)) return send(400, soqlError(where));
      return send(200, found ? motus(found) : []);
    }
    if (dataset === 'p2mt-9ige') {
      if (!/^dot_number = '\d+'$/.test(where)) return send(400, soqlError(where));
      return send(200, found?.oosOrders ?? []);
    }
    send(404, { code: 'not_found', error: true, message: 'Not found' });
  }
}

const soqlError = (where: string) => ({
  code: 'query.compiler.malformed',
  error: true,
  message: `Could not parse SoQL query "${where}"`,
});

function links(base: string, dot: string) {
  return {
    basics: { href: `${base}/carriers/${dot}/basics` },
    'cargo carried': { href: `${base}/carriers/${dot}/cargo-carried` },
    'operation classification': { href: `${base}/carriers/${dot}/operation-classification` },
    'docket numbers': { href: `${base}/carriers/${dot}/docket-numbers` },
    'carrier active-For-hire authority': { href: `${base}/carriers/${dot}/authority` },
    self: { href: `${base}/carriers/${dot}` },
  };
}

/** QCMobile's carrier record of a carrier in good standing, every published field. */
function carrierRecord(c: StandInCarrier) {
  return {
    allowedToOperate: 'Y',
    bipdInsuranceOnFile: '1000',
    bipdInsuranceRequired: 'Y',
    bipdRequiredAmount: '750',
    bondInsuranceOnFile: '0',
    bondInsuranceRequired: 'u',
    brokerAuthorityStatus: 'N',
    cargoInsuranceOnFile: '0',
    cargoInsuranceRequired: 'u',
    carrierOperation: { carrierOperationCode: 'A', carrierOperationDesc: 'Interstate' },
    censusTypeId: { censusType: 'C', censusTypeDesc: 'CARRIER', censusTypeId: 1 },
    commonAuthorityStatus: 'A',
    contractAuthorityStatus: 'N',
    crashTotal: 0,
    dbaName: null,
    dotNumber: Number(c.dot),
    driverInsp: 12,
    driverOosInsp: 0,
    driverOosRate: 0,
    driverOosRateNationalAverage: '5.51',
    ein: 391474414,
    fatalCrash: 0,
    hazmatInsp: 0,
    hazmatOosInsp: 0,
    hazmatOosRate: 0,
    hazmatOosRateNationalAverage: '4.5',
    injCrash: 0,
    isPassengerCarrier: 'N',
    issScore: null,
    legalName: `STAND-IN CARRIER ${c.dot} LLC`,
    mcs150Outdated: 'N',
    oosDate: null,
    oosRateNationalAverageYear: '2009-2010',
    phyCity: 'MARINETTE',
    phyCountry: 'US',
    phyState: 'WI',
    phyStreet: '2830 CLEVELAND AVE',
    phyZipcode: '54143',
    reviewDate: null,
    reviewType: null,
    safetyRating: null,
    safetyRatingDate: null,
    safetyReviewDate: null,
    safetyReviewType: null,
    snapshotDate: null,
    statusCode: 'A',
    totalDrivers: 4,
    totalPowerUnits: 4,
    towawayCrash: 0,
    vehicleInsp: 9,
    vehicleOosInsp: 1,
    vehicleOosRate: 11.1,
    vehicleOosRateNationalAverage: '20.72',
    ...c.carrier,
  };
}

function authorityOf(c: StandInCarrier) {
  if (c.authority) return c.authority;
  return (c.mcs ?? []).map((mc, i) => ({
    applicantID: 8960 + i,
    authority: 'N',
    authorizedForBroker: 'N',
    authorizedForHouseholdGoods: 'N',
    authorizedForPassenger: 'N',
    authorizedForProperty: 'Y',
    brokerAuthorityStatus: 'N',
    commonAuthorityStatus: 'A',
    contractAuthorityStatus: 'N',
    docketNumber: Number(mc),
    dotNumber: Number(c.dot),
    prefix: 'MC',
  }));
}

function censusRow(c: StandInCarrier): Record<string, string> {
  const mc = c.mcs?.[0];
  return {
    dot_number: c.dot,
    legal_name: `STAND-IN CARRIER ${c.dot} LLC`,
    carrier_operation: 'A',
    status_code: 'A',
    add_date: '20190312',
    mcs150_date: '20250110',
    phone: `715${c.dot.slice(-7).padStart(7, '0')}`,
    email_address: `dispatch${c.dot}@example.com`,
    phy_street: `${c.dot} CLEVELAND AVE`,
    phy_city: 'MARINETTE',
    phy_state: 'WI',
    phy_zip: '54143',
    phy_country: 'US',
    power_units: '4',
    total_drivers: '4',
    classdef: 'AUTHORIZED FOR HIRE',
    ...(mc ? { docket1prefix: 'MC', docket1: mc, docket1_status_code: 'A' } : {}),
    ...c.census,
  };
}

/** The Motus datasets, keyed by `usdot_number`, and what each holds of a carrier. */
const MOTUS: Record<string, (c: StandInCarrier) => Record<string, string>[]> = {
  'c5y8-a4uz': (c) => c.insurance ?? [motusFiling(c.dot, c.mcs?.[0] ?? '0', '1000000')],
  '3uet-3z4i': (c) => c.insuranceHistory ?? [],
  'yu5v-wbh6': (c) => c.motusAuthority ?? [],
};

/** The policy number and start date of the default filing, the same in both insurance files. */
const POLICY = (dot: string) => ({ policy_no: `PM-${dot}`, effective: new Date('2025-01-01T00:00:00Z') });

/** A Motus Insur row: a BI&PD (type 1) primary filing of `dollars`, effective 2025-01-01. */
export const motusFiling = (
  dot: string,
  mc: string,
  dollars: string,
  extra: Record<string, string> = {},
) => ({
  docket_number: `MC${mc.padStart(6, '0')}`,
  usdot_number: dot,
  ins_form_code: '91X',
  ins_type_code: '1',
  ins_class_code: 'P',
  max_cov_amount: dollars,
  underl_lim_amount: '0',
  policy_no: POLICY(dot).policy_no,
  effective_date: compactDate(POLICY(dot).effective),
  insurance_company_name: 'PRAIRIE MUTUAL INSURANCE CO',
  trans_date: '20250102',
  ...extra,
});

/** A Motus InsHist row ending the default filing on `date` (`CANCEL`, `TERM/REPL` or `NAMECHG`). */
export const filingEnded = (
  dot: string,
  date: Date,
  reason = 'CANCEL',
  extra: Record<string, string> = {},
) => ({
  usdot_number: dot,
  ins_form_code: '91X',
  ins_type_code: '1',
  ins_type_desc: 'BIPD',
  filing_status_reason: reason,
  policy_no: POLICY(dot).policy_no,
  effective_date: compactDate(POLICY(dot).effective),
  cancl_effective_date: compactDate(date),
  max_cov_amount: '1000000',
  insurance_company_name: 'PRAIRIE MUTUAL INSURANCE CO',
  ...extra,
});

/** An ActPendInsur row: a BIPD/Primary policy with `max_cov_amount` in thousands of dollars. */
export const legacyFiling = (
  dot: string,
  mc: string,
  thousands: string,
  extra: Record<string, string> = {},
) => ({
  docket_number: `MC${mc.padStart(6, '0')}`,
  dot_number: dot.padStart(8, '0'),
  ins_form_code: '91X',
  mod_col_1: 'BIPD/Primary',
  name_company: 'PRAIRIE MUTUAL INSURANCE CO',
  policy_no: POLICY(dot).policy_no,
  trans_date: '01/02/2025',
  underl_lim_amount: '0',
  max_cov_amount: thousands,
  effective_date: usDate(POLICY(dot).effective),
  ...extra,
});

/** A Motus AuthHist row: `reason` (`GRANTED`, `ADMINISTRATIVE CORRECTION`, ...) on `date`. */
export const motusAuthorityRow = (
  dot: string,
  mc: string,
  reason: string,
  date: Date,
  extra: Record<string, string> = {},
) => ({
  docket_number: `MC${mc.padStart(6, '0')}`,
  usdot_number: dot,
  op_auth_type: 'MOTOR CARRIER OF PROPERTY',
  op_auth_status: 'ACTIVE',
  reason,
  status_change_date: compactDate(date),
  ...extra,
});

function authorityHistoryOf(c: StandInCarrier): Record<string, string>[] {
  if (c.authorityHistory) return c.authorityHistory;
  const mc = c.mcs?.[0];
  if (!mc) return [];
  return [
    {
      docket_number: `MC${mc.padStart(6, '0')}`,
      dot_number: c.dot.padStart(8, '0'),
      sub_number: '0',
      mod_col_1: 'MOTOR PROPERTY COMMON CARRIER',
      original_action_desc: 'GRANTED',
      orig_served_date: '06/15/2015',
    },
  ];
}

/** An AuthHist row: a standing grant of common-carrier authority on `date`. */
export const grantRow = (dot: string, mc: string, date: Date, extra: Record<string, string> = {}) => ({
  docket_number: `MC${mc.padStart(6, '0')}`,
  dot_number: dot.padStart(8, '0'),
  sub_number: '0',
  mod_col_1: 'MOTOR PROPERTY COMMON CARRIER',
  original_action_desc: 'GRANTED',
  orig_served_date: usDate(date),
  ...extra,
});

/**
 * A row of the out-of-service orders dataset as the portal serves it: every column, as text. An
 * order stands while `oos_rescind_date` is empty; `status` is the USDOT number's.
 */
export const oosOrder = (fields: Record<string, string>) => ({
  dot_number: '0',
  legal_name: 'PRAIRIE HAULING LLC',
  dba_name: '',
  oos_date: '01/02/2026',
  oos_reason: 'UNSATISFACTORY RATING',
  status: 'ACTIVE',
  oos_rescind_date: '',
  ...fields,
});
