import { and, eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { access } from '../../src/http/access.js';
import { scopeOf } from '../../src/http/authentication.js';
import { idempotencyKeys } from '../../src/http/idempotency-tables.js';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { defined } from '../../src/lib/defined.js';
import { buildTestApp, drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';

/** A request the test keeps running: `entered` once its handler runs, until `release`. */
interface Held {
  entered: Promise<void>;
  release(): void;
}

/** Handlers of the slow probe held open, by the `hold` the request names; each holds one request. */
const holds = new Map<string, { enter(): void; released: Promise<void> }>();

function hold(name: string): Held {
  let enter!: () => void;
  let release!: () => void;
  const entered = new Promise<void>((r) => {
    enter = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  holds.set(name, { enter, released });
  return { entered, release };
}

/** Probe routes: one that fails with a 500 on its first call, one the test holds open. */
function probes(calls: { flaky: number; slow: number }): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/probe/flaky',
      { config: { access: access.any, idempotent: true }, schema: { body: z.object({ n: z.number() }) } },
      async (request, reply) => {
        scopeOf(request);
        calls.flaky += 1;
        if (calls.flaky === 1) throw new Error('downstream exploded');
        return reply.status(201).send({ call: calls.flaky, n: request.body.n });
      },
    );
    app.post(
      '/probe/slow',
      { config: { access: access.any, idempotent: true }, schema: { body: z.object({ hold: z.string() }) } },
      async (request, reply) => {
        calls.slow += 1;
        const call = calls.slow;
        const held = holds.get(request.body.hold);
        if (held) {
          holds.delete(request.body.hold);
          held.enter();
          await held.released;
        }
        return reply.status(201).send({ call });
      },
    );
  };
}

async function keyCount(t: TestApp, headers: Record<string, string>) {
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers });
  return res.json<{ pagination: { total_count: number } }>().pagination.total_count;
}

describe('Idempotency-Key', () => {
  let t: TestApp;
  const calls = { flaky: 0, slow: 0 };
  beforeAll(async () => {
    t = await buildTestApp({
      env: { IDEMPOTENCY_LOCK_SECONDS: '30' },
      extend: (app) => void app.register(probes(calls), { prefix: '/api/v1' }),
    });
  });
  afterAll(() => t.close());

  const createKey = (headers: Record<string, string>, key: string, payload: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { ...headers, 'idempotency-key': key },
      payload,
    });

  it('replays the stored response without running the operation again', async () => {
    const { user } = await createTenant(t);
    const first = await createKey(user.headers, 'create-1', { name: 'replayed' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await createKey(user.headers, 'create-1', { name: 'replayed' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.json()).toEqual(first.json());
    expect(await keyCount(t, user.headers)).toBe(1);
  });

  it('treats the same body with keys in another order as the same request', async () => {
    const { user } = await createTenant(t);
    const first = await createKey(user.headers, 'order', { name: 'n', description: 'd' });
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: { ...user.headers, 'idempotency-key': 'order', 'content-type': 'application/json' },
      payload: '{"description":"d","name":"n"}',
    });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().id).toBe(first.json().id);
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
  });

  it('runs two concurrent requests with one key once: one 201, the other a 409 or a replay', async () => {
    const { user } = await createTenant(t);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => createKey(user.headers, 'race', { name: 'raced' })),
    );
    const executed = results.filter((r) => r.statusCode === 201 && !r.headers['idempotent-replayed']);
    expect(executed).toHaveLength(1);
    for (const r of results) {
      if (r === executed[0]) continue;
      if (r.statusCode === 409) {
        expect(r.json().error).toMatchObject({
          code: 'idempotency_key_in_progress',
          param: 'idempotency-key',
        });
      } else {
        expect(r.statusCode).toBe(201);
        expect(r.headers['idempotent-replayed']).toBe('true');
        expect(r.json().id).toBe(defined(executed[0], 'executed[0]').json().id);
      }
    }
    expect(await keyCount(t, user.headers)).toBe(1);
  });

  it('answers 409 while the first request is still running', async () => {
    const { user } = await createTenant(t);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/probe/slow',
        headers: { ...user.headers, 'idempotency-key': 'slow-1' },
        payload: { hold: 'slow-1' },
      });
    const running = hold('slow-1');
    const first = send();
    await running.entered;
    const duplicate = await send();
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().error.code).toBe('idempotency_key_in_progress');
    running.release();
    expect((await first).statusCode).toBe(201);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it("lets a retry take over the key at once when the first request's connection dies", async () => {
    const { orgId, user } = await createTenant(t);
    const before = calls.slow;
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/probe/slow',
        headers: { ...user.headers, 'idempotency-key': 'stuck' },
        payload: { hold: 'stuck' },
      });
    const running = hold('stuck');
    const stuck = send();
    await running.entered;
    // The claim is part of the request's transaction: nothing is visible until it commits, and the
    // key's lock makes a retry meanwhile a 409.
    const claim = and(eq(idempotencyKeys.organization_id, orgId), eq(idempotencyKeys.key, 'stuck'));
    expect(await t.database.db.select().from(idempotencyKeys).where(claim)).toEqual([]);
    expect((await send()).statusCode).toBe(409);
    // The request's connection dies (its backend is terminated): its transaction and lock go with
    // it, and the retry runs at once. Its backend is the one holding the key's advisory lock (a
    // request that just ended may still be idle in its transaction for a moment).
    const { rows } = await t.database.pool.query(
      `SELECT a.pid, pg_terminate_backend(a.pid) AS gone FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
        WHERE a.datname = current_database() AND a.state = 'idle in transaction' AND a.pid <> pg_backend_pid()
          AND l.locktype = 'advisory' AND l.granted`,
    );
    expect(rows.length).toBe(1);
    // Terminating only signals the backend: its lock goes when it has exited.
    while (
      (await t.database.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0].pid])).rowCount
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const retry = await send();
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(calls.slow - before).toBe(2);
    // The first request finishes: its transaction was rolled back, and it says so.
    running.release();
    const first = await stuck;
    expect(first.statusCode).toBe(503);
    expect(first.json().error.message).toContain('not applied');
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retry.json());
  });

  it('answers 422 idempotency_key_reused for the same key with another body or path', async () => {
    const { user } = await createTenant(t);
    await createKey(user.headers, 'reuse', { name: 'first' });
    const otherBody = await createKey(user.headers, 'reuse', { name: 'second' });
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json().error).toEqual({
      code: 'idempotency_key_reused',
      message: "Idempotency-Key 'reuse' was already used with a different request",
      param: 'idempotency-key',
    });
    expect(await keyCount(t, user.headers)).toBe(1);
  });

  it('frees the key when the operation fails with a 500', async () => {
    const { user } = await createTenant(t);
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/probe/flaky',
        headers: { ...user.headers, 'idempotency-key': 'flaky' },
        payload: { n: 7 },
      });
    const failed = await send();
    expect(failed.statusCode).toBe(500);
    const retried = await send();
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json()).toEqual({ call: 2, n: 7 });
    const replayed = await send();
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual({ call: 2, n: 7 });
  });

  it('stores and replays a 4xx outcome too', async () => {
    const { user } = await createTenant(t);
    const invalid = await createKey(user.headers, 'bad-body', { name: '' });
    expect(invalid.statusCode).toBe(422);
    const again = await createKey(user.headers, 'bad-body', { name: '' });
    expect(again.statusCode).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(invalid.json());
  });

  it('scopes keys to the organization and the endpoint', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const ra = await createKey(a.user.headers, 'shared', { name: 'same' });
    const rb = await createKey(b.user.headers, 'shared', { name: 'same' });
    expect(rb.statusCode).toBe(201);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.json().organization_id).toBe(b.orgId);
    const regenerate = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${ra.json().id}/regenerate`,
      headers: { ...a.user.headers, 'idempotency-key': 'shared' },
    });
    expect(regenerate.statusCode).toBe(201);
    expect(regenerate.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a malformed key with 422 naming the header', async () => {
    const { user } = await createTenant(t);
    for (const key of ['x'.repeat(256), 'caf\u00e9', 'tab\there']) {
      const res = await createKey(user.headers, key, { name: 'k' });
      expect(res.statusCode, key).toBe(422);
      expect(res.json().error.param).toBe('idempotency-key');
      expect(res.json().detail[0].loc).toEqual(['header', 'idempotency-key']);
    }
    expect(await keyCount(t, user.headers)).toBe(0);
  });

  it('documents the header on idempotent operations', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    // Inline parameters and $ref entries side by side.
    const params = z
      .array(z.record(z.string(), z.unknown()))
      .parse(doc.paths['/api/v1/api-keys'].post.parameters);
    expect(params).toContainEqual(expect.objectContaining({ name: 'idempotency-key', in: 'header' }));
    expect(doc.paths['/api/v1/api-keys'].get.parameters.some((p: { in: string }) => p.in === 'header')).toBe(
      false,
    );
  });
});

describe('expired idempotency records', () => {
  const t = useTestApp({ env: { IDEMPOTENCY_TTL_SECONDS: '600', WORKERS_ENABLED: 'false' } });

  it('are purged, and the key can be used afresh', async () => {
    const { orgId, user } = await createTenant(t);
    const send = (name: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/api-keys',
        headers: { ...user.headers, 'idempotency-key': 'short-lived' },
        payload: { name },
      });
    expect((await send('one')).statusCode).toBe(201);
    const record = and(eq(idempotencyKeys.organization_id, orgId), eq(idempotencyKeys.key, 'short-lived'));
    const [row] = await t.database.db.select().from(idempotencyKeys).where(record);
    expect(defined(row, 'row').expires_at.getTime() - defined(row, 'row').created_at.getTime()).toBe(600_000);
    // Before its TTL the purge keeps it, and the key replays.
    expect(await drainWorker(t, 'idempotency-purge')).toBe(0);
    expect((await send('one')).headers['idempotent-replayed']).toBe('true');
    // Its TTL runs out (moved into the past rather than waited for).
    await t.database.db
      .update(idempotencyKeys)
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where(record);
    expect(await drainWorker(t, 'idempotency-purge')).toBe(1);
    expect(await t.database.db.select().from(idempotencyKeys).where(record)).toHaveLength(0);
    const fresh = await send('two');
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().name).toBe('two');
  });
});
