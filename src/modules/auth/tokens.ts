import { errors, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';
import { machineWallClock, type WallClock } from '../../lib/wall-clock.js';

const ALGORITHM = 'HS256';
/** Clock difference tolerated between the instances that sign and verify tokens. */
export const TOKEN_CLOCK_SKEW_SECONDS = 5;

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

/** Who a valid access token speaks for: the user, and the session it was issued in. */
export interface TokenSubject {
  userId: string;
  sessionId: string;
}

export class TokenService {
  private readonly key: Uint8Array;
  constructor(
    private readonly jwt: Config['jwt'],
    private readonly wall: WallClock = machineWallClock,
  ) {
    this.key = new TextEncoder().encode(jwt.secret);
  }

  /** An access token of the session: `sub` the user, `sid` the session. */
  async issue(userId: string, sessionId: string): Promise<IssuedToken> {
    const now = this.wall.ms();
    const token = await new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.jwt.issuer)
      .setAudience(this.jwt.audience)
      .setIssuedAt(new Date(now))
      .setExpirationTime(new Date(now + this.jwt.ttlSeconds * 1000))
      .sign(this.key);
    return { token, expiresIn: this.jwt.ttlSeconds };
  }

  /**
   * The subject of a valid token, or null: wrong signature, algorithm, issuer, audience, expired,
   * or without a session (`sid`), as tokens signed before sessions existed are. A token lives at
   * most the configured TTL from its `iat` (plus a small clock skew) whatever its `exp` says, so a
   * token minted with a far `exp` by anyone holding the secret still ends on time.
   */
  async verify(token: string): Promise<TokenSubject | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.jwt.issuer,
        audience: this.jwt.audience,
        requiredClaims: ['sub', 'exp', 'iat', 'sid'],
        maxTokenAge: this.jwt.ttlSeconds,
        clockTolerance: TOKEN_CLOCK_SKEW_SECONDS,
        currentDate: this.wall.now(),
      });
      const { sub, sid } = payload;
      return typeof sub === 'string' && typeof sid === 'string' && sid.length <= 100
        ? { userId: sub, sessionId: sid }
        : null;
    } catch (err) {
      if (err instanceof errors.JOSEError) return null;
      throw err;
    }
  }
}
