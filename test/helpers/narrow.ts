import { expect } from 'vitest';

/**
 * `value` as an instance of `type`, asserted with `toBeInstanceOf` (whose failure names what the
 * value was instead): what a test caught, typed for the assertions on its members.
 */
export function instanceOf<T>(value: unknown, type: abstract new (...args: never[]) => T): T {
  expect(value).toBeInstanceOf(type);
  if (!(value instanceof type)) throw new Error(`expected an instance of ${type.name}`);
  return value;
}
