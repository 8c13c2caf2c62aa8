import { defined } from '../../src/lib/defined.js';

/**
 * Reproducible randomness for the simulated market. Two kinds:
 *   - `Sequence`: a seeded stream (sfc32) for building the market once;
 *   - `draw(seed, ...keys)`: a number in [0, 1) fixed by its keys, for the carriers' choices
 *     during a run. Keyed draws give every policy the same luck: whether carrier c answers its
 *     n-th contact about load l is the same number whichever policy made the contact.
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

/** A seeded stream of numbers in [0, 1) (sfc32). */
export class Sequence {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = 0xb7e15162;
    this.d = seed >>> 0;
    for (let i = 0; i < 15; i++) this.next();
  }

  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return defined(
      items[Math.floor(this.next() * items.length)],
      'items[Math.floor(this.next() * items.length)]',
    );
  }

  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    return defined(items[items.length - 1], 'items[items.length - 1]')[0];
  }

  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}
