import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { newId } from '../../src/domain/ids.js';
import { pagination } from '../../src/domain/pagination.js';
import { useTestApp } from '../helpers/app.js';
import { instanceOf } from '../helpers/narrow.js';

describe('health, readiness and documentation', () => {
  const t = useTestApp();

  it('answers /healthz and /readyz without credentials', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    // Readiness says which clock the product runs on (the machine's here) and whether this
    // instance hears its notification channels.
    expect(ready.json()).toEqual({
      status: 'ok',
      notifications: [
        { channel: 'envoy_api_key_changed', listening: true },
        { channel: 'envoy_events', listening: true },
      ],
      clock: { kind: 'real', speed: 1, now: expect.any(String) },
    });
    expect(Math.abs(Date.parse(ready.json().clock.now) - Date.now())).toBeLessThan(60_000);
    // Each listener hears its own channel, notified through the pool.
    const [keys, events] = t.services.listeners;
    expect(await Promise.all([keys?.probe(), events?.probe()])).toEqual([true, true]);
    // A listener that does not hear leaves the instance serving, degraded.
    await keys?.stop();
    const degraded = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(degraded.statusCode).toBe(200);
    expect(degraded.json()).toMatchObject({
      status: 'degraded',
      notifications: [
        { channel: 'envoy_api_key_changed', listening: false },
        { channel: 'envoy_events', listening: true },
      ],
    });
  });

  it('serves an OpenAPI 3.1 document with the security schemes', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/readyz'].get.operationId).toBe('getReadiness');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    expect(doc.components.schemas.Error).toBeDefined();
  });

  it('serves a browsable documentation page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('configuration', () => {
  it('names every bad variable', () => {
    expect(() =>
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x/y', JWT_SECRET: 'short' }, () => {}),
    ).toThrowError(ConfigError);
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x/y', JWT_SECRET: 'short' }, () => {});
    } catch (err) {
      const { message } = instanceOf(err, ConfigError);
      expect(message).toMatch(/PORT/);
      expect(message).toMatch(/DATABASE_URL/);
      expect(message).toMatch(/JWT_SECRET: must be at least 32 characters/);
    }
  });

  it('refuses a DATABASE_URL listing several hosts, saying what to set instead', () => {
    const secret = 'x'.repeat(32);
    for (const url of [
      'postgres://envoy@db1:5432,db2:5432/envoy?target_session_attrs=read-write',
      'postgres://envoy:secret@db1,db2/envoy',
    ]) {
      expect(() => loadConfig({ DATABASE_URL: url, JWT_SECRET: secret }, () => {})).toThrowError(
        /DATABASE_URL: lists several hosts.*HAProxy/,
      );
    }
    // A comma in the password is no second host.
    expect(
      loadConfig({ DATABASE_URL: 'postgres://envoy:a,b@db1/envoy', JWT_SECRET: secret }, () => {})
        .databaseUrl,
    ).toBe('postgres://envoy:a,b@db1/envoy');
  });

  it('reads the pooler settings, and warns when LISTEN would go through the pooler', () => {
    const warnings: string[] = [];
    const base = { JWT_SECRET: 'x'.repeat(32), DATABASE_URL: 'postgres://envoy@pgbouncer:6432/envoy' };
    const pooled = loadConfig({ ...base, DB_POOLER: 'transaction' }, (m) => warnings.push(m));
    expect(pooled.db).toMatchObject({ pooler: 'transaction', directUrl: undefined });
    expect(warnings).toEqual([expect.stringMatching(/^DB_POOLER=transaction without DATABASE_DIRECT_URL/)]);
    warnings.length = 0;
    const direct = loadConfig(
      { ...base, DB_POOLER: 'transaction', DATABASE_DIRECT_URL: 'postgres://envoy@db1:5432/envoy' },
      (m) => warnings.push(m),
    );
    expect(direct.db).toMatchObject({ pooler: 'transaction', directUrl: 'postgres://envoy@db1:5432/envoy' });
    expect(warnings).toEqual([]);
    expect(() => loadConfig({ ...base, DB_POOLER: 'session' }, () => {})).toThrowError(/DB_POOLER/);
  });

  it('reads the replicas and the body workers, refusing a replica URL it cannot use by name', () => {
    const base = { JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig(base, () => {}).db.replicas).toEqual({ urls: [], maxLagMs: 5000, probeMs: 1000 });
    const read = loadConfig(
      {
        ...base,
        DATABASE_READ_URLS: ' postgres://envoy@r1/envoy, postgres://envoy@r2/envoy ',
        DB_REPLICA_MAX_LAG_MS: '2000',
      },
      () => {},
    );
    expect(read.db.replicas).toEqual({
      urls: ['postgres://envoy@r1/envoy', 'postgres://envoy@r2/envoy'],
      maxLagMs: 2000,
      probeMs: 1000,
    });
    expect(() =>
      loadConfig({ ...base, DATABASE_READ_URLS: 'postgres://envoy@r1/envoy,http://r2' }, () => {}),
    ).toThrowError(/DATABASE_READ_URLS/);
    expect(loadConfig({ ...base, BODY_WORKER_THREADS: '0' }, () => {}).bodyWorkers).toEqual({
      threads: 0,
      use: 'shared',
    });
    expect(() => loadConfig({ ...base, BODY_WORKER_USE: 'sometimes' }, () => {})).toThrowError(
      /BODY_WORKER_USE/,
    );
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' }, () => {})).toThrowError(/JWT_SECRET: required/);
  });

  it('freezes the parsed configuration', () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), RATE_LIMIT_GENERAL_PER_MINUTE: '7' }, () => {});
    expect(config.rateLimits.general).toBe(7);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rateLimits)).toBe(true);
  });
});

describe('identifiers and pagination', () => {
  it('makes prefixed, time-ordered UUIDv7 ids', () => {
    const a = newId('load');
    const b = newId('load');
    expect(a).toMatch(/^load_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
  });

  it('computes the envelope of the spec', () => {
    expect(pagination(1, 10, 0)).toEqual({
      page: 1,
      page_size: 10,
      total_count: 0,
      total_pages: 0,
      has_next: false,
      has_prev: false,
    });
    expect(pagination(3, 10, 21)).toMatchObject({ total_pages: 3, has_next: false, has_prev: true });
    expect(pagination(4, 10, 21)).toMatchObject({ total_pages: 3, has_next: false, has_prev: true });
    expect(pagination(1, 100, 101)).toMatchObject({ total_pages: 2, has_next: true, has_prev: false });
  });
});
