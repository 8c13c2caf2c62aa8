import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { tstz } from '../../db/columns.js';
import { users } from './auth-tables.js';

export const SESSION_END_REASONS = ['logout', 'refresh_token_reuse', 'member_removed'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/**
 * One sign-in (a login or an accepted invitation) and every token issued from it: access tokens
 * name it in their `sid` claim, refresh tokens belong to it. Revoking the row ends them all.
 */
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: text('id').primaryKey(),
    user_id: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    created_at: tstz('created_at').notNull().defaultNow(),
    /** When it ends: a fixed time after sign-in (no refresh moves it), or earlier when it was ended. */
    expires_at: tstz('expires_at').notNull(),
    revoked_at: tstz('revoked_at'),
    revoke_reason: text('revoke_reason', { enum: SESSION_END_REASONS }),
  },
  (t) => [
    index('auth_sessions_user_idx').on(t.user_id),
    index('auth_sessions_expires_idx').on(t.expires_at),
    check(
      'auth_sessions_revoke_reason_check',
      sql`${t.revoke_reason} IN ('logout', 'refresh_token_reuse', 'member_removed')`,
    ),
  ],
);

/**
 * Refresh tokens, stored as SHA-256 hashes only. A token is used once: refreshing marks it used and
 * issues the next one of its session, so a used token presented again is a stolen copy (or the
 * client's own lost race) and ends the session.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: text('id').primaryKey(),
    session_id: text('session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    token_hash: text('token_hash').notNull(),
    expires_at: tstz('expires_at').notNull(),
    used_at: tstz('used_at'),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('refresh_tokens_token_hash_key').on(t.token_hash),
    index('refresh_tokens_session_idx').on(t.session_id),
    index('refresh_tokens_expires_idx').on(t.expires_at),
  ],
);
