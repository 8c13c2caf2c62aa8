import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, fileDatabaseUrl, type TestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';

const redisUrl = process.env.REDIS_URL;

describe('two instances behind one load balancer', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const databaseUrl = await fileDatabaseUrl();
    // Both instances count in the same Redis namespace when there is a Redis.
    const env = {
      RATE_LIMIT_API_KEYS_PER_MINUTE: '6',
      ...(redisUrl
        ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `envoy-test-${randomBytes(6).toString('hex')}:` }
        : {}),
    };
    a = await buildTestApp({ databaseUrl, env });
    b = await buildTestApp({ databaseUrl, env });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('replays on one instance what the other executed', async () => {
    const { user } = await createTenant(a);
    const request = {
      method: 'POST' as const,
      url: '/api/v1/api-keys',
      headers: { ...user.headers, 'idempotency-key': 'across' },
      payload: { name: 'shared' },
    };
    const first = await a.app.inject(request);
    expect(first.statusCode).toBe(201);
    const second = await b.app.inject(request);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
  });

  it('executes once when both instances get the same key at the same instant', async () => {
    const { user } = await createTenant(a);
    const request = {
      method: 'POST' as const,
      url: '/api/v1/api-keys',
      headers: { ...user.headers, 'idempotency-key': 'simultaneous' },
      payload: { name: 'once' },
    };
    const results = await Promise.all([a.app.inject(request), b.app.inject(request), a.app.inject(request)]);
    const executed = results.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    expect(executed).toHaveLength(1);
    for (const r of results) expect([201, 409]).toContain(r.statusCode);
    const list = await b.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    expect(list.json().pagination.total_count).toBe(1);
  });

  it('stops a key deactivated on one instance on the other within about a second', async () => {
    const { user } = await createTenant(a);
    const key = await createApiKey(a, user.headers);
    const read = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: key.headers });
    // Instance b has validated the key and trusts it from memory.
    expect((await read(b)).statusCode).toBe(200);
    const gone = await a.app.inject({
      method: 'DELETE',
      url: `/api/v1/api-keys/${key.id}`,
      headers: user.headers,
    });
    expect(gone.statusCode).toBe(200);
    const refused = await waitFor(
      () => read(b),
      (res) => res.statusCode === 401,
      1500,
    );
    expect(refused.json().error.message).toBe('The API key has been deactivated');
  });

  it('ends a regenerated key on the other instance when its grace period is over', async () => {
    const { user } = await createTenant(a);
    const key = await createApiKey(a, user.headers);
    const read = (t: TestApp, headers = key.headers) =>
      t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers });
    expect((await read(b)).statusCode).toBe(200);
    const regenerated = await a.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${key.id}/regenerate`,
      headers: user.headers,
      payload: { expire_old_in_seconds: 0 },
    });
    expect(regenerated.statusCode, regenerated.body).toBe(201);
    const refused = await waitFor(
      () => read(b),
      (res) => res.statusCode === 401,
      1500,
    );
    expect(refused.json().error.message).toBe('The API key has expired');
    expect((await read(b, { 'x-api-key': regenerated.json().key })).statusCode).toBe(200);
  });

  it.skipIf(!redisUrl)('shares rate-limit counters through Redis', async () => {
    const { user } = await createTenant(a);
    const get = (t: TestApp) =>
      t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: user.headers });
    const seen = [];
    for (const t of [a, b, a, b, a, b]) {
      const res = await get(t);
      expect(res.statusCode).toBe(200);
      seen.push(Number(res.headers['x-ratelimit-remaining']));
    }
    expect(seen).toEqual([5, 4, 3, 2, 1, 0]);
    expect((await get(a)).statusCode).toBe(429);
    expect((await get(b)).statusCode).toBe(429);
  });
});
