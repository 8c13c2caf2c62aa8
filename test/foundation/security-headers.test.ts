import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { objectsOf } from '../../src/lib/json-object.js';
import { buildTestApp, type TestApp, useTestApp } from '../helpers/app.js';
import { StreamClient } from '../helpers/event-stream-client.js';
import { createTenant, createUser } from '../helpers/factories.js';

type Headers = Record<string, string | string[] | number | undefined>;

/** What every API response carries, whatever its class. */
function expectApiHeaders(headers: Headers, what: string) {
  expect(headers['x-content-type-options'], what).toBe('nosniff');
  expect(headers['x-frame-options'], what).toBe('DENY');
  expect(headers['content-security-policy'], what).toBe("default-src 'none';frame-ancestors 'none'");
  expect(headers['referrer-policy'], what).toBe('no-referrer');
  expect(headers['strict-transport-security'], what).toBeUndefined();
}

const expectNoStore = (res: LightMyRequestResponse, what: string) =>
  expect(res.headers['cache-control'], what).toBe('no-store');

describe('security headers on every class of response', () => {
  const t = useTestApp({
    env: { WORKERS_ENABLED: 'false' },
    extend: (app) => {
      app.get('/probe/fail', async () => {
        throw new Error('probe failure');
      });
    },
  });

  it('2xx JSON (the login token included), 4xx and 5xx errors, 204 and CSV carry them, with no-store', async () => {
    const { orgId, user } = await createTenant(t);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(login.statusCode).toBe(200);
    expect(login.json().access_token).toBeTruthy();
    expectApiHeaders(login.headers, 'login');
    expectNoStore(login, 'login');

    const me = await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers });
    expect(me.statusCode).toBe(200);
    expectApiHeaders(me.headers, 'me');
    expectNoStore(me, 'me');

    const missing = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads/load_nope',
      headers: user.headers,
    });
    expect(missing.statusCode).toBe(404);
    expectApiHeaders(missing.headers, '404');
    expectNoStore(missing, '404');

    const unauthenticated = await t.app.inject({ method: 'GET', url: '/api/v1/loads' });
    expect(unauthenticated.statusCode).toBe(401);
    expectApiHeaders(unauthenticated.headers, '401');

    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/v1/agent/results',
      headers: { ...user.headers, accept: 'text/csv' },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expectApiHeaders(csv.headers, 'csv');
    expectNoStore(csv, 'csv');

    const other = await createUser(t, orgId);
    const logout = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: other.headers });
    expect(logout.statusCode).toBe(204);
    expectApiHeaders(logout.headers, '204');
    expectNoStore(logout, '204');

    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expectApiHeaders(health.headers, 'healthz');
  });

  it('a 5xx error carries them too', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/probe/fail' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('internal_error');
    expectApiHeaders(res.headers, '500');
    expectNoStore(res, '500');
  });

  it('sends HSTS only when a trusted proxy says the request came over HTTPS', async () => {
    const plain = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-forwarded-proto': 'https' },
    });
    // TRUST_PROXY is off here: the header is anyone's to send.
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const proxied = await buildTestApp({ env: { WORKERS_ENABLED: 'false', TRUST_PROXY: 'true' } });
    try {
      const https = await proxied.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(https.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      const http = await proxied.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-forwarded-proto': 'http' },
      });
      expect(http.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });

  it('serves /docs in development with a policy that lets its own scripts and styles load', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // Every script the page loads is its own, and is served.
    const scripts = [...page.body.matchAll(/<script src="([^"]+)"/g)].map((m) => defined(m[1], 'm[1]'));
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      const url = new URL(src, 'http://x/docs').pathname;
      const script = await t.app.inject({ method: 'GET', url });
      expect(script.statusCode, url).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
  });
});

describe('/docs in production', () => {
  const env = { NODE_ENV: 'production', WORKERS_ENABLED: 'false', SECRETS_ENCRYPTION_KEY: 'k'.repeat(40) };

  it('is off unless DOCS_ENABLED=true', async () => {
    const off = await buildTestApp({ env });
    try {
      for (const url of ['/docs', '/docs/json', '/docs/static/swagger-ui.css']) {
        expect((await off.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      }
    } finally {
      await off.close();
    }
    const on = await buildTestApp({ env: { ...env, DOCS_ENABLED: 'true' } });
    try {
      expect((await on.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(200);
    } finally {
      await on.close();
    }
  });
});

describe('the event stream', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { WORKERS_ENABLED: 'false' } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('carries the security headers and no-store', async () => {
    const { user } = await createTenant(t);
    const ticket = await t.app.inject({
      method: 'POST',
      url: '/api/v1/events/stream-tickets',
      headers: user.headers,
    });
    expect(ticket.statusCode).toBe(201);
    const s = await StreamClient.open(`${base}${ticket.json().stream_url}`, {});
    try {
      expect(s.status).toBe(200);
      expectApiHeaders(s.headers, 'stream');
      expect(s.headers['cache-control']).toBe('no-store, no-transform');
    } finally {
      s.close();
    }
  });
});

describe('request hygiene', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('answers TRACE and other unrouted methods on a known path with 405 and Allow', async () => {
    const { user } = await createTenant(t);
    for (const method of ['TRACE', 'PUT'] as const) {
      const res = await t.app.inject({ method, url: '/api/v1/loads', headers: user.headers });
      expect(res.statusCode, method).toBe(405);
      expect(res.headers.allow, method).toBe('GET, HEAD, POST');
      expect(res.json().error.code).toBe('method_not_allowed');
    }
    const byId = await t.app.inject({ method: 'TRACE', url: '/api/v1/loads/load_1/', headers: user.headers });
    expect(byId.statusCode).toBe(405);
    expect(byId.headers.allow).toBe('GET, HEAD, PATCH');
    const health = await t.app.inject({ method: 'TRACE', url: '/healthz' });
    expect(health.statusCode).toBe(405);
    expect(health.headers.allow).toBe('GET, HEAD');
    expect((await t.app.inject({ method: 'TRACE', url: '/nowhere' })).statusCode).toBe(404);
  });

  it('refuses a __proto__ key with a message that says so', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: '{"load_number":"P-1","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toContain('__proto__');
    expect(res.json().detail[0].type).toBe('forbidden_key');
    expect(res.json().error.message).not.toContain('not valid JSON');
  });

  it('declares no organization header on the health probes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    for (const path of ['/healthz', '/readyz']) {
      expect(doc.paths[path].get.parameters ?? [], path).toEqual([]);
    }
    const loads = objectsOf(doc.paths['/api/v1/loads'].get.parameters);
    expect(loads.some((p) => p.$ref === '#/components/parameters/OrganizationId')).toBe(true);
  });
});
