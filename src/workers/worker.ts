import type { FastifyBaseLogger } from 'fastify';

/**
 * A piece of background work. `drain` does one round of what is due, claiming it so several
 * instances can run side by side, and returns how much it did. The runner calls it every
 * `intervalMs`; a test calls it directly instead of waiting for the clock.
 */
export interface Worker {
  readonly name: string;
  readonly intervalMs: number;
  /** `signal` is aborted when the runner stops: a round that loops should end early. */
  drain(signal?: AbortSignal): Promise<number>;
}

/**
 * The one place background loops run: each worker's rounds follow one another (a round never
 * overlaps the previous one), a failed round is logged and the next one comes on time, and
 * `stop` waits for the rounds in flight.
 */
export class WorkerRunner {
  private readonly loops: Loop[] = [];
  private readonly stopping = new AbortController();
  private started = false;

  constructor(
    private readonly workers: readonly Worker[],
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The names of the workers this runner has started (for the startup line), sorted. */
  names(): string[] {
    return this.loops.map((l) => l.worker.name).sort();
  }

  start() {
    if (this.started) return;
    this.started = true;
    for (const worker of this.workers) {
      const loop = new Loop(worker, this.stopping.signal, this.log);
      this.loops.push(loop);
      loop.schedule();
    }
  }

  async stop() {
    this.stopping.abort();
    await Promise.all(this.loops.map((l) => l.stop()));
    this.loops.length = 0;
  }
}

class Loop {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;

  constructor(
    readonly worker: Worker,
    private readonly signal: AbortSignal,
    private readonly log: FastifyBaseLogger,
  ) {}

  schedule() {
    if (this.signal.aborted) return;
    this.timer = setTimeout(() => {
      // Started inside a promise, so even a drain that throws before its first await fails one round.
      this.round = Promise.resolve()
        .then(() => this.worker.drain(this.signal))
        .then(
          () => undefined,
          (err) => this.log.warn({ err, worker: this.worker.name }, 'worker round failed'),
        );
      void this.round.then(() => this.schedule());
    }, this.worker.intervalMs);
  }

  async stop() {
    clearTimeout(this.timer);
    await this.round;
  }
}
