import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { loadPayload } from './load-payloads.js';
import { postBytes } from './post-bytes.js';

/**
 * The client side of bench/event-loop.ts, in a worker thread of its own: building 16 MiB bodies,
 * sending them and timing the small requests must not hold up the server's event loop, which the
 * main thread measures. Every body is built (and encoded) before the first measurement.
 */
export interface ClientOptions {
  api: string;
  headers: Record<string, string>;
  rounds: number;
  batchLoads: number;
  csvBytes: number;
  idleMs: number;
}

export interface ClientResult {
  idle: number[];
  busy: number[];
  sizes: { batch: number; csv: number };
  large: { name: string; status: number; ms: number }[];
}

/** Messages to the main thread: when the measured stretch of large requests begins and ends. */
export type ClientMessage = { phase: 'idle' | 'busy' } | { phase: 'done'; result: ClientResult };

/**
 * A load as a TMS with full records sends it (about 5.8 KB of JSON): the benchmark's load with
 * reference numbers, PO numbers, instructions, notes and a contact per stop.
 */
export function fullLoad(prefix: string, i: number): Record<string, unknown> {
  const load = loadPayload(prefix, i);
  const words = (n: number, seed: number) =>
    Array.from({ length: n }, (_, k) => `word${(seed * 31 + k * 7) % 997}`).join(' ');
  const stops = z
    .array(z.record(z.string(), z.unknown()))
    .parse(load.stops)
    .map((stop, s) => ({
      ...stop,
      notes: words(40, i + s),
      reference_numbers: Array.from({ length: 4 }, (_, k) => ({ value: `SR${i}-${s}-${k}`, type: 'BOL' })),
      contact: { type: 'Shipper', first_name: 'Dock', last_name: `Lead ${s}`, phone: '+13125550100' },
    }));
  return {
    ...load,
    stops,
    po_numbers: Array.from({ length: 10 }, (_, k) => `PO-${i}-${k}`),
    reference_numbers: Array.from({ length: 20 }, (_, k) => ({ value: `REF-${i}-${k}`, type: 'Customer' })),
    special_instructions: Array.from({ length: 4 }, (_, k) => words(25, i + k)),
    notes: words(260, i),
    custom_fields: { lane_code: `L${i % 400}`, priority: i % 3, tags: ['dry', 'tarp', `zone-${i % 9}`] },
  };
}

/** A carrier CSV of about `bytes`: 1,000 rows whose legal-name column pads them out. */
export function carriersCsv(bytes: number, round: number): string {
  const rows = 1000;
  const pad = Math.max(0, Math.floor(bytes / rows) - 40);
  const lines = ['name,mc_number,legal_name'];
  for (let i = 0; i < rows; i++)
    lines.push(`Carrier ${round}-${i},${700000 + round * 1000 + i},"${'y'.repeat(pad)}"`);
  return lines.join('\n');
}

/** A large body sent as the bytes it was encoded into beforehand (postBytes). */
const post = (o: ClientOptions, path: string, type: string, body: Buffer) =>
  postBytes(`${o.api}${path}`, o.headers, type, body);

/** Small requests one after another, each timed, until `until` settles. */
async function smallRequests(o: ClientOptions, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const times: number[] = [];
  for (let i = 0; !done; i++) {
    const started = performance.now();
    const url = i % 2 ? `${o.api}/carriers?limit=1` : `${o.api.replace('/api/v1', '')}/healthz`;
    const res = await fetch(url, { headers: o.headers });
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

async function main(o: ClientOptions, send: (m: ClientMessage) => void) {
  const bodies = Array.from({ length: o.rounds }, (_, r) => {
    const loads = (tag: string) =>
      JSON.stringify({ loads: Array.from({ length: o.batchLoads }, (_, i) => fullLoad(`${tag}${r}`, i)) });
    return {
      batches: [Buffer.from(loads('EL')), Buffer.from(loads('EM'))],
      csv: Buffer.from(carriersCsv(o.csvBytes, r)),
      open: Buffer.from(`name\n"${'x'.repeat(o.csvBytes - 7)}`),
    };
  });
  send({ phase: 'idle' });
  const idle = await smallRequests(o, new Promise((r) => setTimeout(r, o.idleMs)));
  send({ phase: 'busy' });
  const large: ClientResult['large'] = [];
  const rounds = (async () => {
    for (const round of bodies) {
      const sent = await Promise.all([
        ...round.batches.map((b) => post(o, '/loads/batch', 'application/json', b)),
        post(o, '/carriers/batch', 'text/csv', round.csv),
        post(o, '/carriers/batch', 'text/csv', round.open),
      ]);
      const names = ['loads batch', 'loads batch', 'carrier CSV', 'unterminated CSV'];
      sent.forEach((s, k) => {
        large.push({ name: names[k] ?? '', ...s });
      });
    }
  })();
  const busy = await smallRequests(o, rounds);
  await rounds;
  const first = bodies[0];
  const sizes = { batch: first?.batches[0]?.length ?? 0, csv: first?.csv.length ?? 0 };
  send({ phase: 'done', result: { idle, busy, sizes, large } });
}

if (parentPort) {
  const port = parentPort;
  // The parent starts this worker with a ClientOptions as its workerData (see runClient).
  await main(workerData as ClientOptions, (m) => port.postMessage(m));
}
