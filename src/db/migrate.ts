import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { z } from 'zod';
import type { Database } from './client.js';

export const migrationsFolder = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../migrations',
);

// Arbitrary but fixed: every instance of the service takes the same lock.
const MIGRATION_LOCK_ID = 727_274_001;

/**
 * Applies pending migrations. Several instances starting at once serialise on an advisory lock,
 * so exactly one applies each migration and the others find nothing left to do. The pool's
 * statement timeout (a cap meant for requests) is lifted meanwhile: a migration that rewrites a
 * large table must not be cancelled halfway through an upgrade.
 */
export async function runMigrations(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await client.query('SET statement_timeout = 0');
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client.query('RESET statement_timeout');
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    client.release();
  }
}

/**
 * Applies pending migrations on the database's own session (Database.directUrl): the migration
 * lock is a session lock, which a transaction-mode pooler could take on one server session and
 * release on another.
 */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.directUrl === database.url) {
    await runMigrations(database.pool);
    return;
  }
  const direct = new pg.Pool({
    connectionString: database.directUrl,
    max: 1,
    application_name: 'envoy-migrate',
  });
  // An idle connection that dies fails the migration's next statement, not the process.
  direct.on('error', () => {});
  try {
    await runMigrations(direct);
  } finally {
    await direct.end();
  }
}

/**
 * The tags of the migrations this database has not applied yet. The migrator applies every
 * migration newer than the newest one recorded in `drizzle.__drizzle_migrations`, so those are
 * the pending ones (all of them on a database never migrated).
 */
/** drizzle-kit's journal: an entry (and its tag) per migration; other members are kept as they are. */
const migrationJournal = z.looseObject({ entries: z.array(z.looseObject({ tag: z.string() })) });

/** The journal of the migrations in `folder` (meta/_journal.json), checked to have its entries' tags. */
export function readMigrationJournal(folder = migrationsFolder): z.infer<typeof migrationJournal> {
  return migrationJournal.parse(JSON.parse(readFileSync(path.join(folder, 'meta/_journal.json'), 'utf8')));
}

export async function pendingMigrations(pool: pg.Pool): Promise<string[]> {
  const exists = await pool.query<{ t: string | null }>(
    "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t",
  );
  let newest = -1;
  if (exists.rows[0]?.t) {
    const last = await pool.query<{ created_at: string | null }>(
      'SELECT max(created_at)::text AS created_at FROM drizzle.__drizzle_migrations',
    );
    newest = Number(last.rows[0]?.created_at ?? -1);
  }
  const journal = readMigrationJournal();
  return readMigrationFiles({ migrationsFolder })
    .map((m, i) => ({ tag: journal.entries[i]?.tag ?? String(i), when: m.folderMillis }))
    .filter((m) => m.when > newest)
    .map((m) => m.tag);
}
