import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A request whose whole outcome must commit or not as one (a request with an Idempotency-Key) runs
 * inside one transaction. Services keep their one database handle: while such a request runs, the
 * handle the composition root gives them routes every statement of that request to the request's
 * transaction, and a transaction a service opens becomes a savepoint in it. Outside such a request
 * the handle is the pool, as ever.
 */
export interface AmbientScope {
  /** The request's transaction; null once it has ended, so late work falls back to the pool. */
  tx: object | null;
  /** Work that must not happen unless the transaction commits (see `afterCommit`). */
  afterCommit?: (() => Promise<void>)[];
}

const storage = new AsyncLocalStorage<AmbientScope>();
const targets = new WeakMap<object, object>();

/** Runs `fn` (and everything it starts) with `scope`'s transaction as the database handle. */
export function runInScope<T>(scope: AmbientScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/**
 * Runs `job` once what the running code wrote is committed: now, outside a request's transaction
 * (the service's own transaction has committed by then); inside one, after that transaction
 * commits, and never if it rolls back. For work outside the database that cannot be taken back,
 * such as placing a call or sending a message: inside the transaction, a request rolled back after
 * it (a failed commit, a lost connection) would leave the carrier called with no record of it, and
 * its retry would call again.
 */
export async function afterCommit(job: () => Promise<void>): Promise<void> {
  const scope = storage.getStore();
  if (scope?.tx && scope.afterCommit) scope.afterCommit.push(job);
  else await job();
}

/** The database handle that follows the running request's transaction, if it has one. */
export function scopedDb<T extends object>(db: T): T {
  const proxy = new Proxy(db, {
    get(target, prop) {
      const real = storage.getStore()?.tx ?? target;
      const value = Reflect.get(real, prop, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
  targets.set(proxy, db);
  return proxy;
}

/**
 * The concrete handle a statement would run on now: for a scoped handle, the running request's
 * transaction or the pool; any other handle as it is. Caches of prepared statements key on this.
 */
export function currentHandle<T extends object>(db: T): T {
  const target = targets.get(db);
  if (!target) return db;
  // The transaction held for `db` is a handle of the same kind as `db` (registered together).
  return (storage.getStore()?.tx ?? target) as T;
}
