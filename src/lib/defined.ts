/**
 * Narrows a value the code knows is there (an array slot it just filled, a map key it just set, the
 * row an `INSERT ... RETURNING` gives back) and fails loudly, naming what was missing, if it is
 * not. Used instead of a `!` non-null assertion, which would let an `undefined` slip on silently.
 */
export function defined<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what}: expected a value, got ${value}`);
  return value;
}
