import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import type { PgDialect, PgSession } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from './client.js';

/**
 * A prepared statement per database handle, built on first use. Hot lookups (credentials, get by
 * id) skip drizzle's query building and PostgreSQL's planning this way.
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  // A transaction gets its own statement: one is bound to its connection.
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}

/**
 * Runs a raw SQL statement as a named prepared statement on the handle's connection (a
 * transaction's own, or the pool's). PostgreSQL parses and plans it once per connection and then
 * reuses the plan, which matters for a large statement run thousands of times with new values.
 * `name` must stand for one statement text only.
 */
export async function executeNamed<T extends Record<string, unknown>>(
  db: DbOrTx,
  name: string,
  query: SQL,
): Promise<T[]> {
  return runPrepared<T>(db, query, () => name);
}

/** Renders `query` and runs it under the name `nameOf` gives its text (none: unnamed). */
async function runPrepared<T>(db: DbOrTx, query: SQL, nameOf: (text: string) => string | undefined) {
  // drizzle's node-postgres database and transaction keep these members; they are not in its public types.
  const { session, dialect } = db as unknown as { session: PgSession; dialect: PgDialect };
  const rendered = dialect.sqlToQuery(query);
  const prepared = session.prepareQuery(rendered, undefined, nameOf(rendered.sql), false);
  // A node-postgres prepared query answers pg's result; the caller names the row type T.
  const result = (await prepared.execute()) as { rows: T[] };
  return result.rows;
}

/**
 * Statement texts named so far. PostgreSQL keeps each named statement per connection, with its
 * query tree and plan: 150-350 KB for the load list's statements (measured in
 * pg_backend_memory_contexts). A name is never taken back (node-postgres has no way to forget a
 * statement it prepared), so their number bounds what every pooled connection may hold: 100 texts
 * (psycopg's default too), about 30 MB per connection at most. Past the bound a text runs unnamed
 * (parsed and planned each time, as any other statement).
 */
const MAX_NAMED_TEXTS = 100;
/** A text is named on its third use: a list shape asked for once or twice takes no slot. */
const NAMED_FROM_USE = 3;
/** Texts used fewer times so far, with their count; forgotten all at once when this many. */
const MAX_CANDIDATES = 1000;
const namedTexts = new Map<string, string>();
const candidates = new Map<string, number>();

/** How many texts are named, and the bound (for a benchmark's report). */
export const namedTextCount = () => ({ named: namedTexts.size, max: MAX_NAMED_TEXTS });

/**
 * The name a statement text is prepared under (from its hash) once it has been used often enough,
 * or none: before that, or once the bound is reached.
 */
export function nameOfText(text: string): string | undefined {
  const name = namedTexts.get(text);
  if (name !== undefined || namedTexts.size >= MAX_NAMED_TEXTS) return name;
  const uses = (candidates.get(text) ?? 0) + 1;
  if (uses < NAMED_FROM_USE) {
    if (candidates.size >= MAX_CANDIDATES) candidates.clear();
    candidates.set(text, uses);
    return undefined;
  }
  candidates.delete(text);
  const named = `t_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
  namedTexts.set(text, named);
  return named;
}

/**
 * Runs a raw SQL statement prepared under a name taken from its text, so each connection plans
 * it once per text and PostgreSQL may then settle on a generic plan. Only for a statement whose
 * best plan does not depend on its values (lookups by key, the change log of a load list): one
 * whose plan does (a count or a page over a filter's index) stays unnamed and is planned for its
 * values each time.
 */
export function executeReused<T extends Record<string, unknown>>(db: DbOrTx, query: SQL): Promise<T[]> {
  return runPrepared<T>(db, query, nameOfText);
}

/** A query builder run as executeReused runs raw SQL (same rule: a plan that values do not change). */
export function selectReused<R>(query: {
  toSQL(): { sql: string };
  prepare(name: string): { execute(): Promise<R> };
  execute(): Promise<R>;
}): Promise<R> {
  const name = nameOfText(query.toSQL().sql);
  return name ? query.prepare(name).execute() : query.execute();
}
