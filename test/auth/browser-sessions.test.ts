import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { objectOf } from '../../src/lib/json-object.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';

const REFRESH = '/api/v1/auth/refresh';
const HOST = 'console.test';
const SAME_ORIGIN = { host: HOST, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' };

/** The `envoy_refresh` Set-Cookie header of an answer, parsed into its value and attributes. */
function refreshCookie(res: { headers: Record<string, unknown> }) {
  const raw = res.headers['set-cookie'];
  const line = [raw].flat().find((c): c is string => typeof c === 'string' && c.startsWith('envoy_refresh='));
  if (!line) return null;
  const [pair, ...attrs] = line.split(/;\s*/);
  return {
    value: decodeURIComponent(pair?.slice('envoy_refresh='.length) ?? ''),
    attrs: attrs.map((a) => a.toLowerCase()),
  };
}

async function cookieLogin(
  t: TestApp,
  email: string,
  password: string,
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers,
    payload: { email, password, use_cookie: true },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = refreshCookie(res);
  if (!cookie) throw new Error('no refresh cookie set');
  return { body: res.json<Record<string, unknown>>(), cookie, res };
}

const refreshByCookie = (t: TestApp, value: string, headers: Record<string, string> = SAME_ORIGIN) =>
  t.app.inject({ method: 'POST', url: REFRESH, headers: { ...headers, cookie: `envoy_refresh=${value}` } });

const sessionEnd = async (t: TestApp, userId: string) => {
  const rows = await t.database.db.execute<{ expires_at: string }>(
    sql`SELECT expires_at::text FROM auth_sessions WHERE user_id = ${userId}`,
  );
  return rows.rows.map((r) => r.expires_at);
};

describe('a browser session: the refresh token in an HttpOnly cookie', () => {
  const t = useTestApp();

  it('sets the refresh token as an HttpOnly, SameSite=Strict cookie scoped to the refresh path, not in the body', async () => {
    const { user } = await createTenant(t);
    const { body, cookie, res } = await cookieLogin(t, user.email, user.password, { host: HOST });
    expect(body.refresh_token).toBeUndefined();
    expect(body.access_token).toEqual(expect.any(String));
    expect(cookie.value).toMatch(/^envoy_rt_/);
    expect(cookie.attrs).toEqual(
      expect.arrayContaining(['httponly', 'samesite=strict', `path=${REFRESH}`, 'max-age=2592000']),
    );
    // Plain http (development on localhost): not Secure, or the browser would drop it.
    expect(cookie.attrs).not.toContain('secure');
    // Beside it, a hint the page can read, holding no secret: a refresh cookie exists.
    const hint = [res.headers['set-cookie']].flat().find((c) => String(c).startsWith('envoy_session='));
    expect(String(hint)).toMatch(/^envoy_session=1; Max-Age=2592000; Path=\/; SameSite=Strict$/);
  });

  it('refreshes from a page of the same origin, rotating the cookie; the old cookie is then refused as reused', async () => {
    const { user } = await createTenant(t);
    const { cookie } = await cookieLogin(t, user.email, user.password, { host: HOST });
    const res = await refreshByCookie(t, cookie.value);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().refresh_token).toBeUndefined();
    const next = refreshCookie(res);
    expect(next?.value).toMatch(/^envoy_rt_/);
    expect(next?.value).not.toBe(cookie.value);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${res.json().access_token}` },
    });
    expect(me.statusCode).toBe(200);

    const reused = await refreshByCookie(t, cookie.value);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('refresh_token_reused');
    // A refused cookie is cleared.
    expect(refreshCookie(reused)?.attrs).toContain('max-age=0');
  });

  it('refuses a refresh by cookie from another site, or without an Origin', async () => {
    const { user } = await createTenant(t);
    const { cookie } = await cookieLogin(t, user.email, user.password, { host: HOST });
    const refused: Record<string, string>[] = [
      { host: HOST, origin: 'https://attacker.example' },
      { host: HOST },
      { host: HOST, origin: `http://${HOST}`, 'sec-fetch-site': 'cross-site' },
      { host: HOST, origin: `https://${HOST}` },
    ];
    for (const headers of refused) {
      const res = await refreshByCookie(t, cookie.value, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.code).toBe('cross_site_request');
    }
    // Nothing was used up: the same cookie still refreshes from the page itself.
    expect((await refreshByCookie(t, cookie.value)).statusCode).toBe(200);
  });

  it('answers 401 naming refresh_token without a cookie and without a refresh_token in the body', async () => {
    const res = await t.app.inject({ method: 'POST', url: REFRESH, headers: SAME_ORIGIN, payload: {} });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 'invalid_refresh_token', param: 'refresh_token' });
  });

  it('clears the cookie on sign-out, and the session is over', async () => {
    const { user } = await createTenant(t);
    const { body, cookie } = await cookieLogin(t, user.email, user.password, { host: HOST });
    const out = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { host: HOST, authorization: `Bearer ${body.access_token}` },
    });
    expect(out.statusCode).toBe(204);
    expect(refreshCookie(out)).toMatchObject({ value: '', attrs: expect.arrayContaining(['max-age=0']) });
    expect((await refreshByCookie(t, cookie.value)).statusCode).toBe(401);
  });

  it('keeps the JSON tokens for other clients: without use_cookie the body has the refresh token and no cookie is set', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(res.json().refresh_token).toMatch(/^envoy_rt_/);
    expect(refreshCookie(res)).toBeNull();
  });
});

describe('a browser session behind HTTPS', () => {
  const t = useTestApp({ env: { TRUST_PROXY: 'true' } });

  it('marks the cookie Secure when the request came over HTTPS', async () => {
    const { user } = await createTenant(t);
    const { cookie } = await cookieLogin(t, user.email, user.password, {
      host: HOST,
      'x-forwarded-proto': 'https',
    });
    expect(cookie.attrs).toContain('secure');
    const res = await refreshByCookie(t, cookie.value, {
      host: HOST,
      'x-forwarded-proto': 'https',
      origin: `https://${HOST}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(refreshCookie(res)?.attrs).toContain('secure');
  });
});

describe("a session's fixed end", () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ wallClock: wall });
  afterEach(() => wall.follow());

  it('is set at sign-in and no refresh moves it', async () => {
    const { user } = await createTenant(t);
    wall.freeze();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: user.password },
    });
    const ends = await sessionEnd(t, user.id);
    let token: string = login.json().refresh_token;
    for (let i = 1; i <= 3; i++) {
      wall.advance(3_600_000);
      const res = await t.app.inject({ method: 'POST', url: REFRESH, payload: { refresh_token: token } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().refresh_expires_in).toBe(2_592_000 - i * 3600);
      token = res.json().refresh_token;
    }
    expect((await sessionEnd(t, user.id)).sort()).toEqual(ends.sort());
    // Every refresh token of the session expires with it, not 30 days after its own issue.
    const tokens = await t.database.db.execute<{ same: boolean }>(sql`
      SELECT r.expires_at = s.expires_at AS same FROM refresh_tokens r
      JOIN auth_sessions s ON s.id = r.session_id WHERE s.user_id = ${user.id}`);
    expect(tokens.rows.length).toBeGreaterThanOrEqual(4);
    expect(tokens.rows.every((r) => r.same)).toBe(true);
  });

  it('stops the refresh token and the access tokens once the end has passed', async () => {
    const { user } = await createTenant(t);
    wall.freeze();
    const endsAt = wall.ms() + 2_592_000_000;
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: user.password },
    });
    // A minute before the end: a refresh gives an access token good for 15 minutes on its own.
    wall.set(endsAt - 60_000);
    const last = await t.app.inject({
      method: 'POST',
      url: REFRESH,
      payload: { refresh_token: login.json().refresh_token },
    });
    expect(last.statusCode, last.body).toBe(200);
    const { access_token, refresh_token } = last.json();
    const me = () =>
      t.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${access_token}` },
      });
    expect((await me()).statusCode).toBe(200);
    // The end comes: both stop with the session.
    wall.set(endsAt);
    const res = await t.app.inject({ method: 'POST', url: REFRESH, payload: { refresh_token } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('invalid_refresh_token');
    expect((await me()).statusCode).toBe(401);
  });
});

describe('a stream ticket in a URL', () => {
  const t = useTestApp({ captureLogs: true });

  it('is redacted in the request log, on the stream route and on any other route it is sent to', async () => {
    const { user } = await createTenant(t);
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/events/stream-tickets',
      headers: user.headers,
    });
    expect(issued.statusCode, issued.body).toBe(201);
    const ticket = new URL(issued.json().stream_url, 'http://x').searchParams.get('ticket') ?? '';
    expect(ticket).not.toBe('');
    // Sent to a route that does not take tickets: the ticket is not used there, and must not be readable in the log.
    await t.app.inject({ method: 'GET', url: `/api/v1/loads?ticket=${ticket}&marker=other` });
    // On the stream route itself (a ticket already used or unknown: 401, and not logged either).
    const stale = await t.app.inject({
      method: 'GET',
      url: '/api/v1/events/stream?ticket=stale-ticket-value-9',
    });
    expect(stale.statusCode).toBe(401);
    const text = JSON.stringify(t.logs);
    expect(text).not.toContain(ticket);
    expect(text).not.toContain('stale-ticket-value-9');
    const urls = t.logs.map((l) => objectOf(l.req)?.url).filter((u) => typeof u === 'string');
    expect(urls).toEqual(expect.arrayContaining(['/api/v1/loads?ticket=[redacted]&marker=other']));
  });
});
