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
  const { session, dialect } = db as unknown as { session: PgSession; dialect: PgDialect };
  const prepared = session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
  const result = (await prepared.execute()) as { rows: T[] };
  return result.rows;
}

/**
 * Statement texts named so far. Every pooled connection may end up holding a prepared statement
 * for each, so their number is bounded: past it, a new text runs unnamed (parsed and planned each
 * time, as any other statement).
 */
const MAX_NAMED_TEXTS = 500;
const namedTexts = new Map<string, string>();

/** The name a statement text is prepared under (from its hash), or none once the bound is reached. */
export function nameOfText(text: string): string | undefined {
  let name = namedTexts.get(text);
  if (name === undefined && namedTexts.size < MAX_NAMED_TEXTS) {
    name = `t_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
    namedTexts.set(text, name);
  }
  return name;
}

/**
 * Runs a raw SQL statement prepared under a name taken from its text, so each connection plans
 * it once per text and PostgreSQL may then settle on a generic plan. Only for a statement whose
 * best plan does not depend on its values (lookups by key, the change log of a load list): one
 * whose plan does (a count or a page over a filter's index) stays unnamed and is planned for its
 * values each time.
 */
export async function executeReused<T extends Record<string, unknown>>(db: DbOrTx, query: SQL): Promise<T[]> {
  const { session, dialect } = db as unknown as { session: PgSession; dialect: PgDialect };
  const rendered = dialect.sqlToQuery(query);
  const prepared = session.prepareQuery(rendered, undefined, nameOfText(rendered.sql), false);
  const result = (await prepared.execute()) as { rows: T[] };
  return result.rows;
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
