// What an upsert compares to find a matched load it would not change: its merged row and its
// stops against the stored ones, value by value as PostgreSQL stores them.

import { isJsonObject } from '../../lib/json-object.js';
import type { LoadRow } from './loads-repository.js';
import type { StoredStop } from './loads-tables.js';

/** Whether a merged row changes nothing stored but its updated_at. */
export function sameLoad(row: LoadRow, stored: LoadRow): boolean {
  // Rows are compared column by column, by name.
  for (const [key, value] of Object.entries(row)) {
    if (key !== 'updated_at' && !sameValue(value, Reflect.get(stored, key))) return false;
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
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => b[k] !== undefined && sameValue(a[k], b[k]));
}
