// The SQL of the filters and sorts the resource lists share (their query parameters are in
// http/list-query.ts).

import { type AnyColumn, asc, desc, gte, lt, type SQL, sql } from 'drizzle-orm';

/** created_after (inclusive) and created_before (exclusive) on `column`, as conditions. */
export function createdBetween(
  column: AnyColumn,
  range: { created_after?: Date | undefined; created_before?: Date | undefined },
): SQL[] {
  const out: SQL[] = [];
  if (range.created_after) out.push(gte(column, range.created_after));
  if (range.created_before) out.push(lt(column, range.created_before));
  return out;
}

/**
 * ORDER BY `column`, then `id`, both in the direction asked, nulls after every value both ways. A
 * NOT NULL column descends plainly, so a btree on (organization_id, column, id) read backwards
 * serves it. A nullable one is indexed (organization_id, column DESC NULLS LAST, id DESC NULLS
 * LAST) for the default direction; the id's NULLS LAST (it is never null) only matches that index.
 */
export function listOrder(column: AnyColumn, id: AnyColumn, descending: boolean): SQL[] {
  if (!descending) return [asc(column), asc(id)];
  return column.notNull
    ? [desc(column), desc(id)]
    : [sql`${column} DESC NULLS LAST`, sql`${id} DESC NULLS LAST`];
}

/**
 * Counts per value of one dimension, from rows grouped by several: every known value present
 * (0 when none), a null counted under `none` when `keys` has it.
 */
export function tally<K extends string, R extends { n: number }>(
  keys: readonly K[],
  rows: readonly R[],
  keyOf: (row: R) => string | null,
): Record<K, number> {
  // Object.fromEntries types its keys as string; there is one entry per key of `keys`.
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (const row of rows) {
    // A value outside `keys` is skipped by the `in` check just below.
    const key = (keyOf(row) ?? 'none') as K;
    if (key in out) out[key] += row.n;
  }
  return out;
}
