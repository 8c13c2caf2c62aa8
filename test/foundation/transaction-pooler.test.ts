import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelListener } from '../../src/db/notifications.js';
import { buildTestApp, fileDatabaseUrl, type TestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { loadPayload } from '../helpers/load-factories.js';
import { type PgBouncer, pgBouncerInstalled, startPgBouncer } from '../helpers/pgbouncer.js';

type Headers = Record<string, string>;

/**
 * Mixed reads and writes from `clients` clients at once, `rounds` each: loads created (keyed and
 * not), read by id, listed and patched, carriers created and listed. The status of every answer.
 */
async function mixedTraffic(t: TestApp, headers: Headers, clients: number, rounds: number) {
  const statuses: number[] = [];
  const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, extra?: Headers) => {
    const res = await t.app.inject({ method, url, headers: { ...headers, ...extra }, payload });
    statuses.push(res.statusCode);
    return res;
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let r = 0; r < rounds; r++) {
        const tag = `P-${c}-${r}`;
        const created = await call('POST', '/api/v1/loads', loadPayload({ load_number: tag }));
        const id = created.statusCode === 201 ? created.json().load_id : null;
        if (id) {
          await call('GET', `/api/v1/loads/${id}`);
          await call('PATCH', `/api/v1/loads/${id}`, { notes: `round ${r}` });
        }
        await call('GET', '/api/v1/loads?order_by=created_at&order_desc=true');
        await call('POST', '/api/v1/loads', loadPayload({ load_number: `${tag}-k` }), {
          'idempotency-key': `key-${tag}`,
        });
        await call('POST', '/api/v1/carriers', { name: `Carrier ${tag}` });
        await call('GET', '/api/v1/carriers');
      }
    }),
  );
  return statuses;
}

describe.skipIf(!pgBouncerInstalled)('behind PgBouncer in transaction mode', () => {
  let direct: string;
  let bouncer: PgBouncer;
  let careless: PgBouncer;
  beforeAll(async () => {
    direct = await fileDatabaseUrl();
    // Fewer server sessions than the app's pool holds: transactions of one client land on
    // different sessions.
    bouncer = await startPgBouncer(direct, { poolSize: 3 });
    // A pooler told to drop the startup parameters it cannot pass on, as operators try first.
    careless = await startPgBouncer(direct, {
      poolSize: 3,
      ignoreStartupParameters: ['statement_timeout', 'options'],
    });
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
    await careless?.stop();
  });

  it('serves mixed reads and writes from 50 clients with no 5xx (DB_POOLER=transaction)', async () => {
    const t = await buildTestApp({
      databaseUrl: bouncer.pooled(direct),
      database: { pooler: 'transaction', directUrl: direct },
    });
    try {
      const { user } = await createTenant(t);
      const { headers } = await createApiKey(t, user.headers);
      const statuses = await mixedTraffic(t, headers, 50, 3);
      expect(statuses.length).toBeGreaterThan(1000);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      // The app's listeners are on the database's own address, and hear.
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toMatchObject({ status: 'ok' });
    } finally {
      await t.close();
    }
  }, 240_000);

  it('without DB_POOLER=transaction, named statements break behind it (why the setting exists)', async () => {
    const t = await buildTestApp({ databaseUrl: careless.pooled(direct), database: { pooler: 'none' } });
    try {
      const { user } = await createTenant(t);
      const { headers } = await createApiKey(t, user.headers);
      const statuses = await mixedTraffic(t, headers, 20, 2);
      // A statement prepared on one server session is missing on the next: answered 503, not 500.
      expect(statuses.filter((s) => s >= 500).length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    } finally {
      await t.close();
    }
  }, 240_000);

  it('refuses startup parameters unless told to ignore them: every request 503, never 500', async () => {
    const t = await buildTestApp({ databaseUrl: bouncer.pooled(direct), database: { pooler: 'none' } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
    } finally {
      await t.close();
    }
  });

  it("reports a listener behind the pooler as not hearing, and one on the database's own address as hearing", async () => {
    const pool = (await import('pg')).default.Pool;
    const viaPooler = new pool({ connectionString: bouncer.pooled(direct), max: 2 });
    const deaf = new ChannelListener({ directUrl: bouncer.pooled(direct), pool: viaPooler }, 'pooler_probe', {
      message: () => {},
      connected: () => {},
    });
    const hearing = new ChannelListener({ directUrl: direct, pool: viaPooler }, 'pooler_probe', {
      message: () => {},
      connected: () => {},
    });
    try {
      await deaf.start();
      await hearing.start();
      expect(await hearing.probe(2_000)).toBe(true);
      expect(await deaf.probe(2_000)).toBe(false);
      expect(deaf.listening).toBe(false);
    } finally {
      await deaf.stop();
      await hearing.stop();
      await viaPooler.end();
    }
  });
});

describe('a database that turned read-only (a demoted primary, a standby behind the address)', () => {
  it('answers a write 503 with Retry-After, not 500', async () => {
    const first = await buildTestApp();
    const { rows } = await first.database.pool.query<{ name: string }>('SELECT current_database() AS name');
    const name = rows[0]?.name ?? '';
    try {
      const { user } = await createTenant(first);
      // New sessions of this database start read-only, as on a standby.
      await first.database.pool.query(`ALTER DATABASE "${name}" SET default_transaction_read_only = on`);
      // Straight to the database: a pooler would hand out sessions opened before the change.
      const readOnly = await buildTestApp({
        databaseUrl: first.database.directUrl,
        database: { pooler: 'none' },
      });
      try {
        const write = await readOnly.app.inject({
          method: 'POST',
          url: '/api/v1/loads',
          headers: user.headers,
          payload: loadPayload({ load_number: 'RO-1' }),
        });
        expect(write.statusCode, write.body).toBe(503);
        expect(write.headers['retry-after']).toBe('1');
        expect(write.json().error.code).toBe('service_unavailable');
      } finally {
        await readOnly.close();
      }
    } finally {
      await first.database.pool.query(`ALTER DATABASE "${name}" RESET default_transaction_read_only`);
      await first.close();
    }
  });
});
