import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.js';
import type { ComplianceService } from '../modules/carriers/compliance-service.js';
import { claimCarriersInFlight } from '../modules/carriers/index.js';
import type { Worker } from './worker.js';

const BATCH = 20;
const CHECK_TIMEOUT_MS = 15_000;

/**
 * Continuous monitoring: carriers with a load in flight (an accepted offer on a load not delivered
 * or cancelled) or an offer pending are checked again once their last check is older than the
 * interval (daily by default). The check itself announces and audits a change, withdraws a carrier
 * turning high risk from queued contacts and escalates the loads booked to it. Several instances
 * can run it: each claims carriers by pushing `last_verified_at` forward under SKIP LOCKED.
 */
export class ComplianceMonitor implements Worker {
  readonly name = 'compliance-monitor';

  constructor(
    private readonly db: Db,
    private readonly service: ComplianceService,
    private readonly intervalHours: number,
    readonly intervalMs: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Checks every carrier due; returns how many were checked. */
  async drain(signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const claimed = await claimCarriersInFlight(this.db, this.intervalHours, BATCH);
      if (claimed.length === 0) return total;
      for (const c of claimed) {
        try {
          await this.service.check(c.organization_id, c.id, AbortSignal.timeout(CHECK_TIMEOUT_MS));
        } catch (err) {
          this.log.warn({ err, carrierId: c.id }, 'compliance monitoring check failed');
        }
      }
      total += claimed.length;
    }
  }
}
