// The two sides of bench/job-runner.ts: the project's WorkerRunner and pg-boss, each as two
// instances over pools of their own, measured alike.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { type Job, type JobResult, PgBoss } from 'pg-boss';
import pino from 'pino';
import { createDatabase, type Database } from '../../src/db/client.js';
import { type Worker, WorkerRunner } from '../../src/workers/worker.js';
import { cpuSince, cpuTimes } from './cpu.js';
import { sized, smoke } from './harness.js';
import { percentile } from './load-payloads.js';
import { type Figure, recordResults } from './results.js';

const RUNS = sized('BENCH_JOBS_RUNS', 3, 1);
const INSTANCES = 2;
export const POLL_MS = 500;
/** The retry schedule scaled so its first step (5 s) is 1 s: pg-boss's retryDelay is whole seconds. */
export const RETRY_SCALE = 0.2;
const FIRST_RETRY_S = 1;
const BATCH = 200;
const DONE_TIMEOUT_MS = smoke ? 60_000 : 300_000;

export const silent: FastifyBaseLogger = pino({ level: 'silent' });

/** Counts every query a pool's clients send (pool.query goes through a client too). */
export class RoundTrips {
  count = 0;
  watch(pool: pg.Pool) {
    pool.on('connect', (client) => {
      const query = client.query;
      // Wrapped per client so only the runners' pools are counted, not the benchmark's own.
      Reflect.set(client, 'query', (...args: unknown[]) => {
        this.count++;
        return Reflect.apply(query, client, args);
      });
    });
    return pool;
  }
}

export interface SideResult {
  jobs: number;
  seconds: number;
  p50: number;
  p99: number;
  roundTrips: number;
  cpuMs: number;
  doneTwice: number;
}

/** One side of a workload, set up anew for each run. */
export interface Side {
  /** Starts the side's instances. */
  start(trips: RoundTrips): Promise<void>;
  /** Enqueues the work (for pg-boss: also the jobs). */
  enqueue(): Promise<void>;
  stop(): Promise<void>;
}

/** Two WorkerRunners, each over a pool of its own, running `workerOf(database)`. */
export function currentSide(url: string, workerOf: (database: Database) => Worker) {
  const runners: { runner: WorkerRunner; database: Database }[] = [];
  return {
    async start(trips: RoundTrips) {
      for (let i = 0; i < INSTANCES; i++) {
        const database = createDatabase(url, {
          poolMax: 10,
          connectTimeoutMs: 10_000,
          statementTimeoutMs: 120_000,
        });
        trips.watch(database.pool);
        const runner = new WorkerRunner([workerOf(database)], silent);
        runner.start();
        runners.push({ runner, database });
      }
    },
    async stop() {
      for (const { runner, database } of runners.splice(0)) {
        await runner.stop();
        await database.close();
      }
    },
  };
}

/** Two pg-boss instances (schema `pgboss` of the same database), each over a pool of its own. */
export function bossSide<T extends object>(
  url: string,
  queue: string,
  handler: (database: Database, jobs: Job<T>[]) => Promise<JobResult[]>,
  { notify = false } = {},
) {
  const instances: { boss: PgBoss; pool: pg.Pool; database: Database }[] = [];
  return {
    async start(trips: RoundTrips) {
      for (let i = 0; i < INSTANCES; i++) {
        const pool = trips.watch(new pg.Pool({ connectionString: url, max: 10 }));
        // An idle connection cut off (the database dropped at the end while a closing client was
        // still attached: a CI run) emits 'error' on the pool; unheard, it would end the benchmark.
        pool.on('error', (err) => console.error(`pg-boss pool: ${err.message}`));
        const boss = new PgBoss({
          db: { executeSql: (text, values) => pool.query(text, values), listen: listenOn(url) },
          schema: 'pgboss',
          useListenNotify: notify,
        });
        boss.on('error', (err) => console.error(`pg-boss: ${err.message}`));
        await boss.start();
        if (i === 0) await boss.createQueue(queue, { retryLimit: 7, retryDelay: FIRST_RETRY_S, notify });
        const database = createDatabase(url, {
          poolMax: 10,
          connectTimeoutMs: 10_000,
          statementTimeoutMs: 120_000,
        });
        trips.watch(database.pool);
        await boss.work<T>(
          queue,
          {
            batchSize: BATCH,
            perJobResults: true,
            pollingIntervalSeconds: POLL_MS / 1000,
            // With NOTIFY a worker would otherwise poll every 30 s, and a retry (due later, so never
            // announced) would wait that long.
            notifyPollingIntervalSeconds: POLL_MS / 1000,
            burstWhenBatchFull: true,
          },
          (jobs) => handler(database, jobs),
        );
        instances.push({ boss, pool, database });
      }
    },
    first: () => instances[0]?.boss,
    async stop() {
      for (const { boss, pool, database } of instances.splice(0)) {
        await boss.stop({ graceful: true, close: false });
        await pool.end();
        await database.close();
      }
    },
  };
}

/**
 * pg-boss's LISTEN over a connection of its own (its notifications wake a worker at once instead of
 * at its next poll); not counted as round trips.
 */
const listenOn =
  (url: string) =>
  async (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', (err) => console.error(`pg-boss LISTEN: ${err.message}`));
    await client.connect();
    client.on('notification', (message) => {
      if (message.channel === channel) onNotification(message.payload ?? '');
    });
    await client.query(`LISTEN "${channel}"`);
    onReconnect();
    return { close: () => client.end() };
  };

/** Runs one side once: start, enqueue, wait until `done` says all is done, stop; measures. */
export async function measureSide(
  side: Side,
  done: () => Promise<boolean>,
  outcome: () => Promise<Omit<SideResult, 'roundTrips' | 'cpuMs'>>,
): Promise<SideResult> {
  const trips = new RoundTrips();
  await side.start(trips);
  const cpu = cpuTimes();
  const startTrips = trips.count;
  await side.enqueue();
  const deadline = Date.now() + DONE_TIMEOUT_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the jobs did not finish in time');
    await sleep(50);
  }
  const used = cpuSince(cpu);
  const roundTrips = trips.count - startTrips;
  await side.stop();
  return { ...(await outcome()), roundTrips, cpuMs: used.nodeMs };
}

const median = (values: number[]) => percentile(values, 50);

/** Prints the runs of both sides and the medians, with pg-boss / current ratios. */
export function report(title: string, results: { current: SideResult[]; boss: SideResult[] }) {
  const row = (name: string, r: SideResult, run: string) =>
    `| ${name} | ${run} | ${r.jobs} | ${(r.jobs / r.seconds).toFixed(0)} | ${r.p50.toFixed(0)} | ${r.p99.toFixed(0)} | ${(r.roundTrips / r.jobs).toFixed(2)} | ${(r.cpuMs / r.jobs).toFixed(2)} | ${r.doneTwice} |`;
  console.log(`\n### ${title}\n`);
  console.log(
    '| runner | run | jobs | jobs/s | p50 ms | p99 ms | round trips/job | CPU ms/job | done twice |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const medians = (list: SideResult[]): SideResult => ({
    jobs: median(list.map((r) => r.jobs)),
    seconds: median(list.map((r) => r.seconds)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    roundTrips: median(list.map((r) => r.roundTrips)),
    cpuMs: median(list.map((r) => r.cpuMs)),
    doneTwice: Math.max(...list.map((r) => r.doneTwice)),
  });
  for (const [name, list] of [
    ['current', results.current],
    ['pg-boss', results.boss],
  ] as const) {
    for (const [i, r] of list.entries()) console.log(row(name, r, String(i + 1)));
  }
  const c = medians(results.current);
  const b = medians(results.boss);
  console.log(row('current', c, 'median'));
  console.log(row('pg-boss', b, 'median'));
  const ratio = (x: number, y: number) => (y === 0 ? 'n/a' : (x / y).toFixed(2));
  console.log(
    `\npg-boss / current (medians): jobs/s ${ratio(b.jobs / b.seconds, c.jobs / c.seconds)}, ` +
      `p50 ${ratio(b.p50, c.p50)}, p99 ${ratio(b.p99, c.p99)}, ` +
      `round trips/job ${ratio(b.roundTrips / b.jobs, c.roundTrips / c.jobs)}, ` +
      `CPU/job ${ratio(b.cpuMs / b.jobs, c.cpuMs / c.jobs)}; done twice: current ${c.doneTwice}, pg-boss ${b.doneTwice}`,
  );
  return [...figuresOf(`${title}, our runner`, c), ...figuresOf(`${title}, pg-boss`, b)];
}

function figuresOf(name: string, r: SideResult): Figure[] {
  return [
    { name: `${name}: jobs/s`, value: r.jobs / r.seconds, unit: 'jobs/s' },
    { name: `${name}: p50`, value: r.p50, unit: 'ms' },
    { name: `${name}: p99`, value: r.p99, unit: 'ms' },
    { name: `${name}: round trips per job`, value: r.roundTrips / r.jobs, unit: '' },
    { name: `${name}: CPU per job`, value: r.cpuMs / r.jobs, unit: 'ms' },
    { name: `${name}: done twice`, value: r.doneTwice, unit: '', target: '0' },
  ];
}

/** Runs both sides RUNS times, alternating which goes first. */
export async function compare(
  title: string,
  sides: { current: () => Promise<SideResult>; boss: () => Promise<SideResult> },
) {
  const results: { current: SideResult[]; boss: SideResult[] } = { current: [], boss: [] };
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? (['current', 'boss'] as const) : (['boss', 'current'] as const);
    for (const name of order) {
      const r = await sides[name]();
      results[name].push(r);
      console.log(`  ${title} run ${run + 1} ${name}: ${r.jobs} jobs in ${r.seconds.toFixed(2)} s`);
    }
  }
  await recordResults('job-runner', report(title, results));
}
