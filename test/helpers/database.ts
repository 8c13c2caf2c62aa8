import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { errorMessage } from '../../src/lib/error-text.js';
import { databaseUrl, dropDatabase } from './pg-admin.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: every test file gets its own. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('adminUrl');
  const template = inject('templateDatabase');
  const name = `envoy_t_${inject('runId')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Two files cloning the template at the same instant can collide; a short retry settles it.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        break;
      } catch (err) {
        if (attempt >= 20 || !/being accessed by other users/.test(errorMessage(err))) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(adminUrl, name),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await dropDatabase(client, name);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Empty databases (never migrated) on the test server, for tests of the migrator itself: call it
 * once per file; the function it returns creates one, and every one is dropped after the file.
 */
export function useEmptyDatabases(): () => Promise<string> {
  const created: string[] = [];
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: inject('adminUrl') });
    await admin.connect();
    try {
      for (const name of created) await dropDatabase(admin, name);
    } finally {
      await admin.end();
    }
  });
  return async () => {
    const name = `envoy_t_${inject('runId')}_m${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: inject('adminUrl') });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.end();
    }
    created.push(name);
    return databaseUrl(inject('adminUrl'), name);
  };
}
