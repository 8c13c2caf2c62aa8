import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tstz, wallTimestamps } from '../../db/columns.js';
import { organizationId, users } from '../auth/auth-tables.js';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    name: text('name').notNull(),
    description: text('description'),
    /** SHA-256 (hex) of the secret; the secret itself is never stored. */
    key_hash: text('key_hash').notNull(),
    expires_at: tstz('expires_at'),
    last_used_at: tstz('last_used_at'),
    is_active: boolean('is_active').notNull().default(true),
    created_by_id: text('created_by_id').references(() => users.id, { onDelete: 'set null' }),
    /** Set when the key was regenerated: the replacement's id. */
    replaced_by_id: text('replaced_by_id'),
    ...wallTimestamps,
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.key_hash),
    // One live key per name in an organization; a regenerated key's predecessor steps aside.
    uniqueIndex('api_keys_organization_name_key')
      .on(t.organization_id, t.name)
      .where(sql`${t.is_active} AND ${t.replaced_by_id} IS NULL`),
    index('api_keys_organization_created_idx').on(t.organization_id, t.created_at),
  ],
);
