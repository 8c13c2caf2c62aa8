import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { z } from 'zod';
import { namedTextCount } from '../src/db/prepared.js';
import { systemScope } from '../src/domain/scope.js';
import { defined } from '../src/lib/defined.js';
import type { Services } from '../src/services.js';
import { statementsDuring } from '../test/helpers/statements.js';
import { AutovacuumStandIn } from './lib/autovacuum.js';
import { type CpuTimes, cpuSince, cpuTimes, perThousand } from './lib/cpu.js';
import {
  benchConfig,
  benchDatabase,
  listenApp,
  type Measurement,
  measure,
  optionsFromEnv,
  reusedBenchDatabase,
  type Scenario,
  smoke,
} from './lib/harness.js';
import { ingest, loadPayload, percentile, pickupAt, postBatch } from './lib/load-payloads.js';
import { type Figure, recordResults } from './lib/results.js';

/**
 * The load list at a million loads while a TMS sync writes.
 *
 * LOADS loads (default 1,000,000; BENCH_SMOKE=1: 400) with 2-3 stops each are ingested into one
 * organization through POST /loads/batch (1000 a request, two in flight), and a tenth as many into
 * a second one; offers, calls and outreaches are added in SQL for the tabs. Then every scenario
 * (the list's hot filters, alone and combined, every order_by both ways, and the organization's
 * GET /loads/stats, whose total and active_offers tab are checked too) is measured with 8
 * connections twice: quiet, and under writes, while a sustained writer re-sends 100 existing
 * loads with a changed rate through POST /loads/batch every 500 ms (a TMS sync: loads picked at
 * random among the newest WRITER_WINDOW, default 50,000, the ones still moving). Each phase also
 * measures GET /loads/{id}, the ratio's baseline. total_count of every scenario is checked against
 * a plain count in SQL after the writes. Prints the ingestion rate, the table, and the EXPLAIN
 * (ANALYZE, BUFFERS) of the statements of the slowest scenario.
 *
 * This machine's PostgreSQL runs with autovacuum off: while the bench runs, AutovacuumStandIn
 * vacuums and analyzes each table when autovacuum's own thresholds say it would.
 *
 * BENCH_DATABASE_URL uses a server of your own (else an embedded PostgreSQL); BENCH_DURATION,
 * BENCH_ROUNDS and BENCH_CONNECTIONS set the measurement (default 8 s, 2 rounds, 8 connections);
 * BENCH_ONLY=<substring>[|<substring>...] keeps the matching scenarios only; BENCH_EXPLAIN=all explains every
 * scenario; BENCH_KEEP=1 keeps the database.
 *
 * BENCH_REUSE=<database name> measures on a database an earlier run kept (BENCH_KEEP=1) on
 * BENCH_DATABASE_URL's server: it is migrated (so a new migration applies), the two organizations
 * are found by name and given fresh API keys, and creating, ingesting and seeding are skipped
 * (LOADS is then the organization's own count). The database is kept. With BENCH_ONLY, a scenario
 * is re-measured in minutes.
 */

interface ListScenario {
  name: string;
  query: string;
  /** The same filter as a WHERE clause on loads (with $1 the organization), for the count check. */
  where: string;
}

const GET_BY_ID = 'GET /loads/{id} (baseline)';
const STATS = 'GET /loads/stats';

export async function run() {
  const reuse = process.env.BENCH_REUSE;
  const options = { connections: 8, durationSeconds: 8, rounds: 2, warmupSeconds: 2, ...optionsFromEnv() };
  const db = reuse ? await reusedBenchDatabase(reuse) : await benchDatabase();
  const { pool } = db.database;
  const { app, url, services } = await listenApp(db.database, benchConfig({ WORKERS_ENABLED: 'false' }));
  const autovacuum = new AutovacuumStandIn(pool);
  let writer: Writer | null = null;
  try {
    const { org, other, loadCount, otherCount } = reuse
      ? await existingOrganizations(pool)
      : await newOrganizations(services);
    const window = Math.min(loadCount, Number(process.env.WRITER_WINDOW ?? 50_000));
    console.log(
      `database: ${reuse ? `BENCH_REUSE ${reuse}` : process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'embedded PostgreSQL'}; ` +
        `${loadCount.toLocaleString('en-US')} loads`,
    );
    const keys = services.apiKeys;
    // A reused database keeps the keys of earlier runs: each run's keys are named apart.
    const name = reuse ? `bench ${new Date().toISOString()}` : 'bench';
    const headers = { 'x-api-key': (await keys.create(systemScope(org.id), { name })).key };
    const otherHeaders = { 'x-api-key': (await keys.create(systemScope(other.id), { name })).key };
    const api = `${url}/api/v1`;

    await autovacuum.start();
    console.log(`autovacuum: ${autovacuum.active ? 'off on the server; the bench stands in for it' : 'on'}`);
    let ingestion: Ingestion | null = null;
    if (!reuse) {
      const cpu = cpuTimes();
      const timings = await ingest(api, headers, 'BL', 0, loadCount, { onBatch: progress(loadCount) });
      ingestion = { ...timings, cpu: cpuSince(cpu) };
      await ingest(api, otherHeaders, 'OL', 0, otherCount);
      await seedRelated(pool, org.id, 'BL', loadCount);
      await seedRelated(pool, other.id, 'OL', otherCount);
    }
    // The measurement starts where autovacuum's next visit has caught up with the ingestion.
    await autovacuum.pass();
    await checkCounter(pool, org.id);

    const { rows: picked } = await pool.query<{ id: string }>(
      `SELECT id FROM loads WHERE organization_id = $1 AND load_number = $2`,
      [org.id, `BL-${Math.floor(loadCount / 2)}`],
    );
    const loadId = defined(picked[0], 'picked[0]').id;
    const list = listScenarios(loadCount);
    const only = process.env.BENCH_ONLY;
    const wanted = only?.split('|');
    const kept = wanted ? list.filter((s) => wanted.some((w) => s.name.includes(w))) : list;
    const withStats = !wanted || wanted.some((w) => STATS.includes(w));
    const scenarios: Scenario[] = [
      ...kept.map((s) => ({ name: s.name, url: `${api}/loads${s.query ? `?${s.query}` : ''}`, headers })),
      ...(withStats ? [{ name: STATS, url: `${api}/loads/stats`, headers }] : []),
      { name: GET_BY_ID, url: `${api}/loads/${loadId}`, headers },
    ];
    for (const s of scenarios) await expectOk(s);

    const quiet = await measure(scenarios, options);
    const w = new Writer(api, headers, loadCount, window);
    writer = w;
    w.start();
    const busy = await measure(scenarios, options);
    await w.stop();
    writer = null;
    await autovacuum.stop();

    // Exact counts: every list's total_count against a plain count of the same filter in SQL.
    const counts = new Map<string, { api: number; sql: number }>();
    for (const s of kept) {
      const res = await fetch(`${api}/loads?${s.query}`, { headers });
      const body = z.object({ pagination: z.object({ total_count: z.number() }) }).parse(await res.json());
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM loads WHERE organization_id = $1${s.where ? ` AND ${s.where}` : ''}`,
        [org.id],
      );
      counts.set(s.name, { api: body.pagination.total_count, sql: defined(rows[0], 'rows[0]').n });
    }
    if (withStats) {
      // The stats' total and one tab, against SQL.
      const res = await fetch(`${api}/loads/stats`, { headers });
      const stats = z
        .object({ total_count: z.number(), by_tab: z.object({ active_offers: z.number() }) })
        .parse(await res.json());
      const { rows } = await pool.query<{ n: number; offered: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE EXISTS (SELECT 1 FROM offers o
           WHERE o.load_id = loads.id AND o.status = 'pending'))::int AS offered
         FROM loads WHERE organization_id = $1`,
        [org.id],
      );
      counts.set(STATS, { api: stats.total_count, sql: defined(rows[0], 'rows[0]').n });
      counts.set(`${STATS} active_offers`, {
        api: stats.by_tab.active_offers,
        sql: defined(rows[0], 'rows[0]').offered,
      });
    }

    report({ loadCount, otherCount, window, options, ingestion, writer: w, quiet, busy, counts, autovacuum });
    const wrong = [...counts].filter(([, c]) => c.api !== c.sql);
    if (wrong.length) throw new Error(`total_count differs from a count in SQL: ${JSON.stringify(wrong)}`);
    const failed = [...quiet, ...busy].filter((m) => m.errors > 0 || m.non2xx > 0);
    if (failed.length) throw new Error(`requests failed: ${failed.map((m) => m.name).join(', ')}`);
    await recordResults('loads', headline(ingestion, quiet, busy));

    const slowest = [...busy].filter((m) => m.name !== GET_BY_ID).sort((a, b) => b.p99 - a.p99)[0];
    // BENCH_EXPLAIN=all explains every scenario, not only the slowest.
    const explained = process.env.BENCH_EXPLAIN === 'all' ? busy.map((m) => m.name) : [slowest?.name];
    for (const name of explained) {
      const s = scenarios.find((x) => x.name === name);
      if (!s || s.name === GET_BY_ID) continue;
      console.log(`\n### ${name === slowest?.name ? 'slowest scenario under writes: ' : ''}${name}\n`);
      await explainScenario(pool, s);
    }
  } finally {
    await writer?.stop();
    await autovacuum.stop();
    await app.close();
    // BENCH_KEEP=1 leaves the database in place (on BENCH_DATABASE_URL's server) to look into.
    if (reuse || (process.env.BENCH_KEEP === '1' && process.env.BENCH_DATABASE_URL)) {
      console.log(`kept database: ${db.url}`);
      await db.database.close();
    } else {
      await db.close();
    }
  }
}

type Ingestion = Awaited<ReturnType<typeof ingest>> & { cpu: CpuTimes };

/** The two organizations of a fresh run, and how many loads each is given. */
async function newOrganizations(services: Services) {
  const loadCount = Number(process.env.LOADS ?? (smoke ? 400 : 1_000_000));
  const otherCount = Math.max(100, Math.round(loadCount / 10));
  const org = await services.auth.createOrganization('Bench Brokerage');
  const other = await services.auth.createOrganization('Other Brokerage');
  return { org, other, loadCount, otherCount };
}

/** The two organizations of a kept database (BENCH_REUSE), found by name, with their loads counted. */
async function existingOrganizations(pool: pg.Pool) {
  const { rows } = await pool.query<{ id: string; name: string; n: number }>(
    `SELECT o.id, o.name, (SELECT count(*)::int FROM loads l WHERE l.organization_id = o.id) AS n
     FROM organizations o WHERE o.name IN ('Bench Brokerage', 'Other Brokerage')`,
  );
  const org = rows.find((r) => r.name === 'Bench Brokerage');
  const other = rows.find((r) => r.name === 'Other Brokerage');
  if (!org || !other) throw new Error('BENCH_REUSE: the database has no Bench Brokerage / Other Brokerage');
  return { org, other, loadCount: org.n, otherCount: other.n };
}

function progress(total: number) {
  let done = 0;
  let next = 0.1;
  return () => {
    done += 1000;
    if (done >= next * total) {
      console.log(`  ingested ${Math.min(done, total).toLocaleString('en-US')}`);
      next += 0.1;
    }
  };
}

/** The list scenarios: common dashboard filters, every order_by both ways, and the spec's other filters. */
function listScenarios(loadCount: number): ListScenario[] {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const weekFrom = day(pickupAt(Math.floor(loadCount * 0.9)));
  const weekTo = day(Date.parse(`${weekFrom}T00:00:00Z`) + 6 * 86_400_000);
  const pickupWeek = `pickup_date_from=${weekFrom}&pickup_date_to=${weekTo}`;
  const pickupWeekSql = `pickup_date >= '${weekFrom}T00:00:00Z' AND pickup_date < '${weekTo}T00:00:00Z'::timestamptz + interval '1 day'`;
  const deliveryFrom = day(pickupAt(Math.floor(loadCount * 0.5)));
  const deliveryTo = day(Date.parse(`${deliveryFrom}T00:00:00Z`) + 13 * 86_400_000);
  const deepPage = Math.max(2, Math.min(5000, Math.floor(loadCount / 20)));
  const sorts = [
    'created_at',
    'updated_at',
    'load_number',
    'pickup_date',
    'delivery_date',
    'posted_rate',
    'distance',
    'last_posted_at',
  ];
  return [
    { name: 'page 1, default sort', query: '', where: '' },
    { name: `page=${deepPage}`, query: `page=${deepPage}`, where: '' },
    { name: 'search=memphis', query: 'search=memphis', where: `search_text LIKE '%memphis%'` },
    { name: 'origin_city=dallas', query: 'origin_city=dallas', where: `origin_city ILIKE '%dallas%'` },
    {
      name: 'customer_name=Customer 17',
      query: 'customer_name=Customer%2017',
      where: `lower(customer_name) = 'customer 17'`,
    },
    { name: 'carrier_rep_name=rep 7', query: 'carrier_rep_name=rep%207', where: `rep_names && '{rep 7}'` },
    { name: 'tms_status=open', query: 'tms_status=open', where: `lower(tms_status) = 'open'` },
    {
      name: 'customer_name + status',
      query: 'customer_name=Customer%2017&status=Unassigned',
      where: `lower(customer_name) = 'customer 17' AND load_status = 'Unassigned'`,
    },
    {
      name: 'status + equipment + pickup week',
      query: `status=Unassigned&equipment_type=VAN&${pickupWeek}`,
      where: `load_status = 'Unassigned' AND equipment_type = 'VAN' AND ${pickupWeekSql}`,
    },
    ...sorts.flatMap((field) =>
      [true, false].map((desc) => ({
        name: `order_by=${field} ${desc ? 'desc' : 'asc'}`,
        query: `order_by=${field}&order_desc=${desc}`,
        where: '',
      })),
    ),
    {
      name: 'destination_city=chicago',
      query: 'destination_city=chicago',
      where: `destination_city ILIKE '%chicago%'`,
    },
    { name: 'mode=FTL', query: 'mode=FTL', where: `mode = 'FTL'` },
    { name: 'equipment_type=REEFER', query: 'equipment_type=REEFER', where: `equipment_type = 'REEFER'` },
    { name: 'is_posted=true', query: 'is_posted=true', where: 'is_posted' },
    {
      name: 'posted_rate 1000-1500, by rate',
      query: 'posted_rate_min=1000&posted_rate_max=1500&order_by=posted_rate',
      where: 'posted_rate BETWEEN 1000 AND 1500',
    },
    { name: 'distance_min=2000', query: 'distance_min=2000', where: 'distance >= 2000' },
    { name: 'pickup week', query: pickupWeek, where: pickupWeekSql },
    {
      name: 'tms_status + delivery 2 weeks',
      query: `tms_status=booked&delivery_date_from=${deliveryFrom}&delivery_date_to=${deliveryTo}`,
      where: `lower(tms_status) = 'booked' AND delivery_date >= '${deliveryFrom}T00:00:00Z' AND delivery_date < '${deliveryTo}T00:00:00Z'::timestamptz + interval '1 day'`,
    },
    {
      name: 'carrier_rep_name + status',
      query: 'carrier_rep_name=rep%207&status=Dispatched',
      where: `rep_names && '{rep 7}' AND load_status = 'Dispatched'`,
    },
    {
      name: 'origin_city + pickup week',
      query: `origin_city=dallas&${pickupWeek}`,
      where: `origin_city ILIKE '%dallas%' AND ${pickupWeekSql}`,
    },
    {
      name: 'tab=active_offers',
      query: 'tab=active_offers',
      where: `EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'pending')`,
    },
    {
      name: 'tab=active_offers + origin_city',
      query: 'tab=active_offers&origin_city=dallas',
      where: `origin_city ILIKE '%dallas%' AND EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'pending')`,
    },
  ];
}

/**
 * A TMS sync: every 500 ms, 100 existing loads (at random among the newest `window`) re-sent in
 * full through POST /loads/batch with a changed rate. A tick whose predecessor is still in flight
 * waits for it (and counts as late).
 */
class Writer {
  readonly batchMs: number[] = [];
  late = 0;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private round = 0;
  private started = 0;
  private stopped = 0;
  error: unknown = null;

  constructor(
    private readonly api: string,
    private readonly headers: Record<string, string>,
    private readonly loadCount: number,
    private readonly window: number,
  ) {}

  start() {
    this.started = performance.now();
    this.timer = setInterval(() => this.tick(), 500);
  }

  private tick() {
    if (this.inFlight) {
      this.late++;
      return;
    }
    const round = ++this.round;
    const picked = new Set<number>();
    while (picked.size < Math.min(100, this.window)) {
      picked.add(this.loadCount - 1 - Math.floor(Math.random() * this.window));
    }
    const loads = [...picked].map((i) => loadPayload('BL', i, 1 + (round % 97)));
    this.inFlight = postBatch(this.api, this.headers, loads)
      .then((ms) => {
        this.batchMs.push(ms);
      })
      .catch((err: unknown) => {
        this.error ??= err;
      })
      .finally(() => {
        this.inFlight = null;
      });
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
    this.stopped ||= performance.now();
    if (this.error) throw this.error;
  }

  get batchesPerSecond() {
    return this.batchMs.length / (((this.stopped || performance.now()) - this.started) / 1000);
  }
}

async function expectOk(s: Scenario) {
  const res = await fetch(s.url, { headers: s.headers });
  if (!res.ok) throw new Error(`${s.name}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

/** Carriers, and offers (a pending one on 3% of loads), calls and open outreaches, in SQL. */
async function seedRelated(pool: pg.Pool, orgId: string, prefix: string, count: number) {
  const carriers = Math.min(5000, count);
  await pool.query(
    `INSERT INTO carriers (id, organization_id, name, mc_number, dot_number)
     SELECT 'car_' || $2 || '_' || n, $1, 'Carrier ' || n, (100000 + n)::text, (2000000 + n)::text
     FROM generate_series(0, $3::int - 1) AS n`,
    [orgId, prefix, carriers],
  );
  await pool.query(
    `INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id)
     SELECT 'ofr_' || md5(l.id || '/' || k)::uuid, l.organization_id, l.id, 900 + (l.h % 3000) + k * 25,
       CASE WHEN l.h % 100 < 3 AND k = 0 THEN 'pending' ELSE 'rejected' END, 'api',
       'car_' || $2 || '_' || ((l.h + k * 7) % $3::int)
     FROM (SELECT id, organization_id, hashtext(id) & 2147483647 AS h FROM loads WHERE organization_id = $1) l
     CROSS JOIN LATERAL generate_series(0, l.h % 3) AS k
     WHERE l.h % 100 < 8`,
    [orgId, prefix, carriers],
  );
  await pool.query(
    `INSERT INTO calls (id, organization_id, load_id, status, call_time)
     SELECT 'call_' || md5(id)::uuid, organization_id, id, 'COMPLETED', created_at
     FROM loads WHERE organization_id = $1 AND (hashtext(id) & 2147483647) % 100 BETWEEN 10 AND 14`,
    [orgId],
  );
  await pool.query(
    `INSERT INTO outreaches (id, organization_id, carrier_id, load_id, modality, status)
     SELECT 'otr_' || md5(id)::uuid, organization_id, 'car_' || $2 || '_1', id, 'call', 'active'
     FROM loads WHERE organization_id = $1 AND (hashtext(id) & 2147483647) % 100 BETWEEN 20 AND 21`,
    [orgId, prefix],
  );
}

async function checkCounter(pool: pg.Pool, orgId: string) {
  const { rows } = await pool.query(
    `SELECT (SELECT count(*) FROM loads WHERE organization_id = $1)::int AS counted,
            (SELECT sum(n) FROM load_status_counts WHERE organization_id = $1)::int AS counter`,
    [orgId],
  );
  if (rows[0].counted !== rows[0].counter) throw new Error(`counter drifted: ${JSON.stringify(rows[0])}`);
}

function report(r: {
  loadCount: number;
  otherCount: number;
  window: number;
  options: { connections: number; durationSeconds: number; rounds: number; requests?: number };
  ingestion: Ingestion | null;
  writer: Writer;
  quiet: Measurement[];
  busy: Measurement[];
  counts: Map<string, { api: number; sql: number }>;
  autovacuum: AutovacuumStandIn;
}) {
  const i = r.ingestion;
  if (i)
    console.log(
      `\n### ingestion: ${i.loads.toLocaleString('en-US')} loads through POST /loads/batch (1000 a request, ` +
        `2-3 stops each, two in flight)\n\n${Math.round(i.loads / i.seconds)} loads/s; batch p50 ` +
        `${percentile(i.batchMs, 50).toFixed(0)} ms, p95 ${percentile(i.batchMs, 95).toFixed(0)} ms, ` +
        `p99 ${percentile(i.batchMs, 99).toFixed(0)} ms; CPU per 1000 loads: node ${perThousand(i.cpu.nodeMs, i.loads)} ms, ` +
        `PostgreSQL ${perThousand(i.cpu.postgresMs, i.loads)} ms`,
    );
  console.log(
    `\nwriter (100 loads of the newest ${r.window.toLocaleString('en-US')} re-sent with a changed rate every 500 ms): ` +
      `${r.writer.batchMs.length} batches, ${r.writer.batchesPerSecond.toFixed(2)}/s, ` +
      `p50 ${percentile(r.writer.batchMs, 50).toFixed(0)} ms, p99 ${percentile(r.writer.batchMs, 99).toFixed(0)} ms, ` +
      `${r.writer.late} ticks late`,
  );
  const runs = new Map<string, { n: number; ms: number }>();
  for (const l of r.autovacuum.log) {
    const key = `${l.action} ${l.table}`;
    const e = runs.get(key) ?? { n: 0, ms: 0 };
    runs.set(key, { n: e.n + 1, ms: e.ms + l.ms });
  }
  const summary = [...runs].map(([k, e]) => `${k} x${e.n} (${(e.ms / 1000).toFixed(1)} s)`);
  console.log(`\nautovacuum stand-in ran: ${summary.length ? summary.join('; ') : 'nothing'}`);
  const texts = namedTextCount();
  console.log(`statement texts prepared by name: ${texts.named} of at most ${texts.max}`);
  const measured = r.options.requests
    ? `${r.options.requests} requests`
    : `${r.options.durationSeconds} s x ${r.options.rounds} rounds, medians`;
  console.log(
    `\n### GET /loads at ${r.loadCount.toLocaleString('en-US')} loads (+ ${r.otherCount.toLocaleString('en-US')} ` +
      `in a second organization); ${r.options.connections} connections, ${measured}\n`,
  );
  console.log(
    '| scenario | total_count | quiet req/s | p50 ms | p99 ms | vs by id | under writes req/s | p50 ms | p99 ms | vs by id |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const base = (rows: Measurement[]) =>
    defined(
      rows.find((m) => m.name === GET_BY_ID),
      'rows.find((m) => m.name === GET_BY_ID)',
    ).rps;
  for (const q of r.quiet) {
    const b = defined(
      r.busy.find((m) => m.name === q.name),
      'r.busy.find((m) => m.name === q.name)',
    );
    const c = r.counts.get(q.name);
    const count = c ? `${c.api.toLocaleString('en-US')}${c.api === c.sql ? '' : ` (SQL: ${c.sql})`}` : '';
    console.log(
      `| ${q.name} | ${count} | ${Math.round(q.rps)} | ${q.p50.toFixed(1)} | ${q.p99.toFixed(1)} | ` +
        `${(q.rps / base(r.quiet)).toFixed(2)}x | ${Math.round(b.rps)} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ` +
        `${(b.rps / base(r.busy)).toFixed(2)}x |`,
    );
  }
}

/** Ingestion, the slowest list scenario's p99 and a load by id, quiet and under writes. */
function headline(ingestion: Ingestion | null, quiet: Measurement[], busy: Measurement[]): Figure[] {
  const lists = (rows: Measurement[]) => rows.filter((m) => m.name !== GET_BY_ID);
  const worst = (rows: Measurement[]) => Math.max(...lists(rows).map((m) => m.p99));
  const byId = (rows: Measurement[]) => rows.find((m) => m.name === GET_BY_ID)?.p99 ?? Number.NaN;
  const perK = (ms: number | null, loads: number) => (ms === null ? Number.NaN : (ms * 1000) / loads);
  return [
    ...(ingestion
      ? [
          {
            name: 'ingestion through POST /loads/batch',
            value: ingestion.loads / ingestion.seconds,
            unit: 'loads/s',
          },
          {
            name: 'ingestion, node CPU per 1,000 loads',
            value: perK(ingestion.cpu.nodeMs, ingestion.loads),
            unit: 'ms',
          },
          {
            name: 'ingestion, PostgreSQL CPU per 1,000 loads',
            value: perK(ingestion.cpu.postgresMs, ingestion.loads),
            unit: 'ms',
          },
        ]
      : []),
    { name: 'slowest list scenario p99, quiet', value: worst(quiet), unit: 'ms' },
    { name: 'slowest list scenario p99, under writes', value: worst(busy), unit: 'ms' },
    { name: 'GET /loads/{id} p99, quiet', value: byId(quiet), unit: 'ms' },
    { name: 'GET /loads/{id} p99, under writes', value: byId(busy), unit: 'ms' },
  ];
}

/** Runs the scenario's request twice (a fresh count, then one brought up to date) and explains its SQL. */
async function explainScenario(pool: pg.Pool, s: Scenario) {
  const captured = await statementsDuring(
    pool,
    async () => {
      await expectOk(s);
      await expectOk(s);
    },
    { plainText: true },
  );
  const seen = new Set<string>();
  for (const q of captured) {
    if (!/^\s*(select|with)/i.test(q.text) || /api_keys/.test(q.text) || seen.has(q.text)) continue;
    seen.add(q.text);
    const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
    console.log(`\n${q.text}\n\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}
