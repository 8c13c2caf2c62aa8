import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInOneSnapshot } from '../../src/db/shared-snapshot.js';
import { defined } from '../../src/lib/defined.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

interface Seen extends pg.QueryResultRow {
  pid: number;
  snap: string;
  n: number;
}

/** Each statement sleeps, then reports its backend, its snapshot and the rows it sees. */
const look = (sleep: number) =>
  sql`SELECT pg_sleep(${sleep}), pg_backend_pid() AS pid, pg_current_snapshot()::text AS snap,
    (SELECT count(*)::int FROM ticks) AS n`;

describe('reads side by side in one snapshot', () => {
  let database: TestDatabase;
  let writer: pg.Client;
  let writing = true;
  let written: Promise<void>;
  beforeAll(async () => {
    database = await createTestDatabase();
    writer = new pg.Client({ connectionString: database.url });
    await writer.connect();
    await writer.query('CREATE TABLE ticks (at timestamptz DEFAULT clock_timestamp())');
    // A writer committing all along, so two snapshots taken apart would see different rows.
    written = (async () => {
      while (writing) await writer.query('INSERT INTO ticks DEFAULT VALUES');
    })();
  });
  afterAll(async () => {
    writing = false;
    await written;
    await writer.end();
    await database.drop();
  });

  it('runs on two connections that see the same rows while another connection commits', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    try {
      // The first connection runs the first and the third statement, the third 100 ms after the
      // second started on the other connection: all three see the same rows.
      const [a, b, c] = await readInOneSnapshot<Seen>(pool, [look(0.1), look(0), look(0)]);
      expect(defined(defined(b, 'b')[0], 'b[0]').pid).not.toBe(defined(defined(a, 'a')[0], 'a[0]').pid);
      expect(defined(defined(c, 'c')[0], 'c[0]').pid).toBe(defined(defined(a, 'a')[0], 'a[0]').pid);
      expect(defined(defined(b, 'b')[0], 'b[0]').snap).toBe(defined(defined(a, 'a')[0], 'a[0]').snap);
      expect([defined(defined(b, 'b')[0], 'b[0]').n, defined(defined(c, 'c')[0], 'c[0]').n]).toEqual([
        defined(defined(a, 'a')[0], 'a[0]').n,
        defined(defined(a, 'a')[0], 'a[0]').n,
      ]);
      // The control: two statements 100 ms apart without a shared snapshot see different rows.
      const before = await pool.query<Seen>(sqlText(0.1));
      const after = await pool.query<Seen>(sqlText(0));
      expect(defined(after.rows[0], 'after.rows[0]').n).toBeGreaterThan(
        defined(before.rows[0], 'before.rows[0]').n,
      );
    } finally {
      await pool.end();
    }
  });

  it('runs one after another on one connection, in one snapshot, when the pool has none to spare', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const [a, b] = await readInOneSnapshot<Seen>(pool, [look(0.05), look(0.05)]);
      expect(defined(defined(b, 'b')[0], 'b[0]').pid).toBe(defined(defined(a, 'a')[0], 'a[0]').pid);
      expect(defined(defined(b, 'b')[0], 'b[0]').n).toBe(defined(defined(a, 'a')[0], 'a[0]').n);
      expect(pool.idleCount).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('gives back its connections when a statement fails, and the pool goes on', async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    try {
      await expect(
        readInOneSnapshot<Seen>(pool, [look(0), sql`SELECT * FROM no_such_table`]),
      ).rejects.toThrow(/no_such_table/);
      expect(pool.waitingCount).toBe(0);
      const [a] = await readInOneSnapshot<Seen>(pool, [look(0)]);
      expect(defined(defined(a, 'a')[0], 'a[0]').n).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });
});

/** The statement of look() as plain text, for the control that runs without the helper. */
function sqlText(sleep: number): string {
  return `SELECT pg_sleep(${sleep}), pg_backend_pid() AS pid, pg_current_snapshot()::text AS snap,
    (SELECT count(*)::int FROM ticks) AS n`;
}
