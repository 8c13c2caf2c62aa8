import { defined } from '../../lib/defined.js';

/**
 * Reproducible randomness for the simulated market: a number in [0, 1) fixed by a seed and a list
 * of keys. Whether carrier c answers its n-th contact about load l is the same number whatever
 * else happened, so two runs (or two policies of the outcomes benchmark) meet the same carriers
 * with the same luck.
 */

/** A 53-bit string hash (cyrb53). */
function hash53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A number in [0, 1) that depends only on the seed and the keys. */
export function draw(seed: number, ...keys: (string | number)[]): number {
  return hash53(keys.join('|'), seed) / 2 ** 53;
}

/** A standard normal from two keyed draws (Box-Muller). */
export function normalDraw(seed: number, ...keys: (string | number)[]): number {
  const u = Math.max(draw(seed, ...keys, 'n1'), 1e-12);
  const v = draw(seed, ...keys, 'n2');
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A number in [min, max) from a keyed draw. */
export const between = (seed: number, min: number, max: number, ...keys: (string | number)[]) =>
  min + draw(seed, ...keys) * (max - min);

/** One of `items`, each as likely as its weight, from a keyed draw. */
export function weighted<T>(
  seed: number,
  items: readonly (readonly [T, number])[],
  ...keys: (string | number)[]
): T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let r = draw(seed, ...keys) * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return defined(items.at(-1), 'a weighted item')[0];
}

/** One of `items`, from a keyed draw. */
export const pickOf = <T>(seed: number, items: readonly T[], ...keys: (string | number)[]): T =>
  defined(items[Math.floor(draw(seed, ...keys) * items.length)], 'an item');
