// The organization's webhook deliveries as the delivery list shows them: with the endpoint's url,
// the event's type and the last HTTP attempt.

import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { createdBetween } from '../../db/list-sql.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import type { ListDeliveriesQuery, WebhookDelivery } from './webhooks-schemas.js';
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks-tables.js';

type DeliveryFilters = Omit<ListDeliveriesQuery, 'page' | 'page_size'>;

function deliveriesWhere(scope: OrgScope, q: DeliveryFilters) {
  const conditions: SQL[] = [eq(webhookDeliveries.organization_id, scope.organizationId)];
  if (q.status?.length) conditions.push(inArray(webhookDeliveries.status, q.status));
  if (q.endpoint_id) conditions.push(eq(webhookDeliveries.endpoint_id, q.endpoint_id));
  // The type is the event's: joined by primary key, and only when asked for.
  if (q.event_type?.length) conditions.push(inArray(events.type, q.event_type));
  conditions.push(...createdBetween(webhookDeliveries.created_at, q));
  return and(...conditions);
}

/** A page of deliveries, newest first (ties by id), and the exact count of the filters' matches. */
export async function listDeliveries(
  db: DbOrTx,
  scope: OrgScope,
  q: DeliveryFilters,
  page: { page: number; page_size: number },
): Promise<{ rows: WebhookDelivery[]; total: number }> {
  const where = deliveriesWhere(scope, q);
  // Per delivery of the page only: its highest attempt, by (delivery_id, attempt_number).
  const last = db
    .select({
      attempt_number: webhookAttempts.attempt_number,
      succeeded: webhookAttempts.succeeded,
      status_code: webhookAttempts.status_code,
      error: webhookAttempts.error,
      created_at: webhookAttempts.created_at,
    })
    .from(webhookAttempts)
    .where(eq(webhookAttempts.delivery_id, webhookDeliveries.id))
    .orderBy(desc(webhookAttempts.attempt_number), desc(webhookAttempts.created_at))
    .limit(1)
    .as('last_attempt');
  const counted = db.select({ n: count() }).from(webhookDeliveries);
  const [rows, [total]] = await Promise.all([
    db
      .select({
        id: webhookDeliveries.id,
        endpoint_id: webhookDeliveries.endpoint_id,
        endpoint_url: webhookEndpoints.url,
        event_id: webhookDeliveries.event_id,
        event_type: events.type,
        status: webhookDeliveries.status,
        attempt_count: webhookDeliveries.attempt_count,
        next_attempt_at: webhookDeliveries.next_attempt_at,
        created_at: webhookDeliveries.created_at,
        updated_at: webhookDeliveries.updated_at,
        last_number: last.attempt_number,
        last_succeeded: last.succeeded,
        last_status_code: last.status_code,
        last_error: last.error,
        last_at: last.created_at,
      })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.event_id))
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpoint_id))
      .leftJoinLateral(last, sql`true`)
      .where(where)
      .orderBy(desc(webhookDeliveries.created_at), desc(webhookDeliveries.id))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    q.event_type?.length
      ? counted.innerJoin(events, eq(events.id, webhookDeliveries.event_id)).where(where)
      : counted.where(where),
  ]);
  return {
    rows: rows.map(({ last_number, last_succeeded, last_status_code, last_error, last_at, ...r }) => ({
      ...r,
      last_attempt:
        last_number === null
          ? null
          : {
              attempt_number: last_number,
              succeeded: defined(last_succeeded, 'last_succeeded'),
              status_code: last_status_code,
              error: last_error,
              created_at: defined(last_at, 'last_at'),
            },
    })),
    total: total?.n ?? 0,
  };
}
