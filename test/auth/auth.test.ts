import { SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { TOKEN_CLOCK_SKEW_SECONDS } from '../../src/modules/auth/tokens.js';
import { TEST_JWT_SECRET, useTestApp } from '../helpers/app.js';
import { createApiKey, createOrg, createTenant, createUser, login } from '../helpers/factories.js';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function signToken(
  claims: { sub: string; exp: number; sid?: string; iat?: number },
  secret = TEST_JWT_SECRET,
  opts: { iss?: string; aud?: string } = {},
) {
  return new SignJWT(claims.sid === undefined ? {} : { sid: claims.sid })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.sub)
    .setIssuer(opts.iss ?? 'envoy')
    .setAudience(opts.aud ?? 'envoy-api')
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .sign(new TextEncoder().encode(secret));
}

/** The session id (`sid`) an access token names. */
const sessionOf = (token: string): string =>
  JSON.parse(Buffer.from(defined(token.split('.')[1], "token.split('.')[1]"), 'base64url').toString()).sid;

describe('login and bearer tokens', () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ wallClock: wall });
  afterEach(() => wall.follow());

  it('returns a 15-minute access token of a new session and a 30-day refresh token for the right password', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email.toUpperCase(), password: user.password },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      refresh_token: expect.stringMatching(/^envoy_rt_[0-9A-Za-z]{40}$/),
      refresh_expires_in: 2_592_000,
    });
    const [header, payload] = body.access_token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ sub: user.id, sid: expect.stringMatching(/^ses_/) });
    expect(claims.exp - claims.iat).toBe(900);
    // Each login is a session of its own.
    const again = await login(t, user.email, user.password);
    const [, second] = again.split('.');
    expect(JSON.parse(Buffer.from(defined(second, 'second'), 'base64url').toString()).sid).not.toBe(
      claims.sid,
    );
  });

  it('gives the same 401 body for an unknown e-mail and a wrong password', async () => {
    const { user } = await createTenant(t);
    const wrongPassword = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: 'not-the-password' },
    });
    const unknownEmail = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'nobody@example.com', password: 'whatever' },
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual({
      error: { code: 'invalid_credentials', message: 'Invalid email or password', param: null },
    });
    expect(unknownEmail.body).toBe(wrongPassword.body);
  });

  it('rejects a login body without a password with 422 naming it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'a@b.co' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.param).toBe('password');
  });

  it('shows the user, memberships and active organization on /auth/me', async () => {
    const { orgId, user } = await createTenant(t);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toMatchObject({ id: user.id, email: user.email, name: null, phone: null });
    expect(body.user.id).toMatch(/^usr_/);
    expect(body.memberships).toEqual([
      {
        organization_id: orgId,
        organization_name: expect.any(String),
        role: 'OWNER',
        created_at: expect.any(String),
      },
    ]);
    expect(body.active_organization).toMatchObject({ id: orgId, role: 'OWNER' });
  });

  it('switches the active organization with X-Organization-ID, and refuses one the user is not in', async () => {
    const { orgId, user } = await createTenant(t);
    const second = await createOrg(t);
    await t.services.auth.createUser({
      organizationId: second,
      email: user.email,
      password: 'ignored-for-existing-user',
      role: 'MEMBER',
    });
    const oldest = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers });
    expect(oldest.json().active_organization).toMatchObject({ id: orgId, role: 'OWNER' });
    const switched = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { ...user.headers, 'x-organization-id': second },
    });
    expect(switched.json().active_organization).toMatchObject({ id: second, role: 'MEMBER' });
    expect(switched.json().memberships).toHaveLength(2);

    const foreign = await createOrg(t);
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { ...user.headers, 'x-organization-id': foreign },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_permissions');
  });

  it('refuses a missing, malformed, expired, foreign-signed, unsigned or sessionless token with 401', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    const sid = sessionOf(user.token);
    wall.freeze();
    const now = Math.floor(wall.ms() / 1000);
    // Expired beyond the tolerated skew; a second later it would still pass (below).
    const past = now - TOKEN_CLOCK_SKEW_SECONDS;
    const future = now + 3600;
    const tokens = {
      expired: await signToken({ sub: user.id, exp: past, iat: now - 60, sid }),
      otherSecret: await signToken(
        { sub: user.id, exp: future, iat: now, sid },
        'another-secret-that-is-also-long-enough!!',
      ),
      otherAudience: await signToken({ sub: user.id, exp: future, iat: now, sid }, TEST_JWT_SECRET, {
        aud: 'someone-else',
      }),
      algNone: `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: user.id, iss: 'envoy', aud: 'envoy-api', exp: future, iat: now, sid })}.`,
      garbage: 'not.a.token',
      // Signed as before sessions existed: no sid claim.
      withoutSession: await signToken({ sub: user.id, exp: future, iat: now }),
      unknownSession: await signToken({ sub: user.id, exp: future, iat: now, sid: 'ses_nope' }),
      anotherUsersSession: await signToken({
        sub: user.id,
        exp: future,
        iat: now,
        sid: sessionOf(other.user.token),
      }),
    };
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('not_authenticated');
    for (const [name, token] of Object.entries(tokens)) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.code, name).toBe('not_authenticated');
    }
    for (const exp of [future, past + 1]) {
      const valid = await signToken({ sub: user.id, exp, iat: now - 60, sid });
      const ok = await t.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${valid}` },
      });
      expect(ok.statusCode, String(exp - now)).toBe(200);
    }
  });

  it('caps a token at its issue time plus the configured TTL, whatever its exp says', async () => {
    const { user } = await createTenant(t);
    const sid = sessionOf(user.token);
    wall.freeze();
    const now = Math.floor(wall.ms() / 1000);
    const century = now + 100 * 365 * 86_400;
    const ttl = t.config.jwt.ttlSeconds;
    const me = (token: string) =>
      t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
    // Right secret, exp a century ahead, issued longer ago than the TTL and its skew: refused.
    const old = await me(await signToken({ sub: user.id, exp: century, sid, iat: now - ttl - 120 }));
    expect(old.statusCode).toBe(401);
    expect(old.json().error.code).toBe('not_authenticated');
    // Issued in the future beyond the skew: refused.
    const ahead = await me(await signToken({ sub: user.id, exp: century, sid, iat: now + 600 }));
    expect(ahead.statusCode).toBe(401);
    // Within the TTL (a little past it, inside the skew) the same far exp is accepted.
    const fresh = await me(await signToken({ sub: user.id, exp: century, sid, iat: now - ttl + 60 }));
    expect(fresh.statusCode).toBe(200);
    // The skew's edge, to the second.
    const skewed = await me(
      await signToken({ sub: user.id, exp: century, sid, iat: now - ttl - TOKEN_CLOCK_SKEW_SECONDS }),
    );
    expect(skewed.statusCode).toBe(200);
    const past = await me(
      await signToken({ sub: user.id, exp: century, sid, iat: now - ttl - TOKEN_CLOCK_SKEW_SECONDS - 1 }),
    );
    expect(past.statusCode).toBe(401);
  });

  it('refuses an API key on a bearer-only route with 403', async () => {
    const { user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: key.headers });
    expect(me.statusCode).toBe(403);
    const create = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: key.headers,
      payload: { name: 'made by a key' },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json().error).toEqual({
      code: 'insufficient_permissions',
      message: 'This operation requires a bearer token',
      param: null,
    });
  });

  it('shows each operation’s credentials in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/auth/login'].post.security).toEqual([]);
    expect(doc.paths['/api/v1/auth/me'].get.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/api/v1/api-keys'].post.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/api/v1/api-keys'].post.description).toMatch(/OWNER or ADMIN/);
  });
});

describe('secrets in logs', () => {
  const t = useTestApp({ captureLogs: true });

  it('never writes a password, token or key secret', async () => {
    const orgId = await createOrg(t);
    const user = await createUser(t, orgId);
    const key = await createApiKey(t, user.headers);
    await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: key.headers });
    await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers });
    const token = await login(t, user.email, user.password);
    const written = JSON.stringify(t.logs);
    expect(t.logs.length).toBeGreaterThan(5);
    expect(written).toContain('/api/v1/auth/login');
    for (const secret of [user.password, user.token, token, key.key]) {
      expect(written).not.toContain(secret);
    }
  });
});
