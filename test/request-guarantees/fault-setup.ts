import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

export interface FaultSetup {
  t: TestApp;
  /** An API key's headers, in an organization of its own. */
  headers: Record<string, string>;
  /** The organization's owner's (bearer) headers. */
  owner: Record<string, string>;
  /** Connections of the test's own (application_name `fault-injector`), to inject faults with. */
  admin: pg.Client;
  locker: pg.Client;
}

/** The app without workers, an API key, and two connections of the test's own; closed after the file. */
export function faultSetup(): FaultSetup {
  // Filled in before the first test runs; the tests read it only from then on.
  const setup = {} as FaultSetup;
  beforeAll(async () => {
    setup.t = await buildTestApp({ env: { WORKERS_ENABLED: 'false' } });
    const { user } = await createTenant(setup.t);
    setup.owner = user.headers;
    setup.headers = (await createApiKey(setup.t, user.headers)).headers;
    for (const name of ['admin', 'locker'] as const) {
      setup[name] = new pg.Client({
        connectionString: setup.t.database.directUrl,
        application_name: 'fault-injector',
      });
      await setup[name].connect();
    }
  });
  afterAll(async () => {
    await setup.locker?.end();
    await setup.admin?.end();
    await setup.t?.close();
  });
  return setup;
}

/**
 * Runs `request` while carrier_contacts is locked and every backend of the app that waits on a
 * lock is terminated, as pg_terminate_backend during a failover would: a write that does not touch
 * carrier_contacts commits, and its read-back (a carrier's contacts) loses every connection it
 * tries. `terminated` counts the backends cut off.
 */
export async function withReadBackCutOff<T>(
  setup: FaultSetup,
  request: () => Promise<T>,
): Promise<{ result: T; terminated: number }> {
  await setup.locker.query('BEGIN');
  await setup.locker.query('LOCK TABLE carrier_contacts IN ACCESS EXCLUSIVE MODE');
  let settled = false;
  let terminated = 0;
  const killer = (async () => {
    while (!settled) {
      const { rows } = await setup.admin.query(
        `SELECT pg_terminate_backend(pid) AS gone FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'envoy' AND wait_event_type = 'Lock'`,
      );
      terminated += rows.filter((r) => r.gone).length;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let result: T;
  try {
    result = await request();
  } finally {
    settled = true;
    await killer;
    await setup.locker.query('ROLLBACK');
  }
  // Counted once the killer has stopped: its last termination may answer after the request does.
  return { result, terminated };
}
