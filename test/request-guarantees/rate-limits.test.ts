import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

/** The wall clock stands still through each test: the reset times are read against it. */
const wall = new SettableWallClock();
const nowSeconds = () => Math.ceil(wall.ms() / 1000);

function expectRateHeaders(res: { headers: Record<string, unknown> }, limit: number, remaining?: number) {
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  if (remaining !== undefined) expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  const reset = Number(res.headers['x-ratelimit-reset']);
  // A Unix timestamp inside the one-minute window, not a number of seconds.
  expect(reset).toBeGreaterThanOrEqual(nowSeconds());
  expect(reset).toBeLessThanOrEqual(nowSeconds() + 60);
}

// With REDIS_URL (CI's second leg) the counters live in Redis, under a namespace of this file's own.
const redis = process.env.REDIS_URL
  ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `envoy-test-${randomBytes(6).toString('hex')}:` }
  : {};

describe(`rate limits (${process.env.REDIS_URL ? 'Redis' : 'in-process'} counters)`, () => {
  const t = useTestApp({
    env: {
      RATE_LIMIT_GENERAL_PER_MINUTE: '5',
      RATE_LIMIT_AUTH_PER_MINUTE: '3',
      RATE_LIMIT_API_KEYS_PER_MINUTE: '8',
      ...redis,
    },
    wallClock: wall,
  });
  beforeEach(() => wall.freeze());
  afterEach(() => wall.follow());

  it('puts the headers on 200, 401, 404, 422 and 429 responses', async () => {
    // api-keys category for a fresh user: 8 a minute.
    const { user } = await createTenant(t);
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    expect(ok.statusCode).toBe(200);
    expectRateHeaders(ok, 8, 7);
    const notFound = await t.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys/key_nope',
      headers: user.headers,
    });
    expect(notFound.statusCode).toBe(404);
    expectRateHeaders(notFound, 8, 6);
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: user.headers,
      payload: {},
    });
    expect(invalid.statusCode).toBe(422);
    expectRateHeaders(invalid, 8, 5);
    const unauthenticated = await t.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys',
      headers: { 'x-api-key': 'envoy_sk_nope' },
      remoteAddress: '10.9.9.1',
    });
    expect(unauthenticated.statusCode).toBe(401);
    expectRateHeaders(unauthenticated, 8, 7);
    const unknownRoute = await t.app.inject({
      method: 'GET',
      url: '/api/v1/nowhere',
      remoteAddress: '10.9.9.2',
    });
    expect(unknownRoute.statusCode).toBe(404);
    expectRateHeaders(unknownRoute, 5, 4);
  });

  it('answers 429 past the limit, with Retry-After and the seconds in the message', async () => {
    const { user } = await createTenant(t);
    for (let i = 0; i < 8; i++) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers })).statusCode,
      ).toBe(200);
    }
    const limited = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    expect(limited.statusCode).toBe(429);
    expectRateHeaders(limited, 8, 0);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.json()).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: `Rate limit exceeded: retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}`,
        param: null,
      },
    });
    expect(Number(limited.headers['x-ratelimit-reset'])).toBe(nowSeconds() + retryAfter);
  });

  it('counts each credential separately', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    for (let i = 0; i < 8; i++)
      await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers })).statusCode,
    ).toBe(429);
    const fresh = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: other.user.headers });
    expect(fresh.statusCode).toBe(200);
    expectRateHeaders(fresh, 8, 7);
  });

  it('counts API keys by key, in the general category outside /api-keys', async () => {
    const { user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: key.headers });
    expect(res.statusCode).toBe(200);
    expectRateHeaders(res, 5, 4);
    const keyed = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: key.headers });
    expect(keyed.statusCode).toBe(403);
    expectRateHeaders(keyed, 8, 7);
  });

  it('counts logins by client IP before checking the password', async () => {
    const { user } = await createTenant(t);
    const from = (ip: string, password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: user.email, password },
        remoteAddress: ip,
      });
    expect((await from('10.1.1.1', 'wrong')).statusCode).toBe(401);
    expect((await from('10.1.1.1', 'wrong')).statusCode).toBe(401);
    expect((await from('10.1.1.1', user.password)).statusCode).toBe(200);
    const blocked = await from('10.1.1.1', user.password);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('rate_limit_exceeded');
    expectRateHeaders(blocked, 3, 0);
    expect((await from('10.1.1.2', user.password)).statusCode).toBe(200);
  });

  it('counts refreshes by client IP, whatever bearer token comes with them', async () => {
    const { user } = await createTenant(t);
    const from = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        headers: user.headers,
        payload: { refresh_token: 'envoy_rt_0000000000000000000000000000000000000000' },
        remoteAddress: ip,
      });
    for (let i = 0; i < 3; i++) expect((await from('10.1.2.1')).statusCode).toBe(401);
    const blocked = await from('10.1.2.1');
    expect(blocked.statusCode).toBe(429);
    expectRateHeaders(blocked, 3, 0);
    expect((await from('10.1.2.2')).statusCode).toBe(401);
  });

  it('does not count or label health probes and the docs page', async () => {
    for (const url of ['/healthz', '/readyz', '/docs/']) {
      for (let i = 0; i < 7; i++) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: '10.2.2.2' });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    }
  });
});
