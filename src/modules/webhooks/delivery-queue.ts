// The delivery queue the webhooks worker drives: claiming due deliveries with their endpoints and
// events, the endpoints' signing secrets, and the record of each attempt's outcome.

import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import type { PostResult } from './delivery.js';

/** Auto-disable: every delivery failed for this long, with at least `DISABLE_MIN_FAILURES`. */
export const DISABLE_AFTER_SECONDS = 5 * 24 * 3600;
export const DISABLE_MIN_FAILURES = 10;

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

/** A delivery the endpoint accepted, and its answer. */
export interface DeliverySuccess {
  row: ClaimedDelivery;
  result: PostResult;
}

/**
 * Up to `batch` due deliveries of ACTIVE endpoints, claimed with FOR UPDATE SKIP LOCKED: their
 * `next_attempt_at` is pushed `leaseSeconds` forward as a lease.
 */
export async function claimDueDeliveries(
  db: Db,
  batch: number,
  leaseSeconds: number,
  now: Date,
): Promise<ClaimedDelivery[]> {
  const claimed = await db.execute<ClaimedDelivery>(sql`
    WITH due AS (
      SELECT d.id FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.status = 'ACTIVE'
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}::timestamptz
      ORDER BY d.next_attempt_at
      LIMIT ${batch}
      FOR UPDATE OF d SKIP LOCKED)
    UPDATE webhook_deliveries d SET next_attempt_at = ${now}::timestamptz + make_interval(secs => ${leaseSeconds})
    FROM due, webhook_endpoints e, events ev
    WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
    RETURNING d.id, d.attempt_count, d.endpoint_id, d.event_id, d.organization_id, e.url, e.headers,
      ev.type, ev.data, ev.created_at AS event_created_at`);
  return claimed.rows;
}

/** The unexpired signing secrets of these endpoints, sealed as stored, newest first. */
export async function sealedSecretsOf(
  db: Db,
  endpointIds: string[],
  now: Date,
): Promise<{ endpoint_id: string; secret: string }[]> {
  const secrets = await db.execute<{ endpoint_id: string; secret: string }>(sql`
    SELECT endpoint_id, secret FROM webhook_secrets
    WHERE endpoint_id IN (${sql.join(
      endpointIds.map((id) => sql`${id}`),
      sql`, `,
    )}) AND (expires_at IS NULL OR expires_at > ${now}::timestamptz)
    ORDER BY created_at DESC`);
  return secrets.rows;
}

/**
 * Successes of a round, recorded set-based in one transaction (the common case, kept cheap): the
 * deliveries succeeded (those still there), their attempts, and their endpoints' failure streaks reset.
 */
export async function recordSuccesses(db: Db, list: DeliverySuccess[]): Promise<void> {
  if (list.length === 0) return;
  await db.transaction(async (tx) => {
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

/** A failed attempt: its number, the delivery's status after it, and when it is tried again. */
export interface DeliveryFailure {
  attempt: number;
  status: 'pending' | 'failed';
  delayMs: number;
  /** The endpoint answered 410 Gone: it is disabled. */
  gone: boolean;
  result: PostResult;
  /** The worker's wall time when the attempt ended: the retry is `delayMs` after it. */
  at: Date;
}

/**
 * A failed attempt, recorded in one transaction: the delivery rescheduled or failed, the attempt,
 * and the endpoint disabled (410 Gone, or every delivery failed for long enough) or its failure
 * streak extended. Nothing when the delivery was deleted meanwhile.
 */
export async function recordFailure(db: Db, row: ClaimedDelivery, failure: DeliveryFailure): Promise<void> {
  const { attempt, status, delayMs, gone, result, at } = failure;
  await db.transaction(async (tx) => {
    const updated = await tx.execute(sql`
      UPDATE webhook_deliveries SET status = ${status}, attempt_count = ${attempt}, updated_at = now(),
        next_attempt_at = ${status === 'pending' ? sql`${at}::timestamptz + make_interval(secs => ${delayMs / 1000})` : sql`NULL`}
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
}
