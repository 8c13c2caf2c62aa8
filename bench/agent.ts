import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import type { Database, Db } from '../src/db/client.js';
import { defined } from '../src/lib/defined.js';
import type { AgentService } from '../src/modules/agent/agent-service.js';
import {
  contactWindowOf,
  readAgentSettings,
  updateAgentSettings,
} from '../src/modules/agent/agent-settings.js';
import {
  type LoadLane,
  laneKey,
  type RankedCandidate,
  rankCandidates,
  type SelectionRules,
} from '../src/modules/agent/carrier-selection.js';
import { pickWave, selectWave } from '../src/modules/agent/wave-pick.js';
import { insertOrganization } from '../src/modules/auth/auth-repository.js';
import { buildServices, type Services } from '../src/services.js';
import { statementsDuring } from '../test/helpers/statements.js';
import { benchConfig, benchDatabase, sized, smoke } from './lib/harness.js';
import { type Figure, recordResults } from './lib/results.js';

/**
 * The load-working agent at scale: one organization with ~40 lanes, 20,000 carriers with ~3 lane
 * preferences each, 10,000 workable loads on those lanes and ~2,000 delivered loads with historic
 * offers, seeded set-based in SQL. Measures
 *   1. one load's carrier selection (`selectWave`) on random loads: p50/p95/p99/max per round
 *      (target p95 < 20 ms), and prints the EXPLAIN (ANALYZE, BUFFERS) of one selection;
 *   2. planning the first wave of every load with `AgentService.planDue()` (no sending): seconds,
 *      loads/s and outreaches queued (target < 60 s), per batch size, twice each.
 *
 * BENCH_AGENT_LOADS / BENCH_AGENT_CARRIERS scale the seed; BENCH_AGENT_SAMPLES loads per selection
 * round (500); BENCH_ROUNDS selection rounds (3); BENCH_AGENT_BATCH batch sizes, comma-separated
 * ("50,200"); BENCH_AGENT_RUNS planning runs per batch size (2); BENCH_DATABASE_URL a server of
 * your own (else embedded PostgreSQL).
 */

const LOADS = sized('BENCH_AGENT_LOADS', 10_000, 200);
const CARRIERS = sized('BENCH_AGENT_CARRIERS', 20_000, 400);
const HISTORIC_LOADS = Math.round(LOADS / 5);
const SAMPLES = sized('BENCH_AGENT_SAMPLES', 500, 20);
const ROUNDS = sized('BENCH_ROUNDS', 3, 1);
const BATCHES = (process.env.BENCH_AGENT_BATCH ?? (smoke ? '200' : '50,200')).split(',').map(Number);
const RUNS = sized('BENCH_AGENT_RUNS', 2, 1);
const SELECTION_TARGET_MS = 20;
const PLANNING_TARGET_S = 60;

const CITIES: [string, string][] = [
  ['Chicago', 'IL'],
  ['Dallas', 'TX'],
  ['Houston', 'TX'],
  ['Atlanta', 'GA'],
  ['Memphis', 'TN'],
  ['Denver', 'CO'],
  ['Phoenix', 'AZ'],
  ['Los Angeles', 'CA'],
  ['Seattle', 'WA'],
  ['Salt Lake City', 'UT'],
  ['Kansas City', 'MO'],
  ['Minneapolis', 'MN'],
  ['Detroit', 'MI'],
  ['Indianapolis', 'IN'],
  ['Columbus', 'OH'],
  ['Philadelphia', 'PA'],
  ['Newark', 'NJ'],
  ['Charlotte', 'NC'],
  ['Jacksonville', 'FL'],
  ['Miami', 'FL'],
  ['Laredo', 'TX'],
  ['Louisville', 'KY'],
];
const EQUIPMENT = ['VAN', 'REEFER', 'FLATBED'];

interface Lane {
  id: string;
  originCity: string | null;
  originState: string;
  destinationCity: string | null;
  destinationState: string;
  equipment: string | null;
  /** The cities loads on this lane use (the lane's own when it names them). */
  loadOriginCity: string;
  loadDestinationCity: string;
}

/**
 * ~40 lanes over 20 state pairs: each pair has a state-to-state lane and one more specific lane
 * (cities, cities + equipment, or states + equipment), so a load often matches two lanes.
 */
export function lanes(): Lane[] {
  const out: Lane[] = [];
  // 20 distinct state pairs (freight corridors), each between two cities of CITIES.
  const pairs: [number, number][] = [
    [0, 1],
    [1, 0],
    [3, 18],
    [18, 3],
    [7, 6],
    [6, 7],
    [2, 4],
    [4, 0],
    [12, 14],
    [14, 16],
    [15, 17],
    [17, 3],
    [19, 2],
    [20, 13],
    [8, 7],
    [9, 5],
    [10, 11],
    [11, 0],
    [13, 21],
    [21, 19],
  ];
  for (const [p, [o, d]] of pairs.entries()) {
    const [oc, os] = defined(CITIES[o], 'CITIES[o]');
    const [dc, ds] = defined(CITIES[d], 'CITIES[d]');
    const base = { originState: os, destinationState: ds, loadOriginCity: oc, loadDestinationCity: dc };
    out.push({
      id: `lane_bench_${p}_a`,
      originCity: null,
      destinationCity: null,
      equipment: null,
      ...base,
    });
    const variant = p % 3;
    out.push({
      id: `lane_bench_${p}_b`,
      originCity: oc,
      destinationCity: variant === 2 ? null : dc,
      equipment: variant === 0 ? null : defined(EQUIPMENT[p % 3], 'EQUIPMENT[p % 3]'),
      ...base,
    });
  }
  return out;
}

export async function seed(client: pg.PoolClient, orgId: string, laneList: Lane[]) {
  const started = performance.now();
  const step = async (label: string, text: string, values: unknown[]) => {
    const t = performance.now();
    const r = await client.query(text, values);
    console.log(`  ${label}: ${r.rowCount} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  await step(
    'lanes',
    `INSERT INTO lanes (id, organization_id, origin_city, origin_state, destination_city, destination_state, equipment_type)
     SELECT id, $1, oc, os, dc, ds, eq
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(id, oc, os, dc, ds, eq)`,
    [
      orgId,
      laneList.map((l) => l.id),
      laneList.map((l) => l.originCity),
      laneList.map((l) => l.originState),
      laneList.map((l) => l.destinationCity),
      laneList.map((l) => l.destinationState),
      laneList.map((l) => l.equipment),
    ],
  );
  // Carriers: attributes from cheap hashes of i. ~1% each inactive / BLOCKED / stop-contact /
  // insurance expired; 2% have no e-mail of their own but a dispatcher contact that has one.
  await step(
    'carriers',
    `INSERT INTO carriers (id, organization_id, name, mc_number, email, phone, is_active, equipment_types,
       insurance_expiration, on_time_pickup_pct, on_time_delivery_pct, routing_guide_tier, compliance_status,
       stop_contact_requested_at, home_state, created_at, updated_at)
     SELECT 'car_bench_' || i, $1, 'Carrier ' || i, 'MC' || (100000 + i),
       CASE WHEN i % 50 = 7 THEN NULL ELSE 'dispatch' || i || '@carrier' || i || '.example' END,
       '+1555' || lpad(i::text, 7, '0'),
       i % 97 <> 3,
       CASE WHEN i % 20 = 0 THEN NULL
            WHEN i % 20 < 4 THEN ARRAY['VAN', 'REEFER']
            WHEN i % 20 = 4 THEN ARRAY['FLATBED', 'STEPDECK']
            ELSE ARRAY[($3::text[])[1 + (i * 7) % 3]] END,
       CASE WHEN i % 79 = 5 THEN now() - interval '10 days' ELSE now() + interval '200 days' END,
       CASE WHEN i % 10 = 9 THEN NULL ELSE 70 + (hashtext('p' || i) & 1023) % 30 END,
       CASE WHEN i % 13 = 12 THEN NULL ELSE 70 + (hashtext('d' || i) & 1023) % 30 END,
       CASE WHEN i % 5 = 4 THEN NULL ELSE 1 + (i * 3) % 4 END,
       CASE WHEN i % 89 = 11 THEN 'BLOCKED' WHEN i % 3 = 0 THEN 'PASSED' ELSE 'UNVERIFIED' END,
       CASE WHEN i % 83 = 13 THEN now() - interval '3 days' END,
       ($2::text[])[1 + (hashtext('s' || i) & 1023) % cardinality($2::text[])],
       now(), now()
     FROM generate_series(1, $4::int) AS i`,
    [orgId, CITIES.map((c) => c[1]), EQUIPMENT, CARRIERS],
  );
  await step(
    'carrier_contacts',
    `INSERT INTO carrier_contacts (id, organization_id, carrier_id, contact_type, name, email, phone, position)
     SELECT 'cc_bench_' || i, $1, 'car_bench_' || i, 'DISPATCHER', 'Dispatch ' || i,
       'desk' || i || '@carrier' || i || '.example', '+1556' || lpad(i::text, 7, '0'), 0
     FROM generate_series(1, $2::int) AS i WHERE i % 50 = 7`,
    [orgId, CARRIERS],
  );
  // Three preferences per carrier on distinct lanes; mostly primary with a lane tier (30% untiered),
  // 3% inactive, some restricted / admin_disabled / dnu.
  await step(
    'lane_preferences',
    `INSERT INTO lane_preferences (id, organization_id, carrier_id, lane_id, is_active, preference_type,
       routing_guide_tier, dnu, created_at, updated_at)
     SELECT 'lp_bench_' || i || '_' || k, $1, 'car_bench_' || i, ($2::text[])[1 + (i * 3 + k * 13) % cardinality($2::text[])],
       (hashtext('a' || i || k) & 1023) % 100 >= 3,
       CASE WHEN k = 2 AND i % 20 = 0 THEN 'restricted'
            WHEN k = 1 AND i % 50 = 1 THEN 'admin_disabled'
            ELSE 'primary' END,
       CASE WHEN (i + k) % 10 < 3 THEN NULL ELSE 1 + (i + k) % 4 END,
       k = 0 AND i % 61 = 0,
       now(), now()
     FROM generate_series(1, $3::int) AS i CROSS JOIN generate_series(0, 2) AS k`,
    [orgId, laneList.map((l) => l.id), CARRIERS],
  );
  const laneArrays = [
    laneList.map((l) => l.originState),
    laneList.map((l) => l.loadOriginCity),
    laneList.map((l) => l.destinationState),
    laneList.map((l) => l.loadDestinationCity),
    laneList.map((l) => l.equipment),
  ];
  const insertLoads = (label: string, prefix: string, count: number, workable: boolean) =>
    step(
      label,
      `WITH ln AS (SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                     WITH ORDINALITY AS x(os, oc, ds, dc, eq, n))
       INSERT INTO loads (id, organization_id, load_number, equipment_type, load_status, posted_rate, max_buy_rate,
         distance, weight, commodity, assigned_to_ai_agent, origin_city, origin_state, destination_city,
         destination_state, pickup_date, delivery_date, search_text, created_at, updated_at)
       SELECT 'load_' || md5($2 || i)::uuid, $1, $2 || '-' || i,
         coalesce(ln.eq, ($8::text[])[1 + (i * 7) % 3]), $9, 1200 + (i * 53) % 3000, 1500 + (i * 53) % 3000,
         200 + (i * 37) % 2000, 20000 + i % 20000, 'General freight', $10,
         ln.oc, ln.os, ln.dc, ln.ds,
         now() + ((i % 7 + 1) || ' days')::interval, now() + ((i % 7 + 3) || ' days')::interval,
         lower($2 || '-' || i || ' ' || ln.oc || ' ' || ln.dc),
         now() - ((i % 1000) || ' minutes')::interval, now()
       FROM generate_series(1, $11::int) AS i
       JOIN ln ON ln.n = 1 + (i * 7) % cardinality($3::text[])`,
      [orgId, prefix, ...laneArrays, EQUIPMENT, workable ? 'Unassigned' : 'Delivered', workable, count],
    );
  await insertLoads('workable loads', 'AG', LOADS, true);
  await insertLoads('historic loads', 'HI', HISTORIC_LOADS, false);
  // Historic offers: 1-3 per delivered load from carriers that prefer (or not) the lane.
  await step(
    'historic offers',
    `INSERT INTO offers (id, organization_id, load_id, offer_amount, status, source, carrier_id, created_at, updated_at)
     SELECT 'ofr_' || md5(l.id || '/' || k)::uuid, l.organization_id, l.id, 1000 + (l.h % 2000) + k * 25,
       CASE WHEN k = 0 THEN 'accepted' ELSE 'rejected' END, 'api',
       'car_bench_' || (1 + (l.h + k * 7919) % $2::int), l.created_at - interval '30 days', l.created_at - interval '30 days'
     FROM (SELECT id, organization_id, created_at, hashtext(id) & 2147483647 AS h
           FROM loads WHERE organization_id = $1 AND NOT assigned_to_ai_agent) l
     CROSS JOIN LATERAL generate_series(0, l.h % 3) AS k`,
    [orgId, CARRIERS],
  );
  await client.query('VACUUM ANALYZE lanes, carriers, carrier_contacts, lane_preferences, loads, offers');
  console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const percentile = (sorted: number[], p: number) =>
  defined(
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)],
    'sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]',
  );
const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2
    ? defined(s[mid], 's[mid]')
    : (defined(s[mid - 1], 's[mid - 1]') + defined(s[mid], 's[mid]')) / 2;
};
const fmt = (n: number, digits = 1) => n.toFixed(digits);

/** A deterministic shuffle (so rounds and runs sample alike). */
function sample<T>(items: T[], n: number, seedValue: number): T[] {
  const a = [...items];
  let s = seedValue;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [a[i], a[j]] = [defined(a[j], 'a[j]'), defined(a[i], 'a[i]')];
  }
  return a.slice(0, n);
}

async function measureSelection(
  db: Db,
  pool: pg.Pool,
  orgId: string,
  rules: SelectionRules,
  figures: Figure[],
) {
  const { rows } = await pool.query<LoadLane>(
    `SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
     FROM loads WHERE organization_id = $1 AND assigned_to_ai_agent ORDER BY id`,
    [orgId],
  );
  const ids = rows.map((r) => r.id);
  const laneOf = new Map(rows.map((r) => [r.id, r]));
  // What the agent does for most loads: pick from the lane's ranking, made once per lane.
  const rankings = new Map<string, RankedCandidate[]>();
  for (const lane of rows) {
    if (!rankings.has(laneKey(lane))) rankings.set(laneKey(lane), await rankCandidates(db, orgId, lane));
  }
  const modes: [string, (id: string) => Promise<unknown[]>][] = [
    [
      'cold: rank the lane, then pick (`selectWave`)',
      async (id) => (await selectWave(db, orgId, id, rules, [], new Date())).wave,
    ],
    [
      'rank the lane alone (`rankCandidates`)',
      (id) => rankCandidates(db, orgId, defined(laneOf.get(id), 'laneOf.get(id)')),
    ],
    [
      "pick from the lane's ranking (`pickWave`, the agent's usual case)",
      async (id) =>
        (
          await pickWave(
            db,
            orgId,
            id,
            defined(
              rankings.get(laneKey(defined(laneOf.get(id), 'laneOf.get(id)'))),
              'rankings.get(laneKey(laneOf.get(id)))',
            ),
            rules,
            undefined,
            [],
            new Date(),
          )
        ).wave,
    ],
  ];
  console.log(
    `\n### one load's carrier selection (${SAMPLES} random loads x ${ROUNDS} rounds, wave_size ${rules.waveSize}; median of rounds)\n`,
  );
  console.log('| what | p50 ms | p95 ms | p99 ms | max ms |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  let coldP95 = 0;
  for (const [label, select] of modes) {
    // Warm-up: 100 selections on other loads than the measured ones.
    for (const id of sample(ids, 100, 99)) await select(id);
    const perRound: { p50: number; p95: number; p99: number; max: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const times: number[] = [];
      for (const id of sample(ids, SAMPLES, round + 1)) {
        const t = performance.now();
        await select(id);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      perRound.push({
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        max: defined(times[times.length - 1], 'times[times.length - 1]'),
      });
    }
    const m = (k: 'p50' | 'p95' | 'p99' | 'max') => median(perRound.map((r) => r[k]));
    if (!coldP95) coldP95 = m('p95');
    console.log(
      `| ${label} | ${fmt(m('p50'))} | **${fmt(m('p95'))}** | ${fmt(m('p99'))} | ${fmt(m('max'))} |`,
    );
    const what = label.replace(/ \(.*\)$/, '');
    figures.push(
      { name: `one load's selection, ${what}: p50`, value: m('p50'), unit: 'ms' },
      {
        name: `one load's selection, ${what}: p95`,
        value: m('p95'),
        unit: 'ms',
        // The target is the cold selection's, the first measured.
        ...(figures.length === 0 ? { target: `≤ ${SELECTION_TARGET_MS}` } : {}),
      },
    );
  }
  const p95 = coldP95;
  console.log(
    `\ncold selection p95 ${fmt(p95)} ms vs target ${SELECTION_TARGET_MS} ms: ${p95 < SELECTION_TARGET_MS ? 'MET' : 'MISSED'}`,
  );

  // The plan of one selection: the load whose selection was nearest the median.
  const id = defined(sample(ids, 1, 4242)[0], 'sample(ids, 1, 4242)[0]');
  const captured = await statementsDuring(pool, () => selectWave(db, orgId, id, rules, [], new Date()));
  for (const q of captured) {
    const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.text}`, q.values);
    console.log(`\n#### EXPLAIN (ANALYZE, BUFFERS) of a selectWave statement, load ${id}\n`);
    console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return p95;
}

/** Runs `fn` with every statement sent on any pg client timed; prints the top statements by total time. */
async function profileStatements(title: string, fn: () => Promise<void>) {
  const stats = new Map<string, { n: number; ms: number }>();
  // Pool.query (outside transactions) and Client.query (inside them); a query Pool.query hands to
  // a client goes with a callback, so it is not counted twice.
  const protos = [pg.Client.prototype, pg.Pool.prototype];
  const originals = protos.map((p) => Object.getOwnPropertyDescriptor(p, 'query'));
  const wrap = (original: (...a: never[]) => unknown) =>
    function (this: unknown, ...args: unknown[]) {
      const config = args[0];
      const text =
        typeof config === 'string'
          ? config
          : config && typeof config === 'object' && 'text' in config
            ? String(config.text)
            : '';
      const result: unknown = Reflect.apply(original, this, args);
      if (!text || !(result instanceof Promise)) return result;
      const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
      const t = performance.now();
      return result.finally(() => {
        const e = stats.get(key) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += performance.now() - t;
        stats.set(key, e);
      });
    };
  for (const p of protos) {
    Object.defineProperty(p, 'query', { configurable: true, writable: true, value: wrap(p.query) });
  }
  const started = performance.now();
  try {
    await fn();
  } finally {
    // Put back as it was: the prototype's own method, or none (pg.Pool's query is its parent class's).
    protos.forEach((p, i) => {
      const own = originals[i];
      if (own) Object.defineProperty(p, 'query', own);
      else Reflect.deleteProperty(p, 'query');
    });
  }
  const wall = performance.now() - started;
  console.log(`\n### ${title}: time per statement (client-side, 2 workers overlap)\n`);
  console.log('| statement | calls | total s | mean ms |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [key, e] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 14)) {
    console.log(
      `| \`${key.replace(/\|/g, '\\|')}\` | ${e.n} | ${fmt(e.ms / 1000, 2)} | ${fmt(e.ms / e.n, 2)} |`,
    );
  }
  console.log(`\nwall ${fmt(wall / 1000)} s`);
}

async function resetAgentState(pool: pg.Pool) {
  await pool.query('TRUNCATE outreaches, agent_load_states, agent_messages CASCADE');
  await pool.query('VACUUM ANALYZE outreaches, agent_load_states');
}

/** Calls planDue until it leases nothing. */
/**
 * Calls planDue until it leases nothing. `outreaches` grows from empty to ~46,000 rows during the
 * run; a database with autovacuum re-analyzes it on its own as it grows. Where autovacuum is off
 * (this machine's PostgreSQL 15 runs so), the planner would keep the empty table's statistics and
 * scan it whole for every check, so the run analyzes it itself every 10 calls, as autovacuum would.
 */
async function planAll(agent: AgentService, pool: pg.Pool) {
  const autovacuum =
    defined(
      (await pool.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0],
      "(await pool.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]",
    ).autovacuum === 'on';
  let rounds = 0;
  let leased = 0;
  let maxRoundMs = 0;
  let idle = 0;
  for (;;) {
    const t = performance.now();
    const n = await agent.planDue();
    maxRoundMs = Math.max(maxRoundMs, performance.now() - t);
    if (n === 0) {
      // The first call may lease nothing: the states it inserts are due from its own clock reading.
      if (leased > 0 || idle++ > 0) break;
      continue;
    }
    rounds++;
    leased += n;
    if (!autovacuum && rounds % 10 === 0) await pool.query('ANALYZE outreaches');
  }
  return { rounds, leased, maxRoundMs };
}

async function measurePlanning(database: Database, pool: pg.Pool, log: FastifyBaseLogger, figures: Figure[]) {
  // The agent as the service builds it, with fast, silent simulated channels and no workers.
  const agentWith = (batch: number) =>
    buildServices({
      config: benchConfig({
        AGENT_BATCH_SIZE: String(batch),
        SIMULATION_SPEED: '1000',
        SIMULATION_PROFILE: 'silent',
        EMAIL_FROM: 'agent@bench.example',
        EMAIL_REPLY_DOMAIN: 'reply.bench.example',
        WORKERS_ENABLED: 'false',
      }),
      database,
      log,
    });
  const built: Services[] = [];
  const results: {
    batch: number;
    run: number;
    seconds: number;
    calls: number;
    planned: number;
    outreaches: number;
    maxRoundMs: number;
  }[] = [];
  try {
    for (const batch of BATCHES) {
      for (let run = 1; run <= RUNS; run++) {
        await resetAgentState(pool);
        const services = agentWith(batch);
        built.push(services);
        const { agent } = services;
        const started = performance.now();
        const { rounds, leased, maxRoundMs } = await planAll(agent, pool);
        const seconds = (performance.now() - started) / 1000;
        const { rows } = await pool.query<{ planned: number; decided: number; outreaches: number }>(
          `SELECT (SELECT count(*) FROM agent_load_states WHERE waves_planned >= 1)::int AS planned,
                  (SELECT count(*) FROM agent_load_states WHERE waves_planned >= 1 OR last_decision IS NOT NULL)::int AS decided,
                  (SELECT count(*) FROM outreaches WHERE is_automated AND status = 'pending')::int AS outreaches`,
        );
        const r = defined(rows[0], 'rows[0]');
        if (r.decided < LOADS) throw new Error(`only ${r.decided} of ${LOADS} loads planned or decided`);
        if (leased !== r.decided) console.log(`  note: leased ${leased} times for ${r.decided} loads`);
        console.log(
          `  batch ${batch} run ${run}: ${fmt(seconds)} s, ${rounds} planDue calls, ${r.planned} waves, ${r.outreaches} outreaches`,
        );
        results.push({
          batch,
          run,
          seconds,
          calls: rounds,
          planned: r.planned,
          outreaches: r.outreaches,
          maxRoundMs,
        });
      }
    }
    if (process.env.BENCH_AGENT_PROFILE !== '0') {
      await resetAgentState(pool);
      const services = agentWith(defined(BATCHES[0], 'BATCHES[0]'));
      built.push(services);
      const { agent } = services;
      await profileStatements(`one more planning run, batch ${BATCHES[0]}`, async () => {
        await planAll(agent, pool);
      });
    }
  } finally {
    for (const services of built) await services.close();
  }
  console.log(
    `\n### Planning the first wave of ${LOADS.toLocaleString('en-US')} loads (planDue, no sending)\n`,
  );
  console.log(
    '| batch | run | seconds | loads/s | planDue calls | slowest call ms | waves planned | outreaches queued |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results) {
    console.log(
      `| ${r.batch} | ${r.run} | ${fmt(r.seconds)} | ${Math.round(LOADS / r.seconds)} | ${r.calls} | ${Math.round(r.maxRoundMs)} | ${r.planned} | ${r.outreaches} |`,
    );
  }
  for (const batch of BATCHES) {
    const s = median(results.filter((r) => r.batch === batch).map((r) => r.seconds));
    console.log(
      `\nbatch ${batch}: median ${fmt(s)} s (${Math.round(LOADS / s)} loads/s) vs target ${PLANNING_TARGET_S} s: ${s < PLANNING_TARGET_S ? 'MET' : 'MISSED'}`,
    );
    figures.push({
      name: `planning the first wave of ${LOADS.toLocaleString('en-US')} loads, ${batch} a round`,
      value: s,
      unit: 's',
      target: `≤ ${PLANNING_TARGET_S}`,
    });
  }
}

export async function run() {
  const db = await benchDatabase();
  const { pool } = db.database;
  const log: FastifyBaseLogger = pino({ level: 'silent' });
  console.log(`database: ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'embedded PostgreSQL'}`);
  try {
    const org = await insertOrganization(db.database.db, 'Bench Brokerage');
    const laneList = lanes();
    console.log(
      `seeding ${LOADS} workable + ${HISTORIC_LOADS} historic loads, ${CARRIERS} carriers, ${laneList.length} lanes`,
    );
    const client = await pool.connect();
    try {
      await client.query('SET statement_timeout = 0');
      await seed(client, org.id, laneList);
    } finally {
      client.release();
    }
    const settings = await updateAgentSettings(db.database.db, org.id, {
      quiet_hours_start: 0,
      quiet_hours_end: 0,
      channel_order: ['email'],
    });
    const stats = await pool.query(
      `SELECT count(*)::int AS candidates, round(avg(n))::int AS per_lane FROM (
         SELECT lp.lane_id, count(*) AS n FROM lane_preferences lp
         WHERE lp.is_active AND NOT lp.dnu AND lp.preference_type = 'primary' GROUP BY lp.lane_id) x`,
    );
    console.log(
      `lanes with primary preferences: ${stats.rows[0].candidates}, ~${stats.rows[0].per_lane} each`,
    );
    const rules: SelectionRules = {
      waveSize: settings.wave_size,
      contactWindow: contactWindowOf(settings),
      dailyCapPerCarrier: settings.daily_cap_per_carrier,
    };
    const figures: Figure[] = [];
    await measureSelection(db.database.db, pool, org.id, rules, figures);
    await measurePlanning(db.database, pool, log, figures);
    await recordResults('agent', figures);
    const after = await readAgentSettings(db.database.db, org.id);
    if (after.channel_order.join() !== 'email') throw new Error('settings changed under the bench');
  } finally {
    await db.close();
  }
}
