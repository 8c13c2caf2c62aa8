import { CommitQueue } from './after-commit.js';
import type { Db, Tx } from './client.js';

/** Thrown inside the transaction's callback to roll it back; never seen outside. */
class RollBack extends Error {}

const ended = () => {
  throw new Error('a statement was sent on a request transaction that has ended');
};

/**
 * Once a transaction has ended its connection is back in the pool, where another request may be
 * using it: a late statement on the ended handle fails instead of landing there. drizzle's
 * transaction sends every statement through its `session` member (not in its public types).
 */
function closeHandle(tx: Tx): void {
  const session = { prepareQuery: ended, execute: ended, all: ended, count: ended, transaction: ended };
  Object.defineProperty(tx, 'session', { value: session, configurable: true, writable: true });
}

/**
 * A transaction opened now and ended later by whoever holds it: `end(true)` commits, `end(false)`
 * rolls back. It spans a request's handler and the storing of its response, which drizzle's
 * callback-shaped `transaction()` cannot do on its own.
 */
export class HeldTransaction {
  /** Work that waits for this transaction to commit (see after-commit.ts). */
  readonly commitQueue = new CommitQueue();
  /** The transaction's id once its holder asked for it: whether it committed can be read later. */
  xid: string | null = null;
  private ending: Promise<void> | null = null;

  private constructor(
    readonly tx: Tx,
    private readonly decide: (commit: boolean) => void,
    private readonly finished: Promise<void>,
  ) {}

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
      // Rolled back: the work waiting for a commit never runs.
      if (!commit) this.commitQueue.drop();
      this.decide(commit);
      this.ending = this.finished.finally(() => closeHandle(this.tx));
    }
    return this.ending;
  }
}
