/**
 * Schedules work outside the database that cannot be taken back (placing a call, sending a
 * message) behind the commit of what the running code wrote. A service is handed one with its
 * database handle: on the pool, its own transaction has committed by the time it asks, so the job
 * runs now; on a transaction held for a whole request (or a voice tool call), the job waits for
 * that transaction to commit and is dropped if it rolls back.
 */
export type AfterCommit = (job: () => Promise<void>) => Promise<void>;

/** For a handle on the pool: what was written is committed already. */
export const runNow: AfterCommit = (job) => job();

/** Jobs queued behind one transaction, run by whoever learns that it committed. */
export class CommitQueue {
  private jobs: (() => Promise<void>)[] = [];
  private settled: 'open' | 'committed' | 'rolled back' = 'open';

  /** Queues `job` while the transaction is open; once it committed, runs it now; rolled back, drops it. */
  readonly afterCommit: AfterCommit = async (job) => {
    if (this.settled === 'open') this.jobs.push(job);
    else if (this.settled === 'committed') await job();
  };

  /** The transaction rolled back: nothing queued will run. */
  drop(): void {
    this.settled = 'rolled back';
    this.jobs = [];
  }

  /**
   * The transaction committed: runs the queued jobs one after the other. A job that throws is
   * reported to `onError` and the next still runs. Nothing, once dropped.
   */
  async run(onError: (err: unknown) => void): Promise<void> {
    if (this.settled === 'rolled back') return;
    this.settled = 'committed';
    const jobs = this.jobs;
    this.jobs = [];
    for (const job of jobs) await job().catch(onError);
  }
}
