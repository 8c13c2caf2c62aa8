import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { wallTimestamps } from '../../db/columns.js';
import { ROLES } from '../../domain/scope.js';

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  ...wallTimestamps,
});

/** The owning organization of a row: required, and deleted with the organization. */
export const organizationId = () =>
  text('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    password_hash: text('password_hash').notNull(),
    name: text('name'),
    phone: text('phone'),
    ...wallTimestamps,
  },
  (t) => [uniqueIndex('users_email_key').on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull(),
    ...wallTimestamps,
  },
  (t) => [
    uniqueIndex('memberships_organization_user_key').on(t.organization_id, t.user_id),
    index('memberships_user_idx').on(t.user_id, t.created_at),
    check('memberships_role_check', sql`${t.role} IN ('OWNER', 'ADMIN', 'MEMBER')`),
  ],
);
