import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { buildTestApp, fileDatabaseUrl, type TestApp, useTestApp } from '../helpers/app.js';
import { createOrg, createTenant, createUser } from '../helpers/factories.js';

interface Tokens {
  access_token: string;
  refresh_token: string;
}

const bearer = (tokens: Tokens | string) => ({
  authorization: `Bearer ${typeof tokens === 'string' ? tokens : tokens.access_token}`,
});

async function signIn(t: TestApp, email: string, password: string): Promise<Tokens> {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const refresh = (t: TestApp, refreshToken: string, remoteAddress = '198.19.0.1') =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/refresh',
    payload: { refresh_token: refreshToken },
    remoteAddress,
  });

const me = (t: TestApp, tokens: Tokens | string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(tokens) });

const logout = (t: TestApp, tokens: Tokens | string, payload?: Record<string, unknown>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/logout',
    headers: bearer(tokens),
    ...(payload ? { payload } : {}),
  });

describe('refresh tokens', () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ wallClock: wall });
  afterEach(() => wall.follow());

  it('rotates: new access and refresh tokens of the same session, the old refresh token used up', async () => {
    const { user } = await createTenant(t);
    const first = await signIn(t, user.email, user.password);
    const res = await refresh(t, first.refresh_token);
    expect(res.statusCode, res.body).toBe(200);
    const second = res.json();
    expect(second).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 900,
      refresh_token: expect.stringMatching(/^envoy_rt_[0-9A-Za-z]{40}$/),
      refresh_expires_in: 2_592_000,
    });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(t, second)).statusCode).toBe(200);
    // The chain goes on with each newest token.
    const third = await refresh(t, second.refresh_token);
    expect(third.statusCode).toBe(200);
    expect((await me(t, third.json())).json().user.id).toBe(user.id);
    // Only the hash is stored.
    const stored = await t.database.db.execute(
      sql`SELECT count(*)::int AS n FROM refresh_tokens WHERE token_hash = ${second.refresh_token}`,
    );
    expect(stored.rows[0]).toEqual({ n: 0 });
  });

  it('ends the whole session when a used refresh token comes back: 401, and the newest tokens stop too', async () => {
    const { user } = await createTenant(t);
    const first = await signIn(t, user.email, user.password);
    const second = (await refresh(t, first.refresh_token)).json<Tokens>();
    const elsewhere = await signIn(t, user.email, user.password);

    const reused = await refresh(t, first.refresh_token);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('refresh_token_reused');

    // The family is revoked: its newest refresh token and every access token of the session.
    const newest = await refresh(t, second.refresh_token);
    expect(newest.statusCode).toBe(401);
    expect(newest.json().error).toMatchObject({ code: 'invalid_refresh_token' });
    expect((await me(t, second)).statusCode).toBe(401);
    expect((await me(t, first)).statusCode).toBe(401);
    // Another session of the same user is not touched.
    expect((await me(t, elsewhere)).statusCode).toBe(200);
    expect((await refresh(t, elsewhere.refresh_token)).statusCode).toBe(200);
  });

  it('lets exactly one of several concurrent refreshes with one token through', async () => {
    const { user } = await createTenant(t);
    const tokens = await signIn(t, user.email, user.password);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => refresh(t, tokens.refresh_token, `198.19.1.${i + 1}`)),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 401, 401, 401]);
    // The first loser finds the token used and ends the session; a later one may find it ended.
    const codes = results.filter((x) => x.statusCode === 401).map((r) => r.json().error.code);
    expect(codes).toContain('refresh_token_reused');
    for (const code of codes) expect(['refresh_token_reused', 'invalid_refresh_token']).toContain(code);
    // A used token came back, so the session is over: strict reuse detection, even for a race.
    const winner = defined(
      results.find((r) => r.statusCode === 200),
      'results.find((r) => r.statusCode === 200)',
    ).json<Tokens>();
    expect((await me(t, winner)).statusCode).toBe(401);
    const rows = await t.database.db.execute(
      sql`SELECT count(*)::int AS n FROM refresh_tokens r JOIN auth_sessions s ON s.id = r.session_id
          JOIN users u ON u.id = s.user_id WHERE u.id = ${user.id} AND s.revoke_reason = 'refresh_token_reuse'`,
    );
    // The session's login token and the one winner issued; no second branch was ever written.
    expect(rows.rows[0]).toEqual({ n: 2 });
  });

  it('refuses an unknown, malformed or expired refresh token with 401 and ends nothing', async () => {
    const { user } = await createTenant(t);
    wall.freeze();
    const signedInAt = wall.ms();
    const tokens = await signIn(t, user.email, user.password);
    for (const token of [
      'envoy_rt_0000000000000000000000000000000000000000',
      'not-a-refresh-token',
      `${tokens.refresh_token}x`,
      tokens.access_token.slice(0, 200),
    ]) {
      const res = await refresh(t, token);
      expect(res.statusCode, token).toBe(401);
      expect(res.json().error.code).toBe('invalid_refresh_token');
    }
    expect((await me(t, tokens)).statusCode).toBe(200);
    // A second before the session's end its refresh token still works; at the end it has expired.
    const endsAt = signedInAt + 2_592_000_000;
    wall.set(endsAt - 1000);
    const last = await refresh(t, tokens.refresh_token);
    expect(last.statusCode, last.body).toBe(200);
    expect(last.json().refresh_expires_in).toBe(1);
    wall.set(endsAt);
    const expired = await refresh(t, last.json().refresh_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error).toEqual({
      code: 'invalid_refresh_token',
      message: 'The refresh token has expired',
      param: null,
    });
    // The session ran out; nothing ended it.
    const ended = await t.database.db.execute(
      sql`SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = ${user.id} AND revoked_at IS NOT NULL`,
    );
    expect(ended.rows[0]).toEqual({ n: 0 });
  });

  it('refuses a refresh with neither a refresh token in the body nor the cookie with 401 naming refresh_token', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: {} });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 'invalid_refresh_token', param: 'refresh_token' });
  });

  it('purges sessions a day after they ended or expired', async () => {
    const { user } = await createTenant(t);
    const tokens = await signIn(t, user.email, user.password);
    expect((await logout(t, tokens)).statusCode).toBe(204);
    // A day after it ended it is kept still; two days after, it is gone.
    wall.advance(86_400_000 - 60_000);
    const purge = defined(
      t.services.workers.find((w) => w.name === 'sessions-purge'),
      "t.services.workers.find((w) => w.name === 'sessions-purge')",
    );
    await purge.drain();
    const kept = await t.database.db.execute(
      sql`SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = ${user.id}`,
    );
    expect(kept.rows[0]).toEqual({ n: 2 });
    wall.advance(86_400_000);
    expect(await purge.drain()).toBeGreaterThanOrEqual(1);
    const left = await t.database.db.execute(
      sql`SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = ${user.id}`,
    );
    // The factory's login session is live and stays.
    expect(left.rows[0]).toEqual({ n: 1 });
    expect((await refresh(t, tokens.refresh_token)).json().error.code).toBe('invalid_refresh_token');
    wall.follow();
    expect((await me(t, user.token)).statusCode).toBe(200);
  });
});

describe('logout', () => {
  const t = useTestApp();

  it('ends the session of the access token: its access and refresh tokens stop, other sessions go on', async () => {
    const { user } = await createTenant(t);
    const tokens = await signIn(t, user.email, user.password);
    expect((await me(t, tokens)).statusCode).toBe(200);
    const res = await logout(t, tokens);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const after = await me(t, tokens);
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('not_authenticated');
    expect((await refresh(t, tokens.refresh_token)).json().error.code).toBe('invalid_refresh_token');
    expect((await logout(t, tokens)).statusCode).toBe(401);
    expect((await me(t, user.token)).statusCode).toBe(200);
  });

  it('also ends another session of the same user named by its refresh token, never someone else’s', async () => {
    const { user } = await createTenant(t);
    const stranger = await createTenant(t);
    const phone = await signIn(t, user.email, user.password);
    const laptop = await signIn(t, user.email, user.password);
    const theirs = await signIn(t, stranger.user.email, stranger.user.password);
    expect((await logout(t, laptop, { refresh_token: phone.refresh_token })).statusCode).toBe(204);
    expect((await me(t, phone)).statusCode).toBe(401);
    expect((await me(t, laptop)).statusCode).toBe(401);

    expect((await logout(t, user.token, { refresh_token: theirs.refresh_token })).statusCode).toBe(204);
    expect((await me(t, theirs)).statusCode).toBe(200);
    expect((await refresh(t, theirs.refresh_token)).statusCode).toBe(200);
  });

  it('works for a user without any organization', async () => {
    const orgId = await createOrg(t);
    const member = await createUser(t, orgId, 'MEMBER');
    await t.database.db.execute(sql`DELETE FROM memberships WHERE user_id = ${member.id}`);
    expect((await logout(t, member.token)).statusCode).toBe(204);
    expect((await me(t, member.token)).statusCode).toBe(401);
  });
});

describe('logout across instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const databaseUrl = await fileDatabaseUrl();
    a = await buildTestApp({ databaseUrl });
    b = await buildTestApp({ databaseUrl });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('stops the access token on the other instance as soon as it is logged out on one', async () => {
    const { user } = await createTenant(a);
    const tokens = await signIn(a, user.email, user.password);
    expect((await me(b, tokens)).statusCode).toBe(200);
    expect((await logout(a, tokens)).statusCode).toBe(204);
    // Every bearer request reads its session: the other instance refuses the token at once.
    const refused = await me(b, tokens);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('not_authenticated');
    expect((await refresh(b, tokens.refresh_token)).statusCode).toBe(401);
  });
});

describe('session secrets in logs', () => {
  const t = useTestApp({ captureLogs: true });

  it('never writes a refresh token', async () => {
    const { user } = await createTenant(t);
    const tokens = await signIn(t, user.email, user.password);
    const next = (await refresh(t, tokens.refresh_token)).json<Tokens>();
    await refresh(t, tokens.refresh_token);
    await logout(t, next, { refresh_token: next.refresh_token });
    const written = JSON.stringify(t.logs);
    expect(written).toContain('/api/v1/auth/refresh');
    for (const secret of [tokens.refresh_token, next.refresh_token, next.access_token, tokens.access_token]) {
      expect(written).not.toContain(secret);
    }
  });
});
