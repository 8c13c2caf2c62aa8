import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { defined } from '../src/lib/defined.js';
import { type BrokerageFigures, runBrokerage } from './lib/brokerage.js';
import { sized } from './lib/harness.js';
import { recordResults } from './lib/results.js';

/**
 * A brokerage evaluating Envoy from outside (bench/lib/brokerage.ts): a fresh server in its default
 * simulation, carriers and loads through the API, the agent left to work the simulated hours, then
 * the figures read back through the API: coverage of the loads a willing carrier could take, time
 * to cover (simulated), booked rate against the ceiling, contacts per carrier, forbidden contacts.
 *
 * BENCH_BROKERAGE_CARRIERS (200, about 25 a lane; smoke 12), BENCH_BROKERAGE_LANES (8; smoke 3), BENCH_BROKERAGE_LOADS
 * (40; smoke 6), BENCH_BROKERAGE_HOURS (simulated, 8; smoke 2), BENCH_BROKERAGE_SPEED (120; smoke
 * 600), BENCH_BROKERAGE_SEED (45), BENCH_DATABASE_URL (a server to make its database on; else an
 * embedded one).
 */
export async function run() {
  const size = {
    carriers: sized('BENCH_BROKERAGE_CARRIERS', 200, 12),
    lanes: sized('BENCH_BROKERAGE_LANES', 8, 3),
    loads: sized('BENCH_BROKERAGE_LOADS', 40, 6),
    hours: sized('BENCH_BROKERAGE_HOURS', 8, 2),
    speed: sized('BENCH_BROKERAGE_SPEED', 120, 600),
    seed: Number(process.env.BENCH_BROKERAGE_SEED ?? 45),
  };
  const { url, close } = await database();
  try {
    const f = await runBrokerage(url, size);
    print(size, f);
    const forbidden = Object.entries(f.forbidden).filter(([, n]) => n > 0);
    if (forbidden.length)
      throw new Error(`forbidden contacts: ${JSON.stringify(forbidden)}\n${f.examples.join('\n')}`);
    const n = (v: number | null) => v ?? Number.NaN;
    await recordResults('brokerage', [
      { name: `loads booked before pickup, of ${f.loads}`, value: f.booked, unit: '' },
      { name: 'booked of the coverable loads', value: 100 * f.coverageOfCoverable, unit: '%' },
      { name: 'time to cover p50 (simulated)', value: n(f.ttcP50Min), unit: 'min' },
      { name: 'booked rate / ceiling, median', value: 100 * n(f.rateToCeilingP50), unit: '%' },
      { name: 'contacts per booking', value: n(f.contactsPerBooking), unit: '' },
      { name: 'most contacts one carrier got', value: f.contactsPerCarrierMax, unit: '' },
      {
        name: 'forbidden contacts',
        value: Object.values(f.forbidden).reduce((a, b) => a + b, 0),
        unit: '',
        target: '0',
      },
    ]);
  } finally {
    await close();
  }
}

function print(size: Parameters<typeof runBrokerage>[1], f: BrokerageFigures) {
  const pctText = (n: number | null) => (n === null ? 'n/a' : `${(n * 100).toFixed(1)}%`);
  const min = (n: number | null) =>
    n === null ? 'n/a' : n < 120 ? `${Math.round(n)} min` : `${(n / 60).toFixed(1)} h`;
  console.log(
    `\n### A brokerage from outside (seed ${size.seed}: ${size.carriers} carriers on ${size.lanes} lanes, ${size.loads} loads, ${size.hours} simulated hours at ${size.speed}x)\n`,
  );
  console.log('| figure | value |\n| --- | ---: |');
  const rows: [string, string][] = [
    ['loads handed to the agent', String(f.loads)],
    ['loads a carrier would take at or under the ceiling', String(f.willing)],
    ['loads coverable at once (the agent’s top price, one load per truck and day)', String(f.coverable)],
    ['booked before pickup / of the coverable', `${f.booked} / ${pctText(f.coverageOfCoverable)}`],
    ['time to cover p50 / p90 (simulated)', `${min(f.ttcP50Min)} / ${min(f.ttcP90Min)}`],
    [
      'booked rate / ceiling, median / highest',
      `${pctText(f.rateToCeilingP50)} / ${pctText(f.rateToCeilingMax)}`,
    ],
    ['contacts / per booking', `${f.contacts} / ${f.contactsPerBooking?.toFixed(1) ?? 'n/a'}`],
    ['most contacts one carrier got', String(f.contactsPerCarrierMax)],
    ...Object.entries(f.forbidden).map(([k, n]): [string, string] => [
      `forbidden: ${k.replace(/_/g, ' ')} (must be 0)`,
      String(n),
    ]),
    ['wall time', `${f.wallSeconds.toFixed(0)} s`],
  ];
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
}

/** A database of its own: on BENCH_DATABASE_URL's server, else on a throwaway embedded PostgreSQL. */
async function database(): Promise<{ url: string; close: () => Promise<void> }> {
  const name = `envoy_brokerage_${randomBytes(4).toString('hex')}`;
  let server = process.env.BENCH_DATABASE_URL;
  let stop = async () => {};
  if (!server) {
    const embedded = await startEmbeddedPostgres({
      dataDir: `${process.env.TMPDIR ?? '/tmp'}/envoy-brokerage-${process.pid}`,
      port: 56000 + Math.floor(Math.random() * 1000),
      persistent: false,
      ownSignals: false,
    });
    server = embedded.url;
    stop = () => embedded.stop();
  }
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(defined(server, 'server'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async close() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      // BENCH_BROKERAGE_KEEP=1 keeps it, to read what happened afterwards.
      if (process.env.BENCH_BROKERAGE_KEEP === '1') console.log(`kept database ${name}`);
      else await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await c.end();
      await stop();
    },
  };
}
