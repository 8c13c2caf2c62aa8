import type { AmbientScope } from './ambient.js';
import type { Db, Tx } from './client.js';

/** Thrown inside the transaction's callback to roll it back; never seen outside. */
class RollBack extends Error {}

/**
 * A transaction opened now and ended later by whoever holds it: `end(true)` commits, `end(false)`
 * rolls back. It spans a request's handler and the storing of its response, which drizzle's
 * callback-shaped `transaction()` cannot do on its own.
 */
export class HeldTransaction {
  readonly scope: AmbientScope;
  /** The transaction's id once its holder asked for it: whether it committed can be read later. */
  xid: string | null = null;
  private ending: Promise<void> | null = null;

  private constructor(
    readonly tx: Tx,
    private readonly decide: (commit: boolean) => void,
    private readonly finished: Promise<void>,
  ) {
    this.scope = { tx, afterCommit: [] };
  }

  /** Opens a transaction on a connection of its own; resolves once BEGIN has run. */
  static async open(db: Db): Promise<HeldTransaction> {
    let opened!: (tx: Tx) => void;
    let failed!: (err: unknown) => void;
    const ready = new Promise<Tx>((resolve, reject) => {
      opened = resolve;
      failed = reject;
    });
    let decide!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => {
      decide = resolve;
    });
    const finished = db
      .transaction(async (tx) => {
        opened(tx);
        if (!(await decided)) throw new RollBack();
      })
      .catch((err) => {
        if (!(err instanceof RollBack)) throw err;
      });
    // A failure before BEGIN answered is the opener's; after it, end()'s caller sees it.
    finished.catch(failed);
    return new HeldTransaction(await ready, decide, finished);
  }

  /**
   * Runs, one after the other, the work queued with `afterCommit` while the transaction was open;
   * its holder calls it once it knows the transaction committed. Each job reports its own failures:
   * one that throws is logged by `onError` and the next still runs. Later calls run nothing.
   */
  async runAfterCommit(onError: (err: unknown) => void): Promise<void> {
    const jobs = this.scope.afterCommit ?? [];
    this.scope.afterCommit = [];
    for (const job of jobs) await job().catch(onError);
  }

  get open(): boolean {
    return this.ending === null;
  }

  /**
   * Commits (or rolls back) and resolves once the database has answered. A failed commit rejects:
   * the connection may have died before or after PostgreSQL committed, which only a later read can
   * tell. Later calls return the first call's outcome.
   */
  end(commit: boolean): Promise<void> {
    if (!this.ending) {
      // Work the request left running falls back to the pool from now on.
      this.scope.tx = null;
      // Rolled back: the work waiting for a commit never runs.
      if (!commit) this.scope.afterCommit = [];
      this.decide(commit);
      this.ending = this.finished;
    }
    return this.ending;
  }
}
