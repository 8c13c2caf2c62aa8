import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { install } from '@sinonjs/fake-timers';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/db/client.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { runMigrations } from '../../src/db/migrate.js';
import { defined } from '../../src/lib/defined.js';

/**
 * Simulated time for the whole application. The service reads "now" in two places: JavaScript's
 * Date (offer and call timestamps, the planner's caches) and PostgreSQL's now() (the contact
 * guard, the daily cap, the recontact window, due contacts, every created_at). The benchmark moves
 * both together:
 *   - Date is replaced (only Date: timers stay real) by @sinonjs/fake-timers;
 *   - each run's database gets a schema `simclock` with a one-row table and a function now()
 *     reading it, ahead of pg_catalog on the database's search_path, so every now() of the
 *     service's SQL, column defaults included (the migrations run after it), reads the simulated
 *     time. No production code knows about it.
 * (The run's databases also commit without waiting for the disk: a throwaway database, and the
 * machine's fsync is not what is measured.)
 */
export class SimClock {
  private readonly fake: ReturnType<typeof install>;
  private at: number;

  constructor(start: Date) {
    this.at = start.getTime();
    this.fake = install({ now: this.at, toFake: ['Date'] });
  }

  now(): Date {
    return new Date(this.at);
  }

  ms(): number {
    return this.at;
  }

  /** Moves both clocks forward to `at` (never back). */
  async set(at: number, database: Database): Promise<void> {
    if (at <= this.at) return;
    this.at = at;
    this.fake.setSystemTime(at);
    await database.pool.query('UPDATE simclock.clock SET t = $1', [new Date(at)]);
  }

  /** Starts a new run at `start`: time goes back once, between runs on fresh databases. */
  restart(start: Date) {
    this.at = start.getTime();
    this.fake.setSystemTime(this.at);
  }

  uninstall() {
    this.fake.uninstall();
  }
}

export interface SimServer {
  /** A fresh migrated database whose now() reads the simulated clock, starting at `start`. */
  database(label: string, start: Date): Promise<Database>;
  close(): Promise<void>;
}

/** The PostgreSQL server of the benchmark: BENCH_DATABASE_URL's, else a throwaway embedded one. */
export async function simServer(): Promise<SimServer> {
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => {};
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres({
      dataDir: path.join(os.tmpdir(), `envoy-outcomes-${process.pid}-${Date.now()}`),
      port: 55000 + Math.floor(Math.random() * 1000),
      persistent: false,
      ownSignals: false,
    });
    serverUrl = embedded.url;
    stopServer = () => embedded.stop();
  }
  const created: { name: string; database: Database }[] = [];
  const admin = async (sqlText: string, url = defined(serverUrl, 'serverUrl'), values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sqlText, values);
    } finally {
      await client.end();
    }
  };
  return {
    async database(label, start) {
      const name =
        `envoy_outcomes_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
      await admin(`CREATE DATABASE "${name}"`);
      const url = new URL(defined(serverUrl, 'serverUrl'));
      url.pathname = `/${name}`;
      await admin(
        `CREATE SCHEMA simclock;
         CREATE TABLE simclock.clock (t timestamptz NOT NULL);
         INSERT INTO simclock.clock VALUES ('${start.toISOString()}');
         CREATE FUNCTION simclock.now() RETURNS timestamptz LANGUAGE sql STABLE
           AS 'SELECT t FROM simclock.clock';
         ALTER DATABASE "${name}" SET search_path = public, simclock, pg_catalog;
         ALTER DATABASE "${name}" SET synchronous_commit = off;`,
        url.toString(),
      );
      const database = createDatabase(url.toString(), {
        poolMax: 10,
        connectTimeoutMs: 10_000,
        statementTimeoutMs: 120_000,
      });
      await runMigrations(database.pool);
      const check = await database.pool.query<{ t: Date }>('SELECT now() AS t');
      if (defined(check.rows[0], 'check.rows[0]').t.getTime() !== start.getTime()) {
        throw new Error('the database does not read the simulated clock');
      }
      created.push({ name, database });
      return database;
    },
    async close() {
      for (const { name, database } of created) {
        await database.close().catch(() => {});
        // BENCH_OUTCOMES_KEEP_DATABASES=1 keeps them, to study a run afterwards (bench/outcomes/missed.ts).
        if (process.env.BENCH_OUTCOMES_KEEP_DATABASES === '1') console.log(`kept database ${name}`);
        else await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      }
      await stopServer();
    },
  };
}
