import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

const DASHBOARD = 'https://dashboard.example.com';

const preflight = (origin: string, url = '/api/v1/auth/login', requestHeaders = 'content-type') => ({
  method: 'OPTIONS' as const,
  url,
  headers: {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': requestHeaders,
  },
});

describe('CORS for browser dashboards', () => {
  const t = useTestApp({
    env: { CORS_ORIGINS: `${DASHBOARD}, https://ops.example.com`, RATE_LIMIT_AUTH_PER_MINUTE: '2' },
  });

  it('answers an allowed origin’s preflight before any credential, with the headers a dashboard sends', async () => {
    const res = await t.app.inject(
      preflight(DASHBOARD, '/api/v1/loads/stats', 'authorization,x-organization-id'),
    );
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    const allowed = String(res.headers['access-control-allow-headers']).split(', ');
    for (const h of [
      'Authorization',
      'Content-Type',
      'X-API-Key',
      'X-Organization-ID',
      'Idempotency-Key',
      'Last-Event-ID',
    ]) {
      expect(allowed).toContain(h);
    }
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toContain('Origin');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('answers a disallowed origin’s preflight without Access-Control-Allow-Origin', async () => {
    for (const origin of ['https://evil.example.com', 'http://localhost:5173', `${DASHBOARD}.evil.com`]) {
      const res = await t.app.inject(preflight(origin));
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('never counts a preflight against a rate limit, even past the limit', async () => {
    const remoteAddress = '198.51.100.7';
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({ ...preflight(DASHBOARD), remoteAddress });
      expect(res.statusCode).toBe(204);
    }
    // The login limit (2 a minute from this address) is untouched by the five preflights.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'nobody@example.com', password: 'wrong' },
      remoteAddress,
    });
    expect(login.statusCode).toBe(401);
    expect(login.headers['x-ratelimit-limit']).toBe('2');
    expect(login.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('lets the dashboard read the headers it needs on answers and on errors', async () => {
    const { user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads?page_size=1',
      headers: { ...key.headers, origin: DASHBOARD },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(DASHBOARD);
    const exposed = String(ok.headers['access-control-expose-headers']).split(', ');
    expect(exposed).toEqual([
      'X-Request-ID',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'Idempotent-Replayed',
      'Location',
    ]);
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads',
      headers: { origin: DASHBOARD },
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(DASHBOARD);
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads',
      headers: { ...key.headers, origin: 'https://evil.example.com' },
    });
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('treats an OPTIONS that is no preflight as an unknown route', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/loads' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
  });
});

describe('CORS settings', () => {
  const base = { JWT_SECRET: 'x'.repeat(32), LOG_LEVEL: 'silent' };
  const quiet = () => {};

  it('allows local development servers by default in development only', () => {
    expect(loadConfig({ ...base, NODE_ENV: 'development' }, quiet).cors).toEqual({
      origins: [],
      any: false,
      localDevelopment: true,
    });
    expect(loadConfig({ ...base, NODE_ENV: 'production' }, quiet).cors.localDevelopment).toBe(false);
    expect(loadConfig({ ...base, NODE_ENV: 'development', CORS_ORIGINS: DASHBOARD }, quiet).cors).toEqual({
      origins: [DASHBOARD],
      any: false,
      localDevelopment: false,
    });
  });

  it('refuses * in production and anything that is not an exact origin, naming the variable', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', CORS_ORIGINS: '*' }, quiet)).toThrow(
      /CORS_ORIGINS: '\*' is refused when NODE_ENV is production/,
    );
    expect(loadConfig({ ...base, NODE_ENV: 'development', CORS_ORIGINS: '*' }, quiet).cors.any).toBe(true);
    for (const bad of [
      'https://app.example.com/',
      'app.example.com',
      'https://app.example.com/path',
      'ftp://x.y',
    ]) {
      expect(() => loadConfig({ ...base, CORS_ORIGINS: bad }, quiet)).toThrow(
        /CORS_ORIGINS: '.*' is not an origin/,
      );
    }
  });
});

describe('CORS in development', () => {
  const t = useTestApp({ env: { NODE_ENV: 'development', DATA_DIR: '/tmp/envoy-cors-dev-test' } });

  it('allows a dev server on any localhost port and nothing else', async () => {
    for (const origin of [
      'http://localhost:5173',
      'http://127.0.0.1:3001',
      'http://[::1]:8080',
      'http://localhost',
    ]) {
      const res = await t.app.inject(preflight(origin));
      expect(res.headers['access-control-allow-origin'], origin).toBe(origin);
    }
    for (const origin of ['https://localhost:5173', 'http://localhost.evil.com', 'http://10.0.0.5:5173']) {
      const res = await t.app.inject(preflight(origin));
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
  });
});
