import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { executeReused } from '../../src/db/prepared.js';
import { defined } from '../../src/lib/defined.js';
import { useTestApp } from '../helpers/app.js';
import { statementConfigsDuring } from '../helpers/statements.js';

// This file's module state is its own (vitest isolates test files): filling the bound here leaves
// the other files' statements named.
describe('statements prepared by their text (executeReused)', () => {
  const t = useTestApp();
  const run = (k: number, v: number) =>
    executeReused<{ n: number }>(t.database.db, sql`SELECT ${v}::int + ${sql.raw(String(k))} AS n`);

  it('names a text from its third use, the same way each time and apart from other texts', async () => {
    const sent = await statementConfigsDuring(t, async () => {
      for (let v = 1; v <= 4; v++) expect(await run(0, v)).toEqual([{ n: v }]);
      for (let v = 1; v <= 3; v++) expect(await run(1, v)).toEqual([{ n: v + 1 }]);
    });
    const names = sent.map((s) => s.name);
    expect(names.slice(0, 2)).toEqual([undefined, undefined]);
    expect(names[2]).toMatch(/^t_[0-9a-f]{32}$/);
    expect(names[3]).toBe(names[2]);
    expect(names.slice(4)).toEqual([undefined, undefined, expect.stringMatching(/^t_[0-9a-f]{32}$/)]);
    expect(names[6]).not.toBe(names[2]);
  });

  it('names no more than 100 texts: later ones run unnamed and still answer', async () => {
    // Texts 0 to 99, three uses each, fill the bound (those named above stay named).
    for (let k = 0; k < 100; k++) for (let v = 0; v < 3; v++) await run(k, v);
    const past = await statementConfigsDuring(t, async () => {
      for (let v = 0; v < 4; v++) expect(await run(100, v)).toEqual([{ n: 100 + v }]);
      expect(await run(0, 5)).toEqual([{ n: 5 }]);
    });
    expect(past.slice(0, 4).map((s) => s.name)).toEqual([undefined, undefined, undefined, undefined]);
    expect(defined(past[4], 'past[4]').name).toMatch(/^t_[0-9a-f]{32}$/);
  });
});
