import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx, Tx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { authSessions, refreshTokens, type SessionEndReason } from './sessions-tables.js';

// An ended session also expires now, so the purge finds it by expires_at alone. `now` is the
// wall clock's (lib/wall-clock.ts), as is every time these statements compare against.
const ended = (reason: SessionEndReason, now: Date) => ({
  revoked_at: now,
  revoke_reason: reason,
  expires_at: sql`least(${authSessions.expires_at}, ${now}::timestamptz)`,
});

/** A new session with its first refresh token; both or neither, so `tx` is a transaction. */
export async function insertSession(tx: Tx, userId: string, tokenHash: string, expiresAt: Date) {
  const id = newId('session');
  await tx.insert(authSessions).values({ id, user_id: userId, expires_at: expiresAt });
  await tx
    .insert(refreshTokens)
    .values({ id: newId('refreshToken'), session_id: id, token_hash: tokenHash, expires_at: expiresAt });
  return id;
}

/**
 * Marks the refresh token used if it is unused, unexpired and its session live, and returns its
 * session and user. The conditional UPDATE decides races: of two refreshes with one token, the
 * second waits for the first's row lock, finds `used_at` set and gets no row.
 */
export async function useRefreshToken(tx: Tx, tokenHash: string, now: Date) {
  const [row] = await tx
    .update(refreshTokens)
    .set({ used_at: now })
    .from(authSessions)
    .where(
      and(
        eq(refreshTokens.token_hash, tokenHash),
        isNull(refreshTokens.used_at),
        sql`${refreshTokens.expires_at} > ${now}::timestamptz`,
        eq(authSessions.id, refreshTokens.session_id),
        isNull(authSessions.revoked_at),
        sql`${authSessions.expires_at} > ${now}::timestamptz`,
      ),
    )
    .returning({
      sessionId: refreshTokens.session_id,
      userId: authSessions.user_id,
      sessionEndsAt: authSessions.expires_at,
    });
  return row ?? null;
}

/**
 * The next refresh token of the session. It expires when the session ends: a refresh never moves
 * that end, so a stolen refresh token dies with its session however often it is used.
 */
export async function insertNextRefreshToken(tx: Tx, sessionId: string, tokenHash: string, endsAt: Date) {
  await tx.insert(refreshTokens).values({
    id: newId('refreshToken'),
    session_id: sessionId,
    token_hash: tokenHash,
    expires_at: endsAt,
  });
}

/** A refresh token and its session, whatever their state. */
export async function findRefreshToken(db: DbOrTx, tokenHash: string) {
  const [row] = await db
    .select({
      sessionId: refreshTokens.session_id,
      userId: authSessions.user_id,
      usedAt: refreshTokens.used_at,
      expiresAt: refreshTokens.expires_at,
      revokedAt: authSessions.revoked_at,
    })
    .from(refreshTokens)
    .innerJoin(authSessions, eq(authSessions.id, refreshTokens.session_id))
    .where(eq(refreshTokens.token_hash, tokenHash))
    .limit(1);
  return row ?? null;
}

/** Ends the session (a repeat keeps the first end); `userId` guards against ending another's. */
export async function revokeSession(
  db: DbOrTx,
  sessionId: string,
  userId: string,
  reason: SessionEndReason,
  now: Date,
) {
  await db
    .update(authSessions)
    .set(ended(reason, now))
    .where(
      and(eq(authSessions.id, sessionId), eq(authSessions.user_id, userId), isNull(authSessions.revoked_at)),
    );
}

/** Ends every live session of the user; returns how many. */
export async function revokeSessionsOfUser(db: DbOrTx, userId: string, reason: SessionEndReason, now: Date) {
  const rows = await db
    .update(authSessions)
    .set(ended(reason, now))
    .where(and(eq(authSessions.user_id, userId), isNull(authSessions.revoked_at)))
    .returning({ id: authSessions.id });
  return rows.length;
}

/**
 * Deletes what can no longer be used: sessions expired or ended more than `keepSeconds` ago (their
 * refresh tokens with them), and expired refresh tokens of live sessions. Until then an ended
 * session's tokens are refused as ended rather than as unknown.
 */
export async function purgeSessions(db: Db, keepSeconds: number, now: Date) {
  const cutoff = sql`${now}::timestamptz - make_interval(secs => ${keepSeconds})`;
  const sessions = await db
    .delete(authSessions)
    .where(lt(authSessions.expires_at, cutoff))
    .returning({ id: authSessions.id });
  const tokens = await db
    .delete(refreshTokens)
    .where(lt(refreshTokens.expires_at, cutoff))
    .returning({ id: refreshTokens.id });
  return sessions.length + tokens.length;
}
