import { performance } from 'node:perf_hooks';
import { EQUIPMENT_TYPES, LOAD_MODES } from '../../src/domain/freight.js';
import { defined } from '../../src/lib/defined.js';
import { postBytes } from './post-bytes.js';

/**
 * Loads as a TMS would send them to POST /loads/batch, numbered: load i of a prefix is always the
 * same load (same identifiers, stops and attributes), so a later request can re-send it as an
 * update. Attributes are spread by cheap hashes of i over realistic value sets.
 */

export const CITIES: [string, string][] = [
  ['Chicago', 'IL'],
  ['Dallas', 'TX'],
  ['Houston', 'TX'],
  ['Atlanta', 'GA'],
  ['Memphis', 'TN'],
  ['Nashville', 'TN'],
  ['Denver', 'CO'],
  ['Phoenix', 'AZ'],
  ['Los Angeles', 'CA'],
  ['Fresno', 'CA'],
  ['Seattle', 'WA'],
  ['Portland', 'OR'],
  ['Boise', 'ID'],
  ['Salt Lake City', 'UT'],
  ['Reno', 'NV'],
  ['Las Vegas', 'NV'],
  ['Albuquerque', 'NM'],
  ['El Paso', 'TX'],
  ['San Antonio', 'TX'],
  ['Austin', 'TX'],
  ['Oklahoma City', 'OK'],
  ['Tulsa', 'OK'],
  ['Wichita', 'KS'],
  ['Kansas City', 'MO'],
  ['St. Louis', 'MO'],
  ['Omaha', 'NE'],
  ['Des Moines', 'IA'],
  ['Minneapolis', 'MN'],
  ['Milwaukee', 'WI'],
  ['Detroit', 'MI'],
  ['Grand Rapids', 'MI'],
  ['Indianapolis', 'IN'],
  ['Columbus', 'OH'],
  ['Cleveland', 'OH'],
  ['Cincinnati', 'OH'],
  ['Louisville', 'KY'],
  ['Pittsburgh', 'PA'],
  ['Philadelphia', 'PA'],
  ['Newark', 'NJ'],
  ['Boston', 'MA'],
  ['Hartford', 'CT'],
  ['Albany', 'NY'],
  ['Buffalo', 'NY'],
  ['Baltimore', 'MD'],
  ['Richmond', 'VA'],
  ['Charlotte', 'NC'],
  ['Raleigh', 'NC'],
  ['Columbia', 'SC'],
  ['Savannah', 'GA'],
  ['Jacksonville', 'FL'],
  ['Orlando', 'FL'],
  ['Tampa', 'FL'],
  ['Miami', 'FL'],
  ['Birmingham', 'AL'],
  ['Mobile', 'AL'],
  ['Jackson', 'MS'],
  ['New Orleans', 'LA'],
  ['Little Rock', 'AR'],
  ['Shreveport', 'LA'],
  ['Laredo', 'TX'],
];

/** Raw TMS statuses, mapped by the default table (the last one to no load_status). */
export const TMS_STATUSES = [
  'Open',
  'Quoted',
  'Booked',
  'In Transit',
  'Delivered',
  'Cancelled',
  'Delayed',
  'New',
  'On Hold',
];

export const CUSTOMERS = 500;
export const REPS = 40;
const DAY = 86_400_000;
/** Load 0 picks up on this day. */
export const PICKUP_EPOCH = Date.parse('2025-06-01T00:00:00Z');

/**
 * Loads arrive in the order a TMS books them: load i picks up about 30 s of timeline after load
 * i - 1 (a million loads span a little under a year), give or take up to ten days.
 */
export function pickupAt(i: number): number {
  return PICKUP_EPOCH + i * 30_000 + ((i * 7919) % 240) * 3_600_000;
}

/** The smallest load POST /loads takes: a number, VAN, Chicago to Dallas. */
export const minimalLoad = (loadNumber: string) => ({
  load_number: loadNumber,
  equipment_type: 'VAN',
  stops: [
    { type: 'Pickup', location: { city: 'Chicago', state: 'IL' }, expected_date: '2026-12-01T14:00:00Z' },
    { type: 'Dropoff', location: { city: 'Dallas', state: 'TX' }, expected_date: '2026-12-03T18:00:00Z' },
  ],
});

export function loadPayload(prefix: string, i: number, rateBump = 0): Record<string, unknown> {
  const origin = defined(CITIES[(i * 7919) % CITIES.length], 'CITIES[(i * 7919) % CITIES.length]');
  let d = (i * 104729 + 17) % CITIES.length;
  if (CITIES[d] === origin) d = (d + 1) % CITIES.length;
  const destination = defined(CITIES[d], 'CITIES[d]');
  const middle = defined(CITIES[(i * 31) % CITIES.length], 'CITIES[(i * 31) % CITIES.length]');
  const pickup = pickupAt(i);
  const stop = (type: 'Pickup' | 'Dropoff', [city, state]: [string, string], at: number, n: number) => ({
    type,
    stop_number: n,
    location: { city, state, postal_code: String(10000 + ((i * 13 + n) % 89999)), country: 'US' },
    expected_date: new Date(at).toISOString(),
  });
  const stops = [stop('Pickup', origin, pickup, 1)];
  if (i % 2 === 0) stops.push(stop('Dropoff', middle, pickup + DAY, 2));
  stops.push(stop('Dropoff', destination, pickup + 2 * DAY, stops.length + 1));
  const rep = `Rep ${i % REPS}`;
  return {
    load_number: `${prefix}-${i}`,
    tms_load_id: `TMS${prefix}${i}`,
    external_id: `EXT${prefix}${i}`,
    equipment_type: EQUIPMENT_TYPES[(i * 7) % EQUIPMENT_TYPES.length],
    mode: LOAD_MODES[i % LOAD_MODES.length],
    tms_status: TMS_STATUSES[(i * 13) % TMS_STATUSES.length],
    weight: 10000 + (i % 35000),
    // A few loads without a distance or a rate: the sorts put them last both ways.
    distance: i % 19 === 0 ? null : 50 + ((i * 37) % 2500),
    commodity: 'General freight',
    posted_rate: i % 17 === 0 ? null : 800 + ((i * 53) % 4000) + rateBump,
    max_buy_rate: 900 + ((i * 53) % 4000),
    is_posted: i % 3 === 0,
    carrier_name: `Carrier ${i % 2000}`,
    customer_name: `Customer ${i % CUSTOMERS}`,
    customer_rate: 1000 + ((i * 53) % 4000),
    margin: 150 + (i % 400),
    carrier_rep_user_name: rep,
    tms_sales_rep_names: i % 5 === 0 ? `Rep ${(i + 7) % REPS}; Sales ${i % 25}` : null,
    stops,
  };
}

export interface BatchTimings {
  loads: number;
  seconds: number;
  batchMs: number[];
}

/**
 * Sends loads [from, to) of `prefix` through POST /loads/batch, `size` a request and `inFlight`
 * requests at a time; fails on anything but a 200 in which every item was applied.
 */
export async function ingest(
  apiUrl: string,
  headers: Record<string, string>,
  prefix: string,
  from: number,
  to: number,
  o: { size?: number; inFlight?: number; rateBump?: (i: number) => number; onBatch?: () => void } = {},
): Promise<BatchTimings> {
  const size = o.size ?? 1000;
  const batchMs: number[] = [];
  let next = from;
  const started = performance.now();
  const worker = async () => {
    while (next < to) {
      const start = next;
      const end = Math.min(to, start + size);
      next = end;
      const loads = [];
      for (let i = start; i < end; i++) loads.push(loadPayload(prefix, i, o.rateBump?.(i) ?? 0));
      batchMs.push(await postBatch(apiUrl, headers, loads));
      o.onBatch?.();
    }
  };
  await Promise.all(Array.from({ length: o.inFlight ?? 2 }, worker));
  return { loads: to - from, seconds: (performance.now() - started) / 1000, batchMs };
}

/** One POST /loads/batch; returns its latency in ms. */
export async function postBatch(
  apiUrl: string,
  headers: Record<string, string>,
  loads: Record<string, unknown>[],
): Promise<number> {
  const body = Buffer.from(JSON.stringify({ loads }));
  const res = await postBytes(`${apiUrl}/loads/batch`, headers, 'application/json', body);
  if (res.status !== 200)
    throw new Error(`POST /loads/batch answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.ms;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return defined(
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))],
    'sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]',
  );
}
