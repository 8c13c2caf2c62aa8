import type { Db, DbOrTx, Tx } from '../../db/client.js';
import { AppError } from '../../domain/errors.js';
import type { WallClock } from '../../lib/wall-clock.js';
import { membershipsForAuth } from './auth-repository.js';
import { generateSecret, hashSecret, isSecretOf, REFRESH_TOKEN_PREFIX } from './opaque-secrets.js';
import {
  findRefreshToken,
  insertNextRefreshToken,
  insertSession,
  purgeSessions,
  revokeSession,
  revokeSessionsOfUser,
  useRefreshToken,
} from './sessions-repository.js';
import type { SessionEndReason } from './sessions-tables.js';
import type { TokenService } from './tokens.js';

/** What a login, a refresh and an accepted invitation answer. */
export interface SessionTokens {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
}

/** A session started in a transaction: the access token is signed once it has committed. */
export interface StartedSession {
  userId: string;
  sessionId: string;
  refreshToken: string;
  /** The session's fixed end, set at sign-in. */
  endsAt: Date;
}

const invalidRefreshToken = (message: string) => new AppError(401, 'invalid_refresh_token', message);

/** How long an ended or expired session is kept, so its tokens are refused as ended, then purged. */
const KEEP_ENDED_SECONDS = 86_400;

/**
 * Sign-in sessions: each login starts one; its refresh token is rotated on every refresh (one use
 * each), and a used one presented again ends the session. Access tokens name their session, and
 * every bearer request checks it is live (membershipsForAuth), so an ended session stops its
 * access tokens at once on every instance.
 */
export class SessionsService {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
    private readonly refreshTtlSeconds: number,
    private readonly wall: WallClock,
  ) {}

  /**
   * The memberships of a live session, one row per organization (organization_id null for a user
   * of none); none when the session ended. What every bearer request is checked against.
   */
  memberships(userId: string, sessionId: string) {
    return membershipsForAuth(this.db, userId, sessionId, this.wall.now());
  }

  /** Starts a session for the user in the caller's transaction. */
  async start(tx: Tx, userId: string): Promise<StartedSession> {
    const refreshToken = generateSecret(REFRESH_TOKEN_PREFIX);
    const endsAt = new Date(this.wall.ms() + this.refreshTtlSeconds * 1000);
    const sessionId = await insertSession(tx, userId, hashSecret(refreshToken), endsAt);
    return { userId, sessionId, refreshToken, endsAt };
  }

  /** Starts a session (a login) and answers its tokens. */
  async open(userId: string): Promise<SessionTokens> {
    return this.tokensOf(await this.db.transaction((tx) => this.start(tx, userId)));
  }

  /** The tokens of a started session, once its transaction has committed. */
  async tokensOf(started: StartedSession): Promise<SessionTokens> {
    const access = await this.tokens.issue(started.userId, started.sessionId);
    return {
      access_token: access.token,
      token_type: 'bearer',
      expires_in: access.expiresIn,
      refresh_token: started.refreshToken,
      refresh_expires_in: Math.max(0, Math.round((started.endsAt.getTime() - this.wall.ms()) / 1000)),
    };
  }

  /**
   * Exchanges a refresh token for new tokens of its session; the token presented is used up. A
   * token used before ends its session (reuse: a copy is in someone else's hands) and is refused.
   * The session keeps the end it was given at sign-in: the next refresh token expires then.
   */
  async refresh(refreshToken: string): Promise<SessionTokens> {
    if (!isSecretOf(REFRESH_TOKEN_PREFIX, refreshToken)) {
      throw invalidRefreshToken('The refresh token is not valid');
    }
    const hash = hashSecret(refreshToken);
    const next = generateSecret(REFRESH_TOKEN_PREFIX);
    const rotated = await this.db.transaction(async (tx) => {
      const used = await useRefreshToken(tx, hash, this.wall.now());
      if (used) await insertNextRefreshToken(tx, used.sessionId, hashSecret(next), used.sessionEndsAt);
      return used;
    });
    if (rotated) return this.tokensOf({ ...rotated, refreshToken: next, endsAt: rotated.sessionEndsAt });

    const found = await findRefreshToken(this.db, hash);
    if (!found) throw invalidRefreshToken('The refresh token is not valid');
    if (found.revokedAt) throw invalidRefreshToken('The session of this refresh token has ended');
    if (found.usedAt) {
      await revokeSession(this.db, found.sessionId, found.userId, 'refresh_token_reuse', this.wall.now());
      throw new AppError(
        401,
        'refresh_token_reused',
        'This refresh token was already used: its session has been ended; sign in again',
      );
    }
    throw invalidRefreshToken('The refresh token has expired');
  }

  /**
   * Ends the caller's session and, when a refresh token of another of the user's sessions is
   * given, that one too. A refresh token of someone else's session is ignored without a word.
   */
  async logout(userId: string, sessionId: string, refreshToken?: string): Promise<void> {
    const other =
      refreshToken && isSecretOf(REFRESH_TOKEN_PREFIX, refreshToken)
        ? await findRefreshToken(this.db, hashSecret(refreshToken))
        : null;
    await this.db.transaction(async (tx) => {
      const now = this.wall.now();
      await revokeSession(tx, sessionId, userId, 'logout', now);
      if (other && other.userId === userId && other.sessionId !== sessionId) {
        await revokeSession(tx, other.sessionId, userId, 'logout', now);
      }
    });
  }

  /** Ends every session of the user, in the caller's transaction. */
  endAll(db: DbOrTx, userId: string, reason: SessionEndReason) {
    return revokeSessionsOfUser(db, userId, reason, this.wall.now());
  }

  /** Deletes sessions and refresh tokens that can no longer be used; how many rows went. */
  purgeExpired(): Promise<number> {
    return purgeSessions(this.db, KEEP_ENDED_SECONDS, this.wall.now());
  }
}
