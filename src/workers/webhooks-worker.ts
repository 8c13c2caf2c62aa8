import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { defined } from '../lib/defined.js';
import { machineWallClock, type WallClock } from '../lib/wall-clock.js';
import {
  openSigningSecret,
  post,
  RETRY_SCHEDULE_SECONDS,
  sign,
  webhookSecretBox,
} from '../modules/webhooks/delivery.js';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  type DeliverySuccess,
  eventEnvelope,
  recordFailure,
  recordSuccesses,
  sealedSecretsOf,
} from '../modules/webhooks/index.js';
import type { Worker } from './worker.js';

const BATCH = 200;
const CONCURRENCY = 50;

/**
 * Delivers pending webhook deliveries. Safe with several instances: a round claims due rows with
 * FOR UPDATE SKIP LOCKED and pushes `next_attempt_at` forward as a lease, then makes the HTTP
 * calls outside any transaction and records each outcome. A crash mid-call leaves the row to come
 * due again after the lease: at least once, never lost.
 */
export class WebhooksWorker implements Worker {
  readonly name = 'webhooks';
  readonly intervalMs: number;
  private readonly secretBox;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    /** When deliveries are due, their leases and retries, and the signature's timestamp. */
    private readonly wall: WallClock = machineWallClock,
  ) {
    this.intervalMs = config.workers.pollMs;
    this.secretBox = webhookSecretBox(config.secretsEncryptionKey);
  }

  /** Delivers due deliveries until none are left; returns how many were attempted. */
  async drain(signal?: AbortSignal): Promise<number> {
    let total = 0;
    const leaseSeconds = Math.ceil(this.config.webhooks.timeoutMs / 1000) + 60;
    for (;;) {
      if (signal?.aborted) return total;
      const claimed = await claimDueDeliveries(this.db, BATCH, leaseSeconds, this.wall.now());
      if (claimed.length === 0) return total;
      await this.deliverClaimed(claimed);
      total += claimed.length;
    }
  }

  /**
   * Sends the claimed deliveries, `CONCURRENCY` at a time, and records every outcome; returns the
   * ids of those that succeeded. The caller holds the claim (here the lease on `next_attempt_at`).
   */
  async deliverClaimed(rows: readonly ClaimedDelivery[]): Promise<string[]> {
    if (rows.length === 0) return [];
    const endpointIds = [...new Set(rows.map((r) => r.endpoint_id))];
    const secrets = await sealedSecretsOf(this.db, endpointIds, this.wall.now());
    const secretsOf = new Map<string, string[]>();
    for (const s of secrets) {
      const secret = openSigningSecret(this.secretBox, s.secret, s.endpoint_id);
      if (secret === null) {
        // Sealed under another key: SECRETS_ENCRYPTION_KEY (or JWT_SECRET) changed. Rotating the
        // endpoint's secret issues one that opens again.
        this.log.error({ endpointId: s.endpoint_id }, 'a webhook signing secret cannot be opened');
        continue;
      }
      secretsOf.set(s.endpoint_id, [...(secretsOf.get(s.endpoint_id) ?? []), secret]);
    }
    const queue = [...rows];
    const succeeded: DeliverySuccess[] = [];
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          try {
            const success = await this.deliver(next, secretsOf.get(next.endpoint_id) ?? []);
            if (success) succeeded.push(success);
          } catch (err) {
            this.log.warn({ err, deliveryId: next.id }, 'webhook delivery failed to record');
          }
        }
      }),
    );
    try {
      await recordSuccesses(this.db, succeeded);
    } catch (err) {
      this.log.warn({ err }, 'webhook deliveries failed to record; they will be sent again');
      return [];
    }
    return succeeded.map((s) => s.row.id);
  }

  /** Sends one delivery; a success is returned to be recorded with the round, a failure is recorded now. */
  private async deliver(row: ClaimedDelivery, secrets: string[]): Promise<DeliverySuccess | null> {
    const body = JSON.stringify(
      eventEnvelope({
        id: row.event_id,
        type: row.type,
        created_at: new Date(row.event_created_at),
        organization_id: row.organization_id,
        data: row.data,
      }),
    );
    const timestamp = Math.floor(this.wall.ms() / 1000);
    const headers: Record<string, string> = {
      ...(row.headers ?? {}),
      'content-type': 'application/json',
      'user-agent': 'Envoy-Webhooks/1.0',
      'webhook-id': row.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((s) => sign(s, row.event_id, timestamp, body)).join(' '),
    };
    const result = await post(
      row.url,
      headers,
      body,
      this.config.webhooks.timeoutMs,
      this.config.webhooks.publicOnly,
    );
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    if (ok) return { row, result };
    const attempt = row.attempt_count + 1;
    const gone = result.statusCode === 410;
    const exhausted = attempt > RETRY_SCHEDULE_SECONDS.length;
    const delayMs =
      gone || exhausted
        ? 0
        : defined(RETRY_SCHEDULE_SECONDS[attempt - 1], 'RETRY_SCHEDULE_SECONDS[attempt - 1]') *
          1000 *
          this.config.webhooks.retryScale *
          (0.9 + Math.random() * 0.2);
    const status = gone || exhausted ? 'failed' : 'pending';
    await recordFailure(this.db, row, { attempt, status, delayMs, gone, result, at: this.wall.now() });
    return null;
  }
}
