import { sql } from 'drizzle-orm';
import { check, index, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps, tstz } from '../../db/columns.js';
import { organizations } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';

export const CALL_STATUSES = [
  'SCHEDULED',
  'PENDING',
  'AGENT_ASSIGNED',
  'IN_PROGRESS',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'VOICEMAIL',
  'NO_RESPONSE',
  'TRANSFERRED',
] as const;
export const CALL_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;

/**
 * Phone calls (spec: Call). Created here with the spec's columns for `GET /loads/{id}/calls` and
 * the `all_calls` tab; the calls issue adds the endpoints and the voice providers.
 */
export const calls = pgTable(
  'calls',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    status: text('status', { enum: CALL_STATUSES }).notNull(),
    call_time: tstz('call_time').notNull().defaultNow(),
    call_direction: text('call_direction', { enum: CALL_DIRECTIONS }),
    phone_number: text('phone_number'),
    to_number: text('to_number'),
    from_number: text('from_number'),
    call_start_time: tstz('call_start_time'),
    call_end_time: tstz('call_end_time'),
    call_type: text('call_type'),
    load_id: text('load_id').references(() => loads.id, { onDelete: 'set null' }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'set null' }),
    created_by_id: text('created_by_id'),
    recording_status: text('recording_status'),
    load_number: text('load_number'),
    ...timestamps,
  },
  (t) => [
    index('calls_load_created_idx').on(t.load_id, t.created_at),
    index('calls_organization_load_idx').on(t.organization_id, t.load_id),
    index('calls_organization_created_idx').on(t.organization_id, t.created_at),
    check(
      'calls_status_check',
      sql`${t.status} IN ('SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'VOICEMAIL', 'NO_RESPONSE', 'TRANSFERRED')`,
    ),
  ],
);
