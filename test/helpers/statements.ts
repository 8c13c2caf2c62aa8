import type { TestApp } from './app.js';

export interface SentStatement {
  text: string;
  /** The prepared statement's name; absent for an unnamed statement. */
  name?: string;
}

/** Every statement the app sends on its pool while `fn` runs: its text, and its name when prepared. */
export async function statementConfigsDuring(t: TestApp, fn: () => Promise<void>): Promise<SentStatement[]> {
  const pool = t.database.pool;
  const sent: SentStatement[] = [];
  const original = pool.query.bind(pool);
  (pool as unknown as { query: unknown }).query = (config: unknown, values?: unknown) => {
    if (typeof config === 'object' && config && 'text' in config) {
      const { text, name } = config as SentStatement;
      sent.push({ text, name });
    }
    return (original as (...a: unknown[]) => unknown)(config, values);
  };
  try {
    await fn();
  } finally {
    (pool as unknown as { query: unknown }).query = original;
  }
  return sent;
}
