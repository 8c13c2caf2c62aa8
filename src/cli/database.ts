import path from 'node:path';
import pg from 'pg';
import type { Config } from '../config.js';
import { createDatabase, type Database } from '../db/client.js';
import {
  EMBEDDED_DATABASE,
  embeddedDatabaseUrl,
  ensureDatabase,
  startEmbeddedPostgres,
} from '../db/embedded.js';
import { migrateDatabase, pendingMigrations } from '../db/migrate.js';

/**
 * The database a command works on: DATABASE_URL; else the embedded one of a running `npm start`;
 * else the embedded cluster under DATA_DIR, started for the command and stopped after it. Pending
 * migrations are applied first; `applied` names them.
 */
export async function openCommandDatabase(
  config: Config,
): Promise<{ database: Database; applied: string[]; close(): Promise<void> }> {
  let url = config.databaseUrl;
  let stopEmbedded = async () => {};
  if (!url) {
    const running = embeddedDatabaseUrl(config.embeddedPgPort);
    if (await answers(running)) {
      url = running;
    } else {
      const embedded = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'pg'),
        port: config.embeddedPgPort,
        persistent: true,
      });
      url = await ensureDatabase(embedded.url, EMBEDDED_DATABASE);
      stopEmbedded = () => embedded.stop();
    }
  }
  const database = createDatabase(url, config.db);
  const applied = await pendingMigrations(database.pool);
  await migrateDatabase(database);
  return {
    database,
    applied,
    async close() {
      await database.close();
      await stopEmbedded();
    },
  };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
