import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { sweepUnanswered } from '../modules/outreaches/outreaches-repository.js';

/**
 * Moves e-mail and WhatsApp outreaches nobody answered within `hours` to `no_response`. Each round
 * is one UPDATE ... WHERE, so several instances sweeping at once move each outreach exactly once.
 */
export class OutreachSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly hours: number,
    private readonly pollMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  start() {
    const tick = async () => {
      if (this.stopped) return;
      this.running = this.sweep().catch((err) => this.log.warn({ err }, 'outreach sweep failed'));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(tick, this.pollMs);
    };
    this.timer = setTimeout(tick, this.pollMs);
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round; returns the ids of the outreaches moved to no_response. */
  async sweep(): Promise<string[]> {
    const moved = await sweepUnanswered(this.db, this.hours);
    if (moved.length) this.log.info({ count: moved.length }, 'outreaches without a reply marked no_response');
    return moved;
  }
}
