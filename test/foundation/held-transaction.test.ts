import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { HeldTransaction } from '../../src/db/held-transaction.js';
import { useTestApp } from '../helpers/app.js';

// The transaction a keyed request holds, and the work that waits for its commit (decision 39).
describe('a held transaction', () => {
  const t = useTestApp();

  it('refuses a statement once it has ended, instead of sending it on a pooled connection', async () => {
    const held = await HeldTransaction.open(t.database.db);
    const inside = await held.tx.execute<{ open: boolean }>(
      sql`SELECT txid_current_if_assigned() IS NULL AS open`,
    );
    expect(inside.rows).toEqual([{ open: true }]);
    await held.end(true);
    await expect(async () => held.tx.execute(sql`SELECT 1`)).rejects.toThrow(
      /request transaction that has ended/,
    );
    // The pool itself still answers.
    expect((await t.database.db.execute<{ n: number }>(sql`SELECT 1 AS n`)).rows).toEqual([{ n: 1 }]);
  });

  it('runs the work queued behind it once it committed, in order, and later work at once', async () => {
    const held = await HeldTransaction.open(t.database.db);
    const ran: string[] = [];
    await held.commitQueue.afterCommit(async () => void ran.push('first'));
    await held.commitQueue.afterCommit(async () => {
      throw new Error('a job that fails');
    });
    await held.commitQueue.afterCommit(async () => void ran.push('third'));
    expect(ran).toEqual([]);
    await held.end(true);
    const failures: unknown[] = [];
    await held.commitQueue.run((err) => failures.push(err));
    expect(ran).toEqual(['first', 'third']);
    expect(failures).toHaveLength(1);
    await held.commitQueue.afterCommit(async () => void ran.push('late'));
    expect(ran).toEqual(['first', 'third', 'late']);
  });

  it('drops the queued work when it rolls back, and never runs work queued after', async () => {
    const held = await HeldTransaction.open(t.database.db);
    const ran: string[] = [];
    await held.commitQueue.afterCommit(async () => void ran.push('queued'));
    await held.end(false);
    await held.commitQueue.afterCommit(async () => void ran.push('late'));
    await held.commitQueue.run(() => {});
    expect(ran).toEqual([]);
  });
});
