import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase } from '../../src/db/client.js';
import { type EmbeddedDatabase, type SupervisorEvent, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { runMigrations } from '../../src/db/migrate.js';
import { defined } from '../../src/lib/defined.js';
import { buildServices } from '../../src/services.js';
import { fileDatabaseUrl, testConfig, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { portOf } from '../helpers/listening.js';
import { loadPayload } from '../helpers/load-factories.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A connection of the test's own, straight to PostgreSQL (never through a pooler: a pooled server
 * connection the test has just terminated would be handed to it next). An error after its query
 * (the server going away) is the test's to ignore.
 */
function adminOn(url: string): pg.Client {
  const admin = new pg.Client({ connectionString: url });
  admin.on('error', () => {});
  return admin;
}

/** How many of the app's connections to its database are running a statement or a transaction. */
async function busyBackends(url: string): Promise<number> {
  const admin = adminOn(url);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'envoy' AND state <> 'idle'`,
    );
    return defined(rows[0], 'rows[0]').n;
  } finally {
    await admin.end();
  }
}

/** Ends every connection the app holds to its database, as a failover or an operator would. */
async function terminateBackends(url: string): Promise<number> {
  const admin = adminOn(url);
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'envoy'`,
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe('a database that drops its connections', () => {
  const t = useTestApp();

  it('fails only the requests whose connection died and serves the next ones', async () => {
    const { user } = await createTenant(t);
    // The database itself, also when the app reaches it through PgBouncer (TEST_POOLER).
    const url = await fileDatabaseUrl();
    const writes: Promise<number>[] = [];
    let terminated = 0;
    // Writes of both kinds in flight while every connection of the app is cut, again and again.
    for (let round = 0; round < 8; round++) {
      const inRound: Promise<number>[] = [];
      for (let i = 0; i < 4; i++) {
        inRound.push(
          t.app
            .inject({
              method: 'POST',
              url: '/api/v1/carriers',
              headers: user.headers,
              payload: { name: `Faulty ${round}-${i}`, mc_number: String(700000 + round * 10 + i) },
            })
            .then((r) => r.statusCode),
        );
      }
      inRound.push(
        t.app
          .inject({
            method: 'POST',
            url: '/api/v1/loads/batch',
            headers: user.headers,
            payload: { loads: Array.from({ length: 50 }, () => loadPayload()) },
          })
          .then((r) => r.statusCode),
      );
      writes.push(...inRound);
      // Cut the connections once the round's writes are at the database (or, should they all have
      // been answered already, at once).
      let answered = false;
      void Promise.allSettled(inRound).then(() => {
        answered = true;
      });
      await waitFor(
        () => busyBackends(url),
        (busy) => busy > 0 || answered,
      );
      terminated += await terminateBackends(url);
    }
    const statuses = await Promise.all(writes);
    expect(terminated).toBeGreaterThan(0);
    // Each write either happened (202: it committed and could not be read back) or was refused as a
    // passing outage; never a crash or a 500.
    for (const status of statuses) expect([200, 201, 202, 207, 503]).toContain(status);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);

    // The pool replaces the dead connections by itself.
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/carriers',
        headers: user.headers,
        payload: { name: `After ${i}` },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('answers 503 with the error body when the connection dies mid-request', async () => {
    const { user } = await createTenant(t);
    // The database itself, also when the app reaches it through PgBouncer (TEST_POOLER).
    const url = await fileDatabaseUrl();
    // Hold every pooled connection in a transaction, cut them, then let the requests use them.
    const held = await Promise.all(Array.from({ length: 5 }, () => t.database.pool.connect()));
    await terminateBackends(url);
    for (const client of held) client.release();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: user.headers }),
      ),
    );
    for (const res of results) {
      if (res.statusCode === 503) {
        expect(res.json().error.code).toBe('service_unavailable');
      } else {
        expect(res.statusCode, res.body).toBe(200);
      }
    }
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: user.headers });
    expect(after.statusCode).toBe(200);
  });
});

describe('the embedded PostgreSQL under supervision', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('refuses to start on a port already taken, with an error naming the port (the package rejects with none)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '::', resolve));
    cleanup.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = portOf(taken);
    const dataDir = path.join(os.tmpdir(), `envoy-taken-${process.pid}-${Date.now()}`);
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    await expect(startEmbeddedPostgres({ dataDir, port, persistent: false })).rejects.toThrow(
      `embedded PostgreSQL did not start on port ${port}`,
    );
  });

  it('restarts a killed postmaster and serves again without a restart of the service', async () => {
    const dataDir = path.join(os.tmpdir(), `envoy-supervised-${process.pid}-${Date.now()}`);
    const events: SupervisorEvent[] = [];
    const embedded: EmbeddedDatabase = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      persistent: false,
      supervise: true,
      onSupervisorEvent: (e) => events.push(e),
    });
    cleanup.push(() => embedded.stop());
    const database = createDatabase(embedded.url, {
      poolMax: 3,
      connectTimeoutMs: 2000,
      statementTimeoutMs: 10_000,
    });
    cleanup.push(() => database.close());
    await runMigrations(database.pool);
    const config = testConfig();
    const logger = pino({ level: 'silent' });
    const services = buildServices({ config, database, log: logger });
    const app = await buildApp({ config, database, embedded, services }, { logger });
    cleanup.push(() => app.close());
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

    const postmasterPid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmasterPid, 'SIGKILL');

    // The outage is visible on /readyz with our error body while the supervisor restarts it.
    const down = await waitFor(
      () => app.inject({ method: 'GET', url: '/readyz' }),
      (res) => res.statusCode === 503,
      5000,
    );
    expect(down.json().error.code).toBe('service_unavailable');
    // The pool may notice the dead server before the supervisor hears the postmaster's exit.
    await waitFor(
      async () => events[0],
      (e) => e !== undefined,
      5000,
    );
    expect(events[0]).toMatchObject({ kind: 'exited', signal: 'SIGKILL' });

    await waitFor(
      () => app.inject({ method: 'GET', url: '/readyz' }),
      (res) => res.statusCode === 200,
      30_000,
    );
    expect(embedded.state()).toBe('running');
    expect(events.some((e) => e.kind === 'restarted')).toBe(true);
    const { rows } = await database.pool.query<{ n: string }>('SELECT count(*) AS n FROM organizations');
    expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
