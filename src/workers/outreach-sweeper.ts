import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import { sweepUnanswered } from '../modules/outreaches/outreaches-repository.js';
import { Poller } from './poller.js';

/**
 * Moves e-mail and WhatsApp outreaches nobody answered within `hours` to `no_response`, every
 * `pollMs`. Each round is one UPDATE ... WHERE, so several instances sweeping at once move each
 * outreach exactly once.
 */
export class OutreachSweeper extends Poller {
  constructor(
    private readonly db: Db,
    private readonly hours: number,
    pollMs: number,
    private readonly logger: FastifyBaseLogger,
  ) {
    super('outreach-sweeper', async () => (await this.sweep()).length, pollMs, logger);
  }

  /** One round; returns the ids of the outreaches moved to no_response. */
  async sweep(): Promise<string[]> {
    const moved = await sweepUnanswered(this.db, this.hours);
    if (moved.length)
      this.logger.info({ count: moved.length }, 'outreaches without a reply marked no_response');
    return moved;
  }
}
