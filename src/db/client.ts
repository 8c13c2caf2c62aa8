import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Logger } from 'pino';

export type Db = NodePgDatabase;
/** A transaction handle: repositories take `DbOrTx` and never open a transaction themselves. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  readonly pool: pg.Pool;
  readonly db: Db;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  poolMax: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export function createDatabase(url: string, options: DatabaseOptions, logger?: Logger): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs,
    application_name: 'envoy',
  });
  // An idle client losing its connection emits here; without a listener the process would crash.
  pool.on('error', (err) =>
    logger?.warn({ err: { message: err.message } }, 'idle database connection failed'),
  );
  const db = drizzle({ client: pool });
  let closed = false;
  return {
    pool,
    db,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
