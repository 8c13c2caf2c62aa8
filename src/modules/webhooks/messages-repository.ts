// Webhook messages: one event as sent to one endpoint, over every delivery of it there (a replay
// adds one), and the HTTP attempts of a message with the body the receiver got. The message id is
// the event id: the `webhook-id` header and the body's `id` of every attempt.

import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { MAX_ATTEMPTS_PER_DELIVERY } from './delivery.js';
import { eventEnvelope } from './event-emitting.js';
import type { WebhookMessage, WebhookMessageAttempt } from './webhooks-schemas.js';

/** A timestamp as a raw query returns it (text from the driver, or a Date). */
type Stamp = Date | string;
const toDate = (v: Stamp) => (v instanceof Date ? v : new Date(v));

interface EventColumns {
  [key: string]: unknown;
  event_id: string;
  organization_id: string;
  type: string;
  data: unknown;
  event_created_at: Stamp;
}

/** The body the worker sends for an event (`eventEnvelope`, the same conversion of its time). */
const payloadOf = (r: EventColumns) =>
  eventEnvelope({
    id: r.event_id,
    type: r.type,
    created_at: toDate(r.event_created_at),
    organization_id: r.organization_id,
    data: r.data,
  });

interface MessageRow extends EventColumns {
  endpoint_id: string;
  created_at: Stamp;
  updated_at: Stamp;
  attempt_count: number;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: Stamp | null;
  last_status_code: number | null;
}

const MESSAGE_STATUS = { pending: 'PENDING', succeeded: 'SUCCEEDED', failed: 'DEAD' } as const;

const toMessage = (r: MessageRow): WebhookMessage => ({
  id: r.event_id,
  endpoint_id: r.endpoint_id,
  event_type: r.type,
  latest_status: MESSAGE_STATUS[r.status],
  attempt_count: Number(r.attempt_count),
  last_response_status_code: r.last_status_code,
  next_attempt_at: r.next_attempt_at === null ? null : toDate(r.next_attempt_at),
  created_at: toDate(r.created_at),
  updated_at: toDate(r.updated_at),
  payload: payloadOf(r),
});

/**
 * The messages whose event ids `page` selects (a subquery of `event_id`s, in the order wanted)
 * for one endpoint: the status and due time of the latest delivery, the attempts of all of them,
 * and the status code of the latest attempt.
 */
async function messagesOf(db: DbOrTx, endpointId: string, page: SQL): Promise<WebhookMessage[]> {
  const rows = await db.execute<MessageRow>(sql`
    WITH page AS (${page})
    SELECT ev.id AS event_id, ev.organization_id, ev.type, ev.data, ev.created_at AS event_created_at,
      ${endpointId}::text AS endpoint_id, agg.created_at, agg.updated_at, agg.attempt_count,
      latest.status, latest.next_attempt_at, last_attempt.status_code AS last_status_code
    FROM page
    JOIN events ev ON ev.id = page.event_id
    CROSS JOIN LATERAL (
      SELECT min(d.created_at) AS created_at, max(d.updated_at) AS updated_at,
        sum(d.attempt_count)::int AS attempt_count
      FROM webhook_deliveries d WHERE d.event_id = page.event_id AND d.endpoint_id = ${endpointId}) agg
    CROSS JOIN LATERAL (
      SELECT d.status, d.next_attempt_at FROM webhook_deliveries d
      WHERE d.event_id = page.event_id AND d.endpoint_id = ${endpointId}
      ORDER BY d.created_at DESC, d.id DESC LIMIT 1) latest
    LEFT JOIN LATERAL (
      SELECT a.status_code FROM webhook_attempts a
      JOIN webhook_deliveries d ON d.id = a.delivery_id
      WHERE d.event_id = page.event_id AND d.endpoint_id = ${endpointId}
      ORDER BY a.created_at DESC, a.id DESC LIMIT 1) last_attempt ON true
    ORDER BY page.event_id DESC`);
  return rows.rows.map(toMessage);
}

/** A page of an endpoint's messages, newest first (message ids are time-ordered), and their count. */
export async function listMessages(
  db: DbOrTx,
  scope: OrgScope,
  endpointId: string,
  q: { page: number; page_size: number },
): Promise<{ rows: WebhookMessage[]; total: number }> {
  const mine = sql`organization_id = ${scope.organizationId} AND endpoint_id = ${endpointId}`;
  const [rows, counted] = await Promise.all([
    messagesOf(
      db,
      endpointId,
      sql`SELECT DISTINCT event_id FROM webhook_deliveries WHERE ${mine}
        ORDER BY event_id DESC LIMIT ${q.page_size} OFFSET ${offsetOf(q.page, q.page_size)}`,
    ),
    db.execute<{ n: number }>(
      sql`SELECT count(DISTINCT event_id)::int AS n FROM webhook_deliveries WHERE ${mine}`,
    ),
  ]);
  return { rows, total: Number(counted.rows[0]?.n ?? 0) };
}

/** One message as sent to one endpoint of the organization, or null when it never was. */
export async function findMessage(
  db: DbOrTx,
  scope: OrgScope,
  messageId: string,
  endpointId: string,
): Promise<WebhookMessage | null> {
  const [message] = await messagesOf(
    db,
    endpointId,
    sql`SELECT DISTINCT event_id FROM webhook_deliveries
      WHERE organization_id = ${scope.organizationId} AND endpoint_id = ${endpointId} AND event_id = ${messageId}`,
  );
  return message ?? null;
}

/** Whether some endpoint of the organization was sent (or is owed) this message. */
export async function messageExists(db: DbOrTx, scope: OrgScope, messageId: string): Promise<boolean> {
  const found = await db.execute(sql`
    SELECT 1 FROM webhook_deliveries
    WHERE organization_id = ${scope.organizationId} AND event_id = ${messageId} LIMIT 1`);
  return found.rows.length > 0;
}

interface AttemptRow extends EventColumns {
  id: string;
  endpoint_id: string;
  delivery_id: string;
  attempt_number: number;
  succeeded: boolean;
  status_code: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
  created_at: Stamp;
  delivery_status: 'pending' | 'succeeded' | 'failed';
  delivery_attempts: number;
  delivery_next_at: Stamp | null;
}

/**
 * The status of one attempt: SUCCEEDED; DEAD when it is the last of a delivery given up; FAILED
 * otherwise, with the time of the retry when it is the latest of a delivery still pending.
 */
function toAttempt(r: AttemptRow): WebhookMessageAttempt {
  const latest = r.attempt_number === r.delivery_attempts;
  const status = r.succeeded ? 'SUCCEEDED' : latest && r.delivery_status === 'failed' ? 'DEAD' : 'FAILED';
  const retryAt =
    status === 'FAILED' && latest && r.delivery_status === 'pending' ? r.delivery_next_at : null;
  return {
    id: r.id,
    message_id: r.event_id,
    endpoint_id: r.endpoint_id,
    delivery_id: r.delivery_id,
    attempt: r.attempt_number,
    max_attempts: MAX_ATTEMPTS_PER_DELIVERY,
    status,
    next_attempt_at: retryAt === null ? null : toDate(retryAt),
    response_status_code: r.status_code,
    response_body_excerpt: r.response_body,
    error_message: r.error,
    duration_ms: r.duration_ms,
    delivered_at: r.succeeded ? toDate(r.created_at) : null,
    created_at: toDate(r.created_at),
    payload: payloadOf(r),
  };
}

/** Every HTTP attempt of a message to the organization's endpoints, oldest first. */
export async function listMessageAttempts(
  db: DbOrTx,
  scope: OrgScope,
  messageId: string,
): Promise<WebhookMessageAttempt[]> {
  const rows = await db.execute<AttemptRow>(sql`
    SELECT a.id, a.endpoint_id, a.delivery_id, a.attempt_number, a.succeeded, a.status_code, a.duration_ms,
      a.response_body, a.error, a.created_at, d.status AS delivery_status,
      d.attempt_count AS delivery_attempts, d.next_attempt_at AS delivery_next_at,
      ev.id AS event_id, ev.organization_id, ev.type, ev.data, ev.created_at AS event_created_at
    FROM webhook_deliveries d
    JOIN webhook_attempts a ON a.delivery_id = d.id
    JOIN events ev ON ev.id = d.event_id
    WHERE d.organization_id = ${scope.organizationId} AND d.event_id = ${messageId}
    ORDER BY a.created_at, a.id`);
  return rows.rows.map(toAttempt);
}
