import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamps } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';

export const VIEW_VISIBILITIES = ['private', 'organization'] as const;

/** A saved load list: `filters` holds query-string parameters (names to a string or strings). */
export const loadViews = pgTable(
  'load_views',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    name: text('name').notNull(),
    filters: jsonb('filters').$type<Record<string, string | string[]>>().notNull(),
    visibility: text('visibility', { enum: VIEW_VISIBILITIES }).notNull().default('private'),
    /** The user (bearer) or API key id (`key_...`) that created the view: a private view's only reader. */
    owner_id: text('owner_id').notNull(),
    ...timestamps,
  },
  (t) => [
    index('load_views_organization_idx').on(t.organization_id, t.created_at),
    check('load_views_visibility_check', sql`${t.visibility} IN ('private', 'organization')`),
  ],
);
