import type { FastifyBaseLogger } from 'fastify';

/** Names of the pollers running in this process, for the startup log line. */
const running = new Map<string, number>();
export const runningWorkers = (): string[] => [...running.keys()].sort();

/**
 * Runs `drain` every `pollMs` until stopped, one round at a time. `drain` does the work that is
 * due (claiming it so several instances can run side by side) and returns how much it did.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly name: string,
    private readonly drain: () => Promise<number>,
    private readonly pollMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  start() {
    const tick = async () => {
      if (this.stopped) return;
      this.running = this.drain().then(
        () => undefined,
        (err) => this.log.warn({ err, worker: this.name }, 'worker round failed'),
      );
      await this.running;
      if (!this.stopped) this.timer = setTimeout(tick, this.pollMs);
    };
    this.timer = setTimeout(tick, this.pollMs);
    running.set(this.name, (running.get(this.name) ?? 0) + 1);
  }

  async stop() {
    if (!this.stopped && this.timer !== undefined) {
      const left = (running.get(this.name) ?? 1) - 1;
      if (left > 0) running.set(this.name, left);
      else running.delete(this.name);
    }
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
