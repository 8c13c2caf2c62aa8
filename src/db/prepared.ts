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
