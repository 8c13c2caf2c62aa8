import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Logger } from 'pino';
import { objectOf } from '../lib/json-object.js';
import { ReadReplicas, type ReplicaOptions } from './replicas.js';

export type Db = NodePgDatabase;

/** How long the holder of a dead connection has to release it before the pool reclaims it. */
const DEAD_CLIENT_GRACE_MS = 500;
/** A transaction handle: repositories take `DbOrTx` and never open a transaction themselves. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  /** The pool's connection URL. */
  readonly url: string;
  /**
   * The URL of a session that is the database's own, not a pooler's: for LISTEN, migrations and
   * their session lock. The pool's URL unless told otherwise.
   */
  readonly directUrl: string;
  readonly pool: pg.Pool;
  readonly db: Db;
  /** Where the reads that tolerate a little lag run (the primary when no replica is configured). */
  readonly reads: ReadReplicas;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  poolMax: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /**
   * 'transaction': the URL is a transaction-mode pooler (PgBouncer), which hands each transaction
   * whichever server connection is free. Nothing session-scoped may then go through the pool: no
   * startup parameters (the statement timeout and `jit` come from the role, docs/operations.md) and
   * no named prepared statements.
   */
  pooler?: 'none' | 'transaction';
  /** See Database.directUrl. */
  directUrl?: string;
  /** Streaming standbys for the reads that tolerate lag (src/db/replicas.ts). */
  replicas?: Pick<ReplicaOptions, 'urls' | 'maxLagMs' | 'probeMs' | 'now'>;
}

export function createDatabase(url: string, options: DatabaseOptions, logger?: Logger): Database {
  const pooled = options.pooler === 'transaction';
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    ...(pooled
      ? { Client: UnnamedStatementsClient }
      : {
          statement_timeout: options.statementTimeoutMs,
          // No JIT compilation: it pays off for long analytical queries, while the API's statements
          // run in milliseconds and one with a high cost estimate spent up to a second compiling.
          options: '-c jit=off',
        }),
    application_name: 'envoy',
  });
  // A client whose connection dies emits 'error'. The pool listens only while the client is idle;
  // a client checked out for a transaction has no listener, and an unhandled 'error' event would
  // end the process. Every client gets its own listener for its whole life: the request using it
  // fails with 503 (its query rejects), and the pool discards the client when it is released.
  const onClientError = (err: Error) =>
    logger?.warn({ err: { message: err.message } }, 'database connection lost');
  // A client whose connection died while checked out is normally released by its holder once its
  // query fails. drizzle's transaction() does not release it when `begin` itself fails, and the
  // pool would be one connection short for good; so a dead client still held a moment later is
  // released here, and the holder's own late release becomes a no-op.
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_err, client) => checkedOut.delete(client));
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      onClientError(err);
      if (!checkedOut.has(client)) return;
      setTimeout(() => {
        if (!checkedOut.has(client)) return;
        const release = client.release;
        client.release = () => {};
        release(err);
      }, DEAD_CLIENT_GRACE_MS).unref();
    });
  });
  // Idle clients report here too; the client's own listener has logged it already.
  pool.on('error', () => {});
  retryReadsOnFreshConnection(pool);
  const db = drizzle({ client: pool });
  const reads = new ReadReplicas(
    { pool, db },
    {
      urls: [],
      maxLagMs: 5000,
      probeMs: 1000,
      ...options.replicas,
      poolMax: options.poolMax,
      connectTimeoutMs: options.connectTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs,
    },
    logger,
  );
  reads.start();
  let closed = false;
  return {
    url,
    directUrl: options.directUrl ?? url,
    pool,
    db,
    reads,
    async close() {
      if (closed) return;
      closed = true;
      await reads.close();
      await pool.end();
    },
  };
}

/**
 * A client that runs every statement unnamed. A named prepared statement lives in one server
 * session, and a transaction-mode pooler gives the next transaction another one, where the name is
 * missing (26000) or taken by another text (42P05). Unnamed, each statement is parsed and planned
 * where it runs (docs/operations.md has what that costs).
 */
class UnnamedStatementsClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const named = this.query;
    const unnamed = (...args: unknown[]): unknown => {
      const first = objectOf(args[0]);
      // A query config with a name (drizzle's prepared statements); a submittable (COPY) as it is.
      if (first && typeof first.name === 'string' && typeof first.submit !== 'function') {
        const { name: _name, ...config } = first;
        args[0] = config;
      }
      return Reflect.apply(named, this, args);
    };
    Object.defineProperty(this, 'query', { configurable: true, writable: true, value: unnamed });
  }
}

/** SQLSTATEs and driver messages that mean the connection died, not that the statement failed. */
const CONNECTION_LOST = /^(57P0[123]|08...)$/;
const CONNECTION_LOST_MESSAGE = /Connection terminated|is not queryable|ECONNRESET|EPIPE/i;
/** A statement that only reads: it can run again on another connection with no effect. */
const READ_ONLY = /^\s*(select|with)\b/i;
const WRITES =
  /\b(insert|update|delete|merge|for\s+(no\s+key\s+)?update|for\s+share|nextval|pg_notify|setval)\b/i;

function connectionLost(err: unknown): boolean {
  const e = objectOf(err);
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return !!e && (CONNECTION_LOST.test(text(e.code)) || CONNECTION_LOST_MESSAGE.test(text(e.message)));
}

/**
 * A read sent on the pool (not inside a transaction) whose connection dies under it runs once more
 * on a fresh connection. The read after a committed write (the row the response shows) then
 * survives a backend that was terminated or restarted, instead of answering 503 for a write that
 * was done. Writes are never repeated here: whether one committed is not known.
 */
function retryReadsOnFreshConnection(pool: pg.Pool) {
  const original = pool.query;
  // pg's query overloads are passed through untouched: the arguments are forwarded as they came.
  const query = (args: unknown[]): unknown => Reflect.apply(original, pool, args);
  const retrying = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function') return query(args);
    // pg's query takes its SQL first: the text, or a config object with `text`.
    const first = args[0];
    const text = typeof first === 'string' ? first : String(objectOf(first)?.text ?? '');
    const result = query(args);
    if (!(result instanceof Promise) || !READ_ONLY.test(text) || WRITES.test(text)) return result;
    return result.catch((err: unknown) => {
      if (!connectionLost(err)) throw err;
      return query(args);
    });
  };
  Object.defineProperty(pool, 'query', { configurable: true, writable: true, value: retrying });
}
