import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import type { ComplianceService } from '../modules/carriers/compliance-service.js';
import { claimDueChecks } from '../modules/carriers/index.js';
import type { Worker } from './worker.js';

const BATCH = 20;
const CONCURRENCY = 4;
const CHECK_TIMEOUT_MS = 15_000;

/**
 * Checks carriers whose compliance check is due. Safe with several instances: each claims a batch
 * with FOR UPDATE SKIP LOCKED and pushes its due time forward as a lease, so a crashed instance's
 * carriers come due again after the lease.
 */
export class ComplianceWorker implements Worker {
  readonly name = 'compliance';

  constructor(
    private readonly db: Db,
    private readonly service: ComplianceService,
    readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Claims and checks due carriers until none are left; returns how many were checked. */
  async drain(signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const claimed = await claimDueChecks(this.db, BATCH);
      if (claimed.length === 0) return total;
      const queue = [...claimed];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            try {
              await this.service.check(next.organization_id, next.id, AbortSignal.timeout(CHECK_TIMEOUT_MS));
            } catch (err) {
              this.log.warn({ err, carrierId: next.id }, 'compliance check failed');
            }
          }
        }),
      );
      total += claimed.length;
    }
  }
}
