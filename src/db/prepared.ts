import type { Db } from './client.js';

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
