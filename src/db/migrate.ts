import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

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
