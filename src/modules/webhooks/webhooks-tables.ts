import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps, tstz } from '../../db/columns.js';
import type { EventType } from '../../domain/events.js';
import { organizationId } from '../auth/auth-tables.js';

export const ENDPOINT_STATUSES = ['ACTIVE', 'PAUSED', 'DISABLED'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** Webhook endpoints (spec: Webhook endpoint). */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    url: text('url').notNull(),
    description: text('description'),
    event_types: jsonb('event_types').$type<string[]>().notNull(),
    headers: jsonb('headers').$type<Record<string, string> | null>(),
    status: text('status', { enum: ENDPOINT_STATUSES }).notNull().default('ACTIVE'),
    disabled_reason: text('disabled_reason'),
    /** First failed attempt since the last success (auto-disable rule); null while healthy. */
    failing_since: tstz('failing_since'),
    failures_since_success: integer('failures_since_success').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('webhook_endpoints_organization_idx').on(t.organization_id, t.created_at),
    check('webhook_endpoints_status_check', sql`${t.status} IN ('ACTIVE', 'PAUSED', 'DISABLED')`),
  ],
);

/** Signing secrets of an endpoint; during a rotation the old one signs too until `expires_at`. */
export const webhookSecrets = pgTable(
  'webhook_secrets',
  {
    id: text('id').primaryKey(),
    endpoint_id: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    secret: text('secret').notNull(),
    expires_at: tstz('expires_at'),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [index('webhook_secrets_endpoint_idx').on(t.endpoint_id)],
);

/** The outbox: one row per event, written in the transaction of the change that caused it. */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    type: text('type').$type<EventType>().notNull(),
    data: jsonb('data').$type<unknown>().notNull(),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [index('events_organization_idx').on(t.organization_id, t.created_at)],
);

/** One event owed to one endpoint; the worker claims due rows with FOR UPDATE SKIP LOCKED. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    endpoint_id: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    event_id: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempt_count: integer('attempt_count').notNull().default(0),
    next_attempt_at: tstz('next_attempt_at').defaultNow(),
    ...timestamps,
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.next_attempt_at).where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpoint_id, t.created_at),
    // The organization's delivery list, newest first.
    index('webhook_deliveries_organization_idx').on(t.organization_id, t.created_at, t.id),
    index('webhook_deliveries_event_idx').on(t.event_id),
  ],
);

/** Every HTTP attempt of a delivery, kept with its endpoint (deleted with it). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    endpoint_id: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    delivery_id: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    event_id: text('event_id').notNull(),
    event_type: text('event_type').notNull(),
    attempt_number: integer('attempt_number').notNull(),
    succeeded: boolean('succeeded').notNull(),
    status_code: integer('status_code'),
    duration_ms: integer('duration_ms').notNull(),
    response_body: text('response_body'),
    error: text('error'),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_attempts_endpoint_idx').on(t.endpoint_id, t.created_at),
    // A delivery's last attempt (the delivery list), and the cascade when a delivery is deleted.
    index('webhook_attempts_delivery_idx').on(t.delivery_id, t.attempt_number),
  ],
);
