import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { sweepUnanswered } from '../modules/outreaches/outreaches-repository.js';
import type { Worker } from './worker.js';

/**
 * Moves e-mail and WhatsApp outreaches nobody answered within `hours` to `no_response`, every
 * `intervalMs`. Each round is one UPDATE ... WHERE, so several instances sweeping at once move each
 * outreach exactly once.
 */
export class OutreachSweeper implements Worker {
  readonly name = 'outreach-sweeper';

  constructor(
    private readonly db: Db,
    private readonly hours: number,
    readonly intervalMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {}

  async drain(): Promise<number> {
    return (await this.sweep()).length;
  }

  /** One round; returns the ids of the outreaches moved to no_response. */
  async sweep(): Promise<string[]> {
    const moved = await sweepUnanswered(this.db, this.hours);
    if (moved.length)
      this.logger.info({ count: moved.length }, 'outreaches without a reply marked no_response');
    return moved;
  }
}
