import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/db/migrate.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad, ensureCarrier } from '../helpers/load-factories.js';
import { postgresBinaries, type ReplicaPair, startReplicaPair } from '../helpers/replica-pair.js';

/**
 * Reads that tolerate lag (here the offers list) go to a streaming standby, on a primary and a
 * standby of their own (test/helpers/replica-pair.ts). The lag clock is the test's: it moves only
 * when a test moves it, and the replicas are probed when a test says so.
 */
const bin = postgresBinaries();

describe.skipIf(!bin)('read replicas', () => {
  let pair: ReplicaPair;
  let t: TestApp;
  let now = 1_000_000;
  let user: Record<string, string>;
  let key: Record<string, string>;
  let loadId: string;
  let carrierId: string;

  beforeAll(async () => {
    pair = await startReplicaPair(bin ?? '');
    const pool = new pg.Pool({ connectionString: pair.primaryUrl });
    try {
      await runMigrations(pool);
    } finally {
      await pool.end();
    }
    await pair.caughtUp();
    t = await buildTestApp({
      databaseUrl: pair.primaryUrl,
      env: { WORKERS_ENABLED: 'false' },
      database: {
        replicas: { urls: [pair.standbyUrl], maxLagMs: 5000, probeMs: 3_600_000, now: () => now },
      },
    });
    const tenant = await createTenant(t);
    user = tenant.user.headers;
    key = (await createApiKey(t, user)).headers;
    loadId = await createLoad(t, user);
    carrierId = await ensureCarrier(t, tenant.orgId);
    await pair.caughtUp();
    await t.database.reads.probe();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await pair?.close();
  });

  const offer = async (amount: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: user,
      payload: { load_id: loadId, carrier_id: carrierId, offer_amount: amount },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };
  const offerIds = async (headers: Record<string, string>) => {
    const res = await t.app.inject({ url: `/api/v1/offers?load_id=${loadId}&page_size=100`, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: { id: string }[] }>().data.map((o) => o.id);
  };

  it('serves a reader the replica, and its own writes from the primary until the replica has them', async () => {
    await pair.pauseReplay();
    now += 100;
    const id = await offer(1500);
    now += 100;
    await t.database.reads.probe();
    // The key wrote nothing: the paused replica, 100 ms behind, serves it.
    expect(await offerIds(key)).not.toContain(id);
    // The user wrote it: the primary serves the user.
    expect(await offerIds(user)).toContain(id);
    await pair.resumeReplay();
    await pair.caughtUp();
    now += 100;
    await t.database.reads.probe();
    expect(await offerIds(key)).toContain(id);
    expect(await offerIds(user)).toContain(id);
    expect(t.database.reads.status()).toEqual([expect.objectContaining({ up: true, lag_ms: 0 })]);
  });

  it('skips a replica lagging past the bound', async () => {
    await pair.pauseReplay();
    now += 100;
    await t.database.reads.probe();
    const id = await offer(1600);
    now += 4000;
    await t.database.reads.probe();
    expect(await offerIds(key)).not.toContain(id);
    now += 1200;
    // Its data is now 5.2 s old: past the 5 s bound, the primary serves every read.
    expect(await offerIds(key)).toContain(id);
    await pair.resumeReplay();
    await pair.caughtUp();
    await t.database.reads.probe();
    expect(await offerIds(key)).toContain(id);
  });

  it('reads each of 1,000 writes back at once, from the primary or from a replica that has it', async () => {
    // The replica replays only every tenth write, and a probe then sees it: that read goes to the
    // replica; the other nine find it paused without their write, so their reads must not.
    await pair.pauseReplay();
    try {
      for (let i = 0; i < 1000; i++) {
        if (i % 10 === 0) await pair.resumeReplay();
        const id = await offer(1000 + i);
        if (i % 10 === 0) {
          await pair.caughtUp();
          now += 10;
          await t.database.reads.probe();
          await pair.pauseReplay();
        } else {
          now += 1;
        }
        const listed = await t.app.inject({
          url: `/api/v1/offers?load_id=${loadId}&order_by=created_at&order_desc=true&page_size=1`,
          headers: user,
        });
        expect(listed.statusCode).toBe(200);
        expect(listed.json().data[0]?.id).toBe(id);
      }
    } finally {
      await pair.resumeReplay();
    }
  }, 300_000);

  it('sends the reads of a replica that went down to the primary, with no 5xx', async () => {
    await pair.stopStandby();
    try {
      // Not yet probed: the read goes to the replica, fails to connect, and runs on the primary.
      const ids = await offerIds(key);
      expect(ids.length).toBeGreaterThan(0);
      await t.database.reads.probe();
      expect(t.database.reads.status()).toEqual([expect.objectContaining({ up: false, lag_ms: null })]);
      expect(await offerIds(key)).toEqual(ids);
    } finally {
      await pair.startStandby();
    }
    await pair.caughtUp();
    now += 10;
    await t.database.reads.probe();
    expect(t.database.reads.status()).toEqual([expect.objectContaining({ up: true })]);
  });
});
