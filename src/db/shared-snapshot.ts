import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { defined } from '../lib/defined.js';

const dialect = new PgDialect();
/** What pg_export_snapshot() returns, checked before it is spliced into SET TRANSACTION SNAPSHOT. */
const SNAPSHOT_ID = /^[0-9A-F]+-[0-9A-F]+(-[0-9A-F]+)?$/i;

/**
 * Runs read-only statements side by side, each on a connection of its own, all reading one
 * snapshot: the first connection exports its snapshot (pg_export_snapshot) and the others import it
 * before their statement, as pg_dump does for a parallel dump. The answers therefore agree with
 * each other as if one statement had read them, while the statements use more than one core.
 * When the pool has no connection to spare, the statements run one after another on one
 * connection, in one transaction (the same snapshot, without the concurrency): a read never waits
 * for a second connection while it holds a first.
 */
export async function readInOneSnapshot<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  statements: SQL[],
  settings: SQL[] = [],
): Promise<R[][]> {
  const queries = statements.map((s) => dialect.sqlToQuery(s));
  const prelude = settings.map((s) => dialect.sqlToQuery(s).sql);
  const clients: pg.PoolClient[] = [];
  let failure: Error | undefined;
  try {
    const first = await pool.connect();
    clients.push(first);
    await first.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    for (const s of prelude) await first.query(s);
    const spare = Math.max(0, (pool.options.max ?? 10) - pool.totalCount) + pool.idleCount;
    const helpers = pool.waitingCount === 0 ? Math.min(statements.length - 1, spare) : 0;
    if (helpers === 0) {
      const out: R[][] = [];
      for (const q of queries) out.push((await first.query<R>(q.sql, q.params)).rows);
      await first.query('COMMIT');
      return out;
    }
    const { rows } = await first.query<{ id: string }>('SELECT pg_export_snapshot() AS id');
    const id = rows[0]?.id ?? '';
    if (!SNAPSHOT_ID.test(id)) throw new Error(`unexpected snapshot id ${JSON.stringify(id)}`);
    for (let i = 0; i < helpers; i++) {
      const client = await pool.connect();
      clients.push(client);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await client.query(`SET TRANSACTION SNAPSHOT '${id}'`);
      for (const s of prelude) await client.query(s);
    }
    // Statement i runs on connection i modulo the connections held, in order on each.
    const out = await Promise.all(
      clients.map(async (client, c) => {
        const mine: Array<[number, R[]]> = [];
        for (let i = c; i < queries.length; i += clients.length) {
          const query = defined(queries[i], `statement ${i} of the snapshot`);
          mine.push([i, (await client.query<R>(query.sql, query.params)).rows]);
        }
        return mine;
      }),
    );
    await Promise.all(clients.map((c) => c.query('COMMIT')));
    const answers: R[][] = [];
    for (const [i, r] of out.flat()) answers[i] = r;
    return answers;
  } catch (err) {
    // Kept for release(), which closes the connection rather than pooling it.
    failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    // A connection whose transaction failed part way is closed rather than pooled.
    for (const c of clients) c.release(failure);
  }
}
