import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tstz, wallTimestamps } from '../../db/columns.js';
import { ROLES } from '../../domain/scope.js';
import { organizationId, users } from './auth-tables.js';

/** What becomes of an invitation; `expired` is not stored: a pending one past its `expires_at`. */
export const INVITATION_STATES = ['pending', 'accepted', 'revoked'] as const;

/**
 * An invitation to join an organization with a role, e-mailed as a one-use token (stored as its
 * SHA-256 only). Accepting it creates the user, or adds an existing one, as a member.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    /** Lower-cased. */
    email: text('email').notNull(),
    name: text('name'),
    role: text('role', { enum: ROLES }).notNull(),
    token_hash: text('token_hash').notNull(),
    status: text('status', { enum: INVITATION_STATES }).notNull().default('pending'),
    invited_by_id: text('invited_by_id').references(() => users.id, { onDelete: 'set null' }),
    expires_at: tstz('expires_at').notNull(),
    accepted_at: tstz('accepted_at'),
    accepted_user_id: text('accepted_user_id').references(() => users.id, { onDelete: 'set null' }),
    revoked_at: tstz('revoked_at'),
    ...wallTimestamps,
  },
  (t) => [
    uniqueIndex('invitations_token_hash_key').on(t.token_hash),
    // One pending invitation per address in an organization: a new one replaces it.
    uniqueIndex('invitations_organization_email_pending_key')
      .on(t.organization_id, t.email)
      .where(sql`${t.status} = 'pending'`),
    index('invitations_organization_created_idx').on(t.organization_id, t.created_at),
    check('invitations_role_check', sql`${t.role} IN ('OWNER', 'ADMIN', 'MEMBER')`),
    check('invitations_status_check', sql`${t.status} IN ('pending', 'accepted', 'revoked')`),
  ],
);
