import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  text,
} from 'drizzle-orm/pg-core';
import { productNow, timestamps, tstz, wallTimestamps } from '../../db/columns.js';
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

/**
 * A PostgreSQL transaction id (xid8), read and written as its decimal text: 64 bits, never
 * wrapping, ordered like the transactions that wrote the rows.
 */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });

/** The order of events within their transaction (see `events`). */
export const eventsSeq = pgSequence('events_seq');

/**
 * The outbox: one row per event, written in the transaction of the change that caused it. The
 * live stream reads it in (txid, seq) order: `txid` is the writing transaction, `seq` the order
 * within it, and rows of transactions older than every running one can no longer appear, so a
 * stream's cursor never skips an event that commits late.
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    type: text('type').notNull(),
    data: jsonb('data').$type<unknown>().notNull(),
    created_at: tstz('created_at').notNull().default(productNow),
    // Rows from before the stream existed hold 0 in both: older than any stream's cursor.
    txid: xid8('txid').notNull().default(sql`pg_current_xact_id()`),
    seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('events_seq')`),
  },
  (t) => [
    index('events_organization_idx').on(t.organization_id, t.created_at),
    index('events_stream_idx').on(t.organization_id, t.txid, t.seq),
  ],
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
    // Delivery bookkeeping runs on the machine's clock: its receivers and retries are real.
    ...wallTimestamps,
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

/**
 * Open live streams, one row each, across every instance: the per-organization cap counts them.
 * A row whose instance stopped without closing it stops counting once its heartbeat is stale.
 */
export const eventStreams = pgTable(
  'event_streams',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    instance_id: text('instance_id').notNull(),
    opened_at: tstz('opened_at').notNull().defaultNow(),
    last_seen_at: tstz('last_seen_at').notNull().defaultNow(),
  },
  (t) => [
    index('event_streams_organization_idx').on(t.organization_id, t.last_seen_at),
    index('event_streams_instance_idx').on(t.instance_id),
  ],
);

/**
 * Until when an organization's events are stored for its streams to resume from, even when no
 * webhook endpoint subscribes to them: pushed forward while a stream is open.
 */
export const eventRetention = pgTable('event_retention', {
  organization_id: organizationId().primaryKey(),
  retain_until: tstz('retain_until').notNull(),
});

/** One-use tickets that open a stream from a browser (EventSource cannot send headers). */
export const eventStreamTickets = pgTable(
  'event_stream_tickets',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    /** SHA-256 of the ticket; the ticket itself is shown once. */
    ticket_hash: text('ticket_hash').notNull().unique('event_stream_tickets_hash_key'),
    principal_kind: text('principal_kind', { enum: ['api_key', 'bearer'] }).notNull(),
    user_id: text('user_id'),
    api_key_id: text('api_key_id'),
    /** The sign-in session of a bearer ticket: signing out closes what it opened. */
    session_id: text('session_id'),
    expires_at: tstz('expires_at').notNull(),
    used_at: tstz('used_at'),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [index('event_stream_tickets_expiry_idx').on(t.expires_at)],
);
