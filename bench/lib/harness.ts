import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { type App, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { runMigrations } from '../../src/db/migrate.js';
import { defined } from '../../src/lib/defined.js';
import { buildServices, type Services } from '../../src/services.js';
import { portOf } from '../../test/helpers/listening.js';

/**
 * `BENCH_SMOKE=1` runs a benchmark at a size that takes seconds, so CI runs every one of them and
 * a benchmark that breaks fails the build. Its figures mean nothing.
 */
export const smoke = process.env.BENCH_SMOKE === '1';

/** A size knob: the environment variable when set, else the smoke or the full size. */
export function sized(envName: string, full: number, smokeSize: number): number {
  const given = process.env[envName];
  if (given !== undefined && given !== '') return Number(given);
  return smoke ? smokeSize : full;
}

export interface BenchDatabase {
  url: string;
  database: Database;
  close(): Promise<void>;
}

/**
 * A migrated database of the benchmark's own: a fresh database on BENCH_DATABASE_URL's server when
 * set, else a throwaway embedded PostgreSQL. Dropped (or deleted) on close.
 */
export async function benchDatabase(poolMax = 20): Promise<BenchDatabase> {
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => {};
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres({
      // Not mkdtemp: its 0700 folder would keep out the postgres user the server runs as under root.
      dataDir: path.join(os.tmpdir(), `envoy-bench-${process.pid}-${Date.now()}`),
      port: 54000 + Math.floor(Math.random() * 1000),
      persistent: false,
      ownSignals: false,
    });
    serverUrl = embedded.url;
    stopServer = () => embedded.stop();
  }
  const name = `envoy_bench_${Date.now().toString(36)}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = createDatabase(url.toString(), {
    poolMax,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 120_000,
  });
  await runMigrations(database.pool);
  return {
    url: url.toString(),
    database,
    async close() {
      await database.close();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await stopServer();
    },
  };
}

/**
 * An existing database on BENCH_DATABASE_URL's server (by name), migrated to the current schema so
 * a new migration applies; kept on close.
 */
export async function reusedBenchDatabase(name: string, poolMax = 20): Promise<BenchDatabase> {
  const serverUrl = process.env.BENCH_DATABASE_URL;
  if (!serverUrl) throw new Error('reusing a database needs BENCH_DATABASE_URL (its server)');
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = createDatabase(url.toString(), {
    poolMax,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 600_000,
  });
  await runMigrations(database.pool);
  return { url: url.toString(), database, close: () => database.close() };
}

async function adminQuery(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function benchConfig(env: Record<string, string> = {}): Config {
  return loadConfig(
    {
      NODE_ENV: 'test',
      JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256',
      LOG_LEVEL: 'silent',
      // Benchmarks measure throughput, not the limiter: lift the limits far out of reach.
      RATE_LIMIT_GENERAL_PER_MINUTE: '100000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '100000000',
      RATE_LIMIT_API_KEYS_PER_MINUTE: '100000000',
      // Any benchmark can be run with its large bodies read on the main thread (0) or in N threads.
      ...(process.env.BODY_WORKER_THREADS ? { BODY_WORKER_THREADS: process.env.BODY_WORKER_THREADS } : {}),
      ...env,
    },
    () => {},
  );
}

/** The real app, listening on a random loopback port, with logging off. */
export async function listenApp(
  database: Database,
  config = benchConfig(),
): Promise<{ app: App; url: string; services: Services }> {
  const logger = pino({ level: 'silent' });
  const services = buildServices({ config, database, log: logger });
  const app = await buildApp({ config, database, services }, { logger });
  return { app, url: await listen(app), services };
}

/**
 * An instance on a connection pool of its own to `url` (`pooler: 'transaction'` behind PgBouncer),
 * its listeners on `directUrl`; `close` stops the app and its pool.
 */
export async function listenAppOn(
  url: string,
  directUrl: string,
  pooler: 'none' | 'transaction',
  config = benchConfig(),
): Promise<{ url: string; close(): Promise<void> }> {
  const database = createDatabase(url, {
    poolMax: 10,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 60_000,
    pooler,
    directUrl,
  });
  const started = await listenApp(database, config);
  return {
    url: started.url,
    async close() {
      await started.app.close();
      await database.close();
    },
  };
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = portOf(app.server);
  return `http://127.0.0.1:${port}`;
}

export interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export interface Measurement {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface RunOptions {
  connections: number;
  durationSeconds: number;
  rounds: number;
  warmupSeconds: number;
  /** When set, each run sends this many requests instead of running for durationSeconds. */
  requests?: number;
}

export const defaultRunOptions: RunOptions = {
  connections: 10,
  durationSeconds: 5,
  rounds: 3,
  warmupSeconds: 2,
};

async function once(scenario: Scenario, connections: number, duration: number, requests?: number) {
  return autocannon({
    url: scenario.url,
    method: scenario.method ?? 'GET',
    headers: scenario.headers,
    body: scenario.body,
    connections,
    ...(requests ? { amount: requests } : { duration }),
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? defined(sorted[mid], 'sorted[mid]')
    : (defined(sorted[mid - 1], 'sorted[mid - 1]') + defined(sorted[mid], 'sorted[mid]')) / 2;
};

/**
 * Warms up, then runs each scenario `rounds` times, interleaving scenarios so drift on a noisy
 * machine hits them alike; reports the median of the rounds.
 */
export async function measure(
  scenarios: Scenario[],
  options: Partial<RunOptions> = {},
): Promise<Measurement[]> {
  const o = { ...defaultRunOptions, ...options };
  if (o.warmupSeconds > 0) for (const s of scenarios) await once(s, o.connections, o.warmupSeconds);
  const results = new Map<
    string,
    { rps: number[]; p50: number[]; p99: number[]; errors: number; non2xx: number }
  >();
  for (let round = 0; round < o.rounds; round++) {
    for (const s of scenarios) {
      const r = await once(s, o.connections, o.durationSeconds, o.requests);
      const entry = results.get(s.name) ?? { rps: [], p50: [], p99: [], errors: 0, non2xx: 0 };
      entry.rps.push(r.requests.average);
      entry.p50.push(r.latency.p50);
      entry.p99.push(r.latency.p99);
      entry.errors += r.errors + r.timeouts;
      entry.non2xx += r.non2xx;
      results.set(s.name, entry);
    }
  }
  return scenarios.map((s) => {
    const e = defined(results.get(s.name), 'results.get(s.name)');
    return {
      name: s.name,
      rps: median(e.rps),
      p50: median(e.p50),
      p99: median(e.p99),
      errors: e.errors,
      non2xx: e.non2xx,
    };
  });
}

/** Prints a Markdown table; `baseline` names the row the ratio column divides by. */
export function printTable(title: string, rows: Measurement[], baseline?: string) {
  // A benchmark whose requests fail measures nothing; at smoke size in CI that is a failure.
  const broken = rows.filter((r) => r.errors > 0 || r.non2xx > 0);
  if (smoke && broken.length > 0) {
    throw new Error(`${title}: requests failed in ${broken.map((r) => r.name).join(', ')}`);
  }
  const base = rows.find((r) => r.name === baseline);
  console.log(`\n### ${title}\n`);
  console.log('| scenario | req/s | p50 ms | p99 ms | vs baseline | errors | non-2xx |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const ratio = base ? `${(r.rps / base.rps).toFixed(2)}x` : '';
    console.log(
      `| ${r.name} | ${Math.round(r.rps)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${ratio} | ${r.errors} | ${r.non2xx} |`,
    );
  }
}

/**
 * At smoke size (what CI runs): one round of a few requests per scenario, no warm-up.
 * BENCH_DURATION, BENCH_ROUNDS and BENCH_CONNECTIONS override.
 */
export function optionsFromEnv(): Partial<RunOptions> {
  const out: Partial<RunOptions> = smoke ? { requests: 20, rounds: 1, warmupSeconds: 0 } : {};
  if (process.env.BENCH_DURATION) out.durationSeconds = Number(process.env.BENCH_DURATION);
  if (process.env.BENCH_ROUNDS) out.rounds = Number(process.env.BENCH_ROUNDS);
  if (process.env.BENCH_CONNECTIONS) out.connections = Number(process.env.BENCH_CONNECTIONS);
  return out;
}
