import { serialize } from 'node:v8';
import { AppError } from './domain/errors.js';
import type { BodyResult, BodyTask } from './http/body-workers.js';
import { jsonNestingExceeds } from './http/json-depth.js';
import { canonicalJson } from './lib/canonical-json.js';
// The item checks themselves, not the modules' entries: a worker loads only what it runs.
import { carrierItemsFromCsv, validateCarrierItems } from './modules/carriers/carriers-batch-items.js';
import { validateBatchItems } from './modules/loads/loads-batch-items.js';

/**
 * The body worker thread's entry (run by BodyWorkers, http/body-workers.ts): a large batch body's bytes in, its
 * items read and checked against their schema out, so that the main thread only hands bytes over
 * and writes what comes back. Whatever the main thread's parser would refuse (text that is not
 * JSON, nesting too deep, a forbidden key, a body not shaped as the route's schema expects) is
 * sent back as `fallback`: the main thread then reads the body itself and refuses it with its
 * own errors, so both paths answer alike.
 */

/** Items per serialized part: the main thread reads back one part per turn of its event loop. */
const PART_ITEMS = 100;

const MAX_ITEMS = 1000;

export default async function checkBody(task: BodyTask): Promise<BodyResult> {
  const text = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength).toString('utf8');
  if (task.kind === 'carriers-csv') {
    const canonical = task.canonical ? canonicalJson(text) : null;
    return checkItems(
      '',
      canonical,
      async () => validateCarrierItems(await carrierItemsFromCsv([text])),
      (r) => [r.invalid, r.valid],
    );
  }
  const fallback: BodyResult = { outcome: 'fallback', bytes: task.bytes };
  const body = parsedObject(text);
  const items = body?.[task.kind];
  if (!body || !Array.isArray(items) || items.length === 0 || items.length > MAX_ITEMS) return fallback;
  if (!items.every(isObject)) return fallback;
  const canonical = task.canonical ? canonicalJson(body) : null;
  const shaped = { ...body, [task.kind]: items.map(() => ({})) };
  if (task.kind === 'loads')
    return checkItems(
      shaped,
      canonical,
      () => validateBatchItems(items),
      (r) => [r.outcomes, r.valid],
    );
  return checkItems(
    shaped,
    canonical,
    () => validateCarrierItems(items),
    (r) => [r.invalid, r.valid],
  );
}

async function checkItems<R>(
  body: unknown,
  canonical: string | null,
  check: () => Promise<R>,
  split: (r: R) => [unknown[], unknown[]],
): Promise<BodyResult> {
  let checked: R;
  try {
    checked = await check();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const { statusCode, code, message, param, options } = error;
    return { outcome: 'refused', refusal: { statusCode, code, message, param, options }, body, canonical };
  }
  const [failed, valid] = split(checked);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < valid.length; at += PART_ITEMS)
    parts.push(serialize(valid.slice(at, at + PART_ITEMS)));
  return { outcome: 'checked', body, canonical, failed: serialize(failed), valid: parts };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text as a JSON object, or null where the main thread's parser must decide (see above). */
function parsedObject(text: string): Record<string, unknown> | null {
  if (jsonNestingExceeds(text)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return isObject(parsed) && !hasForbiddenKey(parsed) ? parsed : null;
}

/** A `__proto__` key, or a `constructor` key holding a `prototype`, anywhere in the value. */
function hasForbiddenKey(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push(v);
      continue;
    }
    for (const [key, v] of Object.entries(value)) {
      if (key === '__proto__') return true;
      if (key === 'constructor' && isObject(v) && Object.hasOwn(v, 'prototype')) return true;
      stack.push(v);
    }
  }
  return false;
}
