// What an upsert compares to find a matched load it would not change: its merged row and its
// stops against the stored ones, value by value as PostgreSQL stores them.

import type { LoadRow } from './loads-repository.js';
import type { StoredStop } from './loads-tables.js';

/** Whether a merged row changes nothing stored but its updated_at. */
export function sameLoad(row: LoadRow, stored: LoadRow): boolean {
  // Rows are compared column by column, by name: a row is read as a record of its columns.
  const a = row as unknown as Record<string, unknown>;
  // As for `a`: read as a record of its columns.
  const b = stored as unknown as Record<string, unknown>;
  for (const key in a) {
    if (key !== 'updated_at' && !sameValue(a[key], b[key])) return false;
  }
  return true;
}

/** Whether stops sent again equal the stored ones, in order (their new ids aside). */
export function sameStops(sent: readonly StoredStop[], stored: readonly StoredStop[]): boolean {
  if (sent.length !== stored.length) return false;
  return sent.every((s, i) => sameValue({ ...s, id: undefined }, { ...stored[i], id: undefined }));
}

/**
 * Column values as PostgreSQL stores them: null and absent alike, datetimes by instant, and jsonb
 * by value (its object keys come back in an order of its own, and a key left undefined is never
 * stored, while one holding null is).
 */
function sameValue(a: unknown, b: unknown): boolean {
  if ((a ?? null) === (b ?? null)) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  // Both are non-null objects and not arrays (checked above); their members are read as unknown.
  const x = a as Record<string, unknown>;
  // As for `x`.
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  if (keys.length !== Object.keys(y).filter((k) => y[k] !== undefined).length) return false;
  return keys.every((k) => y[k] !== undefined && sameValue(x[k], y[k]));
}
