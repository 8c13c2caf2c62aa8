import { expect } from 'vitest';
import type { TestApp } from './app.js';

type Headers = Record<string, string>;

/** A fixed instant plus `minutes`: rows written straight to a table get known, distinct times. */
export const at = (minutes: number) => new Date(Date.UTC(2025, 5, 1, 12, 0, 0) + minutes * 60_000);

/** GET `url` and return the parsed body, expecting `status`. */
export async function getJson(t: TestApp, headers: Headers, url: string, status = 200) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
  return res.json();
}

/** The ids of a list page, in order. */
export async function listIds(t: TestApp, headers: Headers, url: string): Promise<string[]> {
  return (await getJson(t, headers, url)).data.map((r: { id: string }) => r.id);
}

/**
 * The order a list promises, computed from the rows: by `key` in the direction asked, rows
 * without a value after the others both ways, ties by id in the same direction.
 */
export function expectedOrder<R extends { id: string }>(
  rows: readonly R[],
  key: keyof R,
  desc: boolean,
): string[] {
  const value = (r: R): string | number | null => {
    const v: unknown = r[key];
    if (v instanceof Date) return v.getTime();
    return typeof v === 'string' || typeof v === 'number' ? v : null;
  };
  const dir = desc ? -1 : 1;
  return [...rows]
    .sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      if (va == null || vb == null) {
        if (va == null && vb != null) return 1;
        if (va != null && vb == null) return -1;
      } else if (va !== vb) {
        return (va < vb ? -1 : 1) * dir;
      }
      return (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * dir;
    })
    .map((r) => r.id);
}

/** A 422 naming `param` in the query. */
export async function expectQueryError(t: TestApp, headers: Headers, url: string, param: string) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
  const body = res.json();
  expect(body.error).toMatchObject({ code: 'validation_error', param });
  expect(body.detail[0].loc).toEqual(['query', param]);
  return body;
}
