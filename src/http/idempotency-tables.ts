import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from '../db/columns.js';

/** One row per Idempotency-Key used on an endpoint of an organization (spec: Limits, Idempotency). */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organization_id: text('organization_id').notNull(),
    /** `METHOD /route/pattern`: the same key on two endpoints is two records. */
    endpoint: text('endpoint').notNull(),
    key: text('key').notNull(),
    /** Who made the request (`key:<id>` or `user:<id>`): only they may have it replayed. */
    principal: text('principal').notNull().default(''),
    /** SHA-256 of method, path and canonical JSON body. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['in_progress', 'completed'] }).notNull(),
    status_code: integer('status_code'),
    response_headers: jsonb('response_headers').$type<Record<string, string>>(),
    /** Encrypted (`enc:v1:`, AES-256-GCM): stored bodies may carry a new API key or signing secret. */
    response_body: text('response_body'),
    /** An in-progress claim older than this is a crashed request; a retry may take it over. */
    locked_until: tstz('locked_until').notNull(),
    expires_at: tstz('expires_at').notNull(),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organization_id, t.endpoint, t.key] }),
    index('idempotency_keys_expires_idx').on(t.expires_at),
    check('idempotency_keys_state_check', sql`${t.state} IN ('in_progress', 'completed')`),
  ],
);
