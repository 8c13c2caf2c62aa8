import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { productNow, tstz } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';

/**
 * The organization's audit log: carrier, lane-preference and team changes and responses to
 * escalations, each row written in the transaction of the change it records.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    entity_type: text('entity_type').notNull(),
    entity_id: text('entity_id').notNull(),
    action: text('action').notNull(),
    reason: text('reason'),
    reason_note: text('reason_note'),
    actor_type: text('actor_type').notNull(),
    actor_id: text('actor_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    created_at: tstz('created_at').notNull().default(productNow),
  },
  (t) => [
    index('audit_log_entity_idx').on(t.organization_id, t.entity_type, t.entity_id, t.created_at),
    // The organization-wide list, newest first (GET /audit-log), read in index order; NULLS FIRST is
    // what a plain ORDER BY ... DESC means.
    index('audit_log_org_created_idx').on(
      t.organization_id,
      t.created_at.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
  ],
);
