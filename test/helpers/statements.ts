import type pg from 'pg';
import { isJsonObject } from '../../src/lib/json-object.js';
import type { TestApp } from './app.js';

/** A statement sent on a pool: its text, its values, and its name when prepared. */
export interface SentStatement {
  text: string;
  values: unknown[];
  /** The prepared statement's name; absent for an unnamed statement. */
  name?: string;
}

/**
 * The statement of one `pool.query` call, read from its arguments: a config object
 * (`{text, values, name}`), or with `plainText` also a bare SQL text followed by its values.
 */
function statementOf(args: unknown[], plainText: boolean): SentStatement | null {
  const [config, values] = args;
  const given = Array.isArray(values) ? values : [];
  if (typeof config === 'string') return plainText ? { text: config, values: given } : null;
  if (!isJsonObject(config) || typeof config.text !== 'string') return null;
  const sent: SentStatement = {
    text: config.text,
    values: Array.isArray(config.values) ? config.values : given,
  };
  if (typeof config.name === 'string') sent.name = config.name;
  return sent;
}

/**
 * Every statement sent on `pool` while `fn` runs. The pool's `query` is replaced on the instance
 * by one that notes each statement and forwards the call as it came, then put back as it was (the
 * app's own wrapper, or the prototype's method). Statements sent as a config object count; with
 * `plainText`, those sent as a bare text (`query('SELECT ...', values)`) too.
 */
export async function statementsDuring(
  pool: pg.Pool,
  fn: () => Promise<unknown>,
  { plainText = false } = {},
): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const own = Object.getOwnPropertyDescriptor(pool, 'query');
  const original = pool.query;
  Object.defineProperty(pool, 'query', {
    configurable: true,
    writable: true,
    value: (...args: unknown[]): unknown => {
      const statement = statementOf(args, plainText);
      if (statement) sent.push(statement);
      return Reflect.apply(original, pool, args);
    },
  });
  try {
    await fn();
  } finally {
    if (own) Object.defineProperty(pool, 'query', own);
    else Reflect.deleteProperty(pool, 'query');
  }
  return sent;
}

/** Every statement the app sends on its pool as a config object while `fn` runs. */
export const statementConfigsDuring = (t: TestApp, fn: () => Promise<void>): Promise<SentStatement[]> =>
  statementsDuring(t.database.pool, fn);
