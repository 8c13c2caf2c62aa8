import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { executeReused } from '../../src/db/prepared.js';
import { useTestApp } from '../helpers/app.js';
import { statementConfigsDuring } from '../helpers/statements.js';

// This file's module state is its own (vitest isolates test files): filling the bound here leaves
// the other files' statements named.
describe('statements prepared by their text (executeReused)', () => {
  const t = useTestApp();
  const run = (k: number, v: number) =>
    executeReused<{ n: number }>(t.database.db, sql`SELECT ${v}::int + ${sql.raw(String(k))} AS n`);

  it('names a text the same way each time, apart from other texts, and stops naming new texts past its bound', async () => {
    const sent = await statementConfigsDuring(t, async () => {
      expect(await run(0, 1)).toEqual([{ n: 1 }]);
      expect(await run(0, 2)).toEqual([{ n: 2 }]);
      expect(await run(1, 2)).toEqual([{ n: 3 }]);
    });
    expect(sent.map((s) => s.name)).toEqual([sent[0]!.name, sent[0]!.name, sent[2]!.name]);
    expect(sent[0]!.name).toMatch(/^t_[0-9a-f]{32}$/);
    expect(sent[2]!.name).not.toBe(sent[0]!.name);

    // 500 texts are named in all (two above); the ones past that run unnamed, and still answer.
    for (let k = 2; k < 500; k++) await run(k, 0);
    const past = await statementConfigsDuring(t, async () => {
      expect(await run(500, 1)).toEqual([{ n: 501 }]);
      expect(await run(0, 5)).toEqual([{ n: 5 }]);
    });
    expect(past.map((s) => s.name)).toEqual([undefined, sent[0]!.name]);
  });
});
