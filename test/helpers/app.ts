import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, inject } from 'vitest';
import { type App, type AppDeps, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDatabase, type Database, type DatabaseOptions } from '../../src/db/client.js';
import { manualProductClock, startProductClock } from '../../src/db/product-clock.js';
import { SimulatedEmailSender } from '../../src/integrations/email/simulated-email-sender.js';
import { type Clock, ManualClock, realClock } from '../../src/lib/clock.js';
import { defined } from '../../src/lib/defined.js';
import type { WallClock } from '../../src/lib/wall-clock.js';
import { loggerOptions } from '../../src/logger.js';
import { buildServices, type Services } from '../../src/services.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { atAddressOf } from './pgbouncer.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-signing';

export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig(
    {
      NODE_ENV: 'test',
      JWT_SECRET: TEST_JWT_SECRET,
      LOG_LEVEL: 'silent',
      // Tests sign in often from one address; the rate-limit tests set their own low limits.
      RATE_LIMIT_AUTH_PER_MINUTE: '100000',
      RATE_LIMIT_API_KEYS_PER_MINUTE: '100000',
      RATE_LIMIT_UPLOADS_PER_MINUTE: '100000',
      RATE_LIMIT_GENERAL_PER_MINUTE: '100000',
      // Simulated e-mail and WhatsApp carriers answer only in the tests that ask them to.
      SIMULATION_PROFILE: 'silent',
      ...env,
    },
    () => {},
  );
}

export interface TestApp {
  app: App;
  database: Database;
  config: Config;
  /** The app's own services (the composition root's), for setup a test does not drive over HTTP. */
  services: Services;
  /** The product clock the app runs on (a ManualClock when the test asked for one). */
  clock: Clock;
  /** Log lines written by the app, parsed; present when `captureLogs` was asked for. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string | undefined>;
  /** Share another app's database (several instances behind one load balancer). */
  databaseUrl?: string;
  /** How the app reaches its database: behind a transaction-mode pooler, and LISTEN's own URL. */
  database?: Pick<DatabaseOptions, 'pooler' | 'directUrl' | 'replicas'>;
  captureLogs?: boolean;
  /**
   * The wall clock credentials, invitations, webhook retries and rate limits are timed by (a
   * SettableWallClock the test moves); the machine's without one.
   */
  wallClock?: WallClock;
  /** Registers extra routes before the app is ready: probes for the shared HTTP layer. */
  extend?: (app: App, deps: AppDeps) => void | Promise<void>;
  /**
   * Runs the app on a manual clock standing at this instant, which only the test moves
   * (`manualClockOf`): the app and the database's envoy_now() read it. The file's database goes
   * back to the machine's clock when the app closes.
   */
  clock?: Date;
}

/**
 * The running test file's database, created on first use. A worker runs file after file on the
 * same modules (vitest's `isolate: false`): `dropFileDatabase` (test/helpers/file-setup.ts, after
 * each file) drops it and forgets it, so that the next file gets its own.
 */
let fileDatabase: Promise<TestDatabase> | undefined;

/** This test file's own database, created on first use and dropped after the file. */
export function fileDatabaseUrl(): Promise<string> {
  fileDatabase ??= createTestDatabase();
  return fileDatabase.then((d) => d.url);
}

/** Drops the running file's database, when it made one. */
export async function dropFileDatabase(): Promise<void> {
  const created = fileDatabase;
  fileDatabase = undefined;
  if (created) await (await created).drop();
}

/**
 * The run's PgBouncer address for the database at `url` (TEST_POOLER=pgbouncer), or none. Only the
 * app goes through it; tests reading the database themselves use the direct URL.
 */
function poolerFor(url: string): string | null {
  const pooler = inject('poolerUrl');
  return pooler ? atAddressOf(url, pooler) : null;
}

/** The real app on a real, migrated database; driven with `app.inject`. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const url = options.databaseUrl ?? (await fileDatabaseUrl());
  const logs: Record<string, unknown>[] = [];
  const config = testConfig({ ...(options.captureLogs ? { LOG_LEVEL: 'debug' } : {}), ...options.env });
  // A test that says how to reach the database is taken at its word; the others go through the
  // run's pooler when there is one.
  const pooled = options.database ? null : poolerFor(url);
  const database = createDatabase(pooled ?? url, {
    poolMax: 5,
    connectTimeoutMs: 5000,
    statementTimeoutMs: 30_000,
    replicas: config.db.replicas,
    ...(pooled ? { pooler: 'transaction', directUrl: url } : {}),
    ...options.database,
  });
  const logger = options.captureLogs
    ? pino(
        loggerOptions('debug'),
        new Writable({
          write(chunk, _enc, done) {
            for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
            done();
          },
        }),
      )
    : pino({ level: 'silent' });
  // A simulated clock when SIMULATION_SPEED is set, on this database even when another app of the
  // file ran another mode on it before; the machine's clock otherwise, without a word to the
  // database (whose envoy_now() is the machine's unless a simulated app of the file left it).
  const simulated = config.simulation.speed
    ? await startProductClock(database.pool, config.simulation.speed, {
        takeOver: true,
        start: config.simulation.start,
      })
    : null;
  const manual = options.clock ? await manualProductClock(database.pool, options.clock) : null;
  const clock = manual ?? simulated?.clock ?? realClock;
  const services = buildServices({
    config,
    database,
    log: logger,
    clock,
    ...(options.wallClock ? { wallClock: options.wallClock } : {}),
  });
  const deps: AppDeps = { config, database, services };
  const app = await buildApp(deps, { logger });
  await options.extend?.(app, deps);
  await app.ready();
  return {
    app,
    database,
    config,
    services,
    clock,
    logs,
    async close() {
      await app.close();
      await simulated?.stop();
      if (simulated || manual) {
        // The file's next app finds the database on the machine's clock again.
        await (await startProductClock(database.pool, null, { takeOver: true })).stop();
      }
      await database.close();
    },
  };
}

/**
 * The app for a describe block: built before its tests, closed after them. The returned object is
 * filled in by beforeAll, so read its fields inside tests, not at collection time (read earlier, they throw).
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let built: TestApp | undefined;
  beforeAll(async () => {
    built = await buildTestApp(options);
  });
  afterAll(async () => {
    await built?.close();
  });
  const current = () => defined(built, 'the test app (read inside a test: beforeAll builds it)');
  return {
    get app() {
      return current().app;
    },
    get database() {
      return current().database;
    },
    get config() {
      return current().config;
    },
    get services() {
      return current().services;
    },
    get clock() {
      return current().clock;
    },
    get logs() {
      return current().logs;
    },
    close: () => current().close(),
  };
}

/** The manual clock of an app built with `clock` set, for the test to move. */
export function manualClockOf(t: TestApp): ManualClock {
  const clock = t.clock;
  if (!(clock instanceof ManualClock))
    throw new Error(`the app runs on a ${clock.kind} clock, not a manual one`);
  return clock;
}

/**
 * Runs one round of the named worker of this app (see `buildServices`), as its loop would, and
 * returns how much it did. Tests that drive background work this way build their app with
 * `WORKERS_ENABLED: 'false'`, so no loop races them.
 */
export async function drainWorker(t: TestApp, name: string): Promise<number> {
  const worker = t.services.workers.find((w) => w.name === name);
  if (!worker) throw new Error(`no worker '${name}' (${t.services.workers.map((w) => w.name).join(', ')})`);
  return worker.drain();
}

/** The app's e-mail channel, simulated when no e-mail provider is configured (the tests' default). */
export function simulatedEmail(t: TestApp): SimulatedEmailSender {
  const email = t.services.channels.email;
  if (!(email instanceof SimulatedEmailSender)) {
    throw new Error(`the app's e-mail channel is a ${email.constructor.name}, not the simulated one`);
  }
  return email;
}

/**
 * Moves the app's manual clock `stepMs` at a time (firing what comes due, as `advanceTo` does)
 * until `done` holds for what `probe` reads, and returns that reading; fails once `withinMs` of
 * product time has passed without it. For what the simulated providers play on the product clock.
 */
export async function advanceUntil<T>(
  t: TestApp,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { stepMs = 1000, withinMs = 3_600_000 }: { stepMs?: number; withinMs?: number } = {},
): Promise<T> {
  const clock = manualClockOf(t);
  const until = clock.ms() + withinMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (clock.ms() >= until) {
      throw new Error(
        `not done within ${withinMs} ms of product time; last value: ${JSON.stringify(value).slice(0, 800)}`,
      );
    }
    await clock.advanceTo(Math.min(until, clock.ms() + stepMs));
  }
}
