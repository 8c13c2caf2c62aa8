import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/db/client.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { runMigrations } from '../../src/db/migrate.js';
import { manualProductClock } from '../../src/db/product-clock.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { defined } from '../../src/lib/defined.js';

/**
 * The benchmark's databases, each a fresh migrated one on the product's manual clock
 * (db/product-clock.ts): the product's own envoy_now() reads the time the run moves the clock to,
 * and every service reads the same clock, so simulated days pass as fast as the work they hold.
 * (The databases also commit without waiting for the disk: they are thrown away, and the machine's
 * fsync is not what is measured.)
 */
export interface SimServer {
  /** A fresh migrated database on a manual product clock starting at `start`. */
  database(label: string, start: Date): Promise<{ database: Database; clock: ManualClock }>;
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
      await admin(`ALTER DATABASE "${name}" SET synchronous_commit = off;`);
      const database = createDatabase(url.toString(), {
        poolMax: 10,
        connectTimeoutMs: 10_000,
        statementTimeoutMs: 120_000,
      });
      await runMigrations(database.pool);
      const clock = await manualProductClock(database.pool, start);
      const check = await database.pool.query<{ t: Date }>('SELECT envoy_now() AS t');
      if (defined(check.rows[0], 'check.rows[0]').t.getTime() !== start.getTime()) {
        throw new Error('the database does not read the product clock');
      }
      created.push({ name, database });
      return { database, clock };
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
