import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

export interface FaultSetup {
  t: TestApp;
  /** An API key's headers, in an organization of its own. */
  headers: Record<string, string>;
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
    setup.headers = (await createApiKey(setup.t, user.headers)).headers;
    for (const name of ['admin', 'locker'] as const) {
      setup[name] = new pg.Client({
        connectionString: setup.t.database.url,
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
