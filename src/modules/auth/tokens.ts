import { errors, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../config.js';

const ALGORITHM = 'HS256';

export interface IssuedToken {
  token: string;
  expiresIn: number;
}

export class TokenService {
  private readonly key: Uint8Array;
  constructor(private readonly jwt: Config['jwt']) {
    this.key = new TextEncoder().encode(jwt.secret);
  }

  async issue(userId: string): Promise<IssuedToken> {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.jwt.issuer)
      .setAudience(this.jwt.audience)
      .setIssuedAt()
      .setExpirationTime(`${this.jwt.ttlSeconds}s`)
      .sign(this.key);
    return { token, expiresIn: this.jwt.ttlSeconds };
  }

  /** The user id of a valid token, or null: wrong signature, algorithm, issuer, audience, or expired. */
  async verify(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.jwt.issuer,
        audience: this.jwt.audience,
        requiredClaims: ['sub', 'exp'],
      });
      return typeof payload.sub === 'string' ? payload.sub : null;
    } catch (err) {
      if (err instanceof errors.JOSEError) return null;
      throw err;
    }
  }
}
