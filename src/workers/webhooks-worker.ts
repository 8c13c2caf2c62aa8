import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import { newId } from '../domain/ids.js';
import { defined } from '../lib/defined.js';
import { machineWallClock, type WallClock } from '../lib/wall-clock.js';
import {
  openSigningSecret,
  type PostResult,
  post,
  RETRY_SCHEDULE_SECONDS,
  sign,
  webhookSecretBox,
} from '../modules/webhooks/delivery.js';
import { eventEnvelope } from '../modules/webhooks/index.js';
import type { Worker } from './worker.js';

const BATCH = 200;
const CONCURRENCY = 50;
/** Auto-disable: every delivery failed for this long, with at least `DISABLE_MIN_FAILURES`. */
export const DISABLE_AFTER_SECONDS = 5 * 24 * 3600;
export const DISABLE_MIN_FAILURES = 10;

interface Success {
  row: ClaimedDelivery;
  result: PostResult;
}

/** A delivery as a round claims it: with its endpoint's url and headers and its event. */
export interface ClaimedDelivery {
  [key: string]: unknown;
  id: string;
  attempt_count: number;
  endpoint_id: string;
  event_id: string;
  organization_id: string;
  url: string;
  headers: Record<string, string> | null;
  type: string;
  data: unknown;
  event_created_at: Date | string;
}

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
      const now = this.wall.now();
      const claimed = await this.db.execute<ClaimedDelivery>(sql`
        WITH due AS (
          SELECT d.id FROM webhook_deliveries d
          JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.status = 'ACTIVE'
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}::timestamptz
          ORDER BY d.next_attempt_at
          LIMIT ${BATCH}
          FOR UPDATE OF d SKIP LOCKED)
        UPDATE webhook_deliveries d SET next_attempt_at = ${now}::timestamptz + make_interval(secs => ${leaseSeconds})
        FROM due, webhook_endpoints e, events ev
        WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
        RETURNING d.id, d.attempt_count, d.endpoint_id, d.event_id, d.organization_id, e.url, e.headers,
          ev.type, ev.data, ev.created_at AS event_created_at`);
      if (claimed.rows.length === 0) return total;
      await this.deliverClaimed(claimed.rows);
      total += claimed.rows.length;
    }
  }

  /**
   * Sends the claimed deliveries, `CONCURRENCY` at a time, and records every outcome; returns the
   * ids of those that succeeded. The caller holds the claim (here the lease on `next_attempt_at`).
   */
  async deliverClaimed(rows: readonly ClaimedDelivery[]): Promise<string[]> {
    if (rows.length === 0) return [];
    const endpointIds = [...new Set(rows.map((r) => r.endpoint_id))];
    const secrets = await this.db.execute<{ endpoint_id: string; secret: string }>(sql`
      SELECT endpoint_id, secret FROM webhook_secrets
      WHERE endpoint_id IN (${sql.join(
        endpointIds.map((id) => sql`${id}`),
        sql`, `,
      )}) AND (expires_at IS NULL OR expires_at > ${this.wall.now()}::timestamptz)
      ORDER BY created_at DESC`);
    const secretsOf = new Map<string, string[]>();
    for (const s of secrets.rows) {
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
    const succeeded: Success[] = [];
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
      await this.recordSuccesses(succeeded);
    } catch (err) {
      this.log.warn({ err }, 'webhook deliveries failed to record; they will be sent again');
      return [];
    }
    return succeeded.map((s) => s.row.id);
  }

  /** Successes of a round, recorded set-based in one transaction (the common case, kept cheap). */
  private async recordSuccesses(list: Success[]) {
    if (list.length === 0) return;
    await this.db.transaction(async (tx) => {
      const updated = await tx.execute<{ id: string }>(sql`
        UPDATE webhook_deliveries SET status = 'succeeded', attempt_count = attempt_count + 1,
          next_attempt_at = NULL, updated_at = now()
        WHERE id IN (${sql.join(
          list.map((s) => sql`${s.row.id}`),
          sql`, `,
        )}) RETURNING id`);
      const kept = new Set(updated.rows.map((r) => r.id));
      const rows = list.filter((s) => kept.has(s.row.id));
      if (rows.length === 0) return;
      await tx.execute(sql`
        INSERT INTO webhook_attempts (id, organization_id, endpoint_id, delivery_id, event_id, event_type,
          attempt_number, succeeded, status_code, duration_ms, response_body, error)
        VALUES ${sql.join(
          rows.map(
            ({ row, result }) => sql`(${newId('deliveryAttempt')}, ${row.organization_id}, ${row.endpoint_id},
              ${row.id}, ${row.event_id}, ${row.type}, ${row.attempt_count + 1}, true, ${result.statusCode},
              ${result.durationMs}, ${result.body}, NULL)`,
          ),
          sql`, `,
        )}`);
      const endpoints = [...new Set(rows.map((r) => r.row.endpoint_id))];
      await tx.execute(sql`
        UPDATE webhook_endpoints SET failing_since = NULL, failures_since_success = 0
        WHERE id IN (${sql.join(
          endpoints.map((id) => sql`${id}`),
          sql`, `,
        )}) AND (failing_since IS NOT NULL OR failures_since_success > 0)`);
    });
  }

  /** Sends one delivery; a success is returned to be recorded with the round, a failure is recorded now. */
  private async deliver(row: ClaimedDelivery, secrets: string[]): Promise<Success | null> {
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
    await this.db.transaction(async (tx) => {
      const updated = await tx.execute(sql`
        UPDATE webhook_deliveries SET status = ${status}, attempt_count = ${attempt}, updated_at = now(),
          next_attempt_at = ${status === 'pending' ? sql`${this.wall.now()}::timestamptz + make_interval(secs => ${delayMs / 1000})` : sql`NULL`}
        WHERE id = ${row.id} RETURNING id`);
      if (updated.rows.length === 0) return; // the endpoint was deleted meanwhile
      await tx.execute(sql`
        INSERT INTO webhook_attempts (id, organization_id, endpoint_id, delivery_id, event_id, event_type,
          attempt_number, succeeded, status_code, duration_ms, response_body, error)
        VALUES (${newId('deliveryAttempt')}, ${row.organization_id}, ${row.endpoint_id}, ${row.id}, ${row.event_id},
          ${row.type}, ${attempt}, false, ${result.statusCode}, ${result.durationMs}, ${result.body}, ${result.error})`);
      if (gone) {
        await tx.execute(sql`
          UPDATE webhook_endpoints SET status = 'DISABLED', updated_at = envoy_now(),
            disabled_reason = 'The endpoint answered 410 Gone'
          WHERE id = ${row.endpoint_id} AND status <> 'DISABLED'`);
      } else {
        await tx.execute(sql`
          UPDATE webhook_endpoints SET
            failing_since = coalesce(failing_since, now()),
            failures_since_success = failures_since_success + 1,
            status = CASE WHEN status = 'ACTIVE' AND failures_since_success + 1 >= ${DISABLE_MIN_FAILURES}
                AND coalesce(failing_since, now()) <= now() - make_interval(secs => ${DISABLE_AFTER_SECONDS})
              THEN 'DISABLED' ELSE status END,
            disabled_reason = CASE WHEN status = 'ACTIVE' AND failures_since_success + 1 >= ${DISABLE_MIN_FAILURES}
                AND coalesce(failing_since, now()) <= now() - make_interval(secs => ${DISABLE_AFTER_SECONDS})
              THEN 'Every delivery failed for 5 days (' || (failures_since_success + 1) || ' failed attempts)'
              ELSE disabled_reason END,
            updated_at = envoy_now()
          WHERE id = ${row.endpoint_id}`);
      }
    });
    return null;
  }
}
