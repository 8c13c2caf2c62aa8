import { createHash } from 'node:crypto';
import { defined } from '../lib/defined.js';

/** A number in [0, 1) drawn from a seed: the same message always gets the same answer. */
export function chance(seed: string, salt: string): number {
  return createHash('sha256').update(`${seed}:${salt}`).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * How simulated carriers answer: `realistic` (some are silent, busy or ask to be removed; quotes
 * spread around the posted rate) or `cooperative` (everyone answers at or under the posted rate and
 * takes a counter-offer: demos and end-to-end tests) or `silent` (nobody answers: replies come only
 * through the inbound webhooks).
 */
export type SimulationProfile = 'realistic' | 'cooperative' | 'silent';

const money = (text: string, label: RegExp) => {
  const m = label.exec(text);
  return m ? Number(defined(m[1], 'm[1]').replace(/,/g, '')) : null;
};

/**
 * What a simulated carrier writes back to one of our messages, or null for no answer. It reads the
 * posted rate or our counter-offer from the text, as a person would.
 */
export function simulatedCarrierReply(
  seed: string,
  ourText: string,
  profile: SimulationProfile,
): string | null {
  if (profile === 'silent') return null;
  const r = chance(seed, 'reply');
  const counter = money(ourText, /We can do \$([\d,]+(?:\.\d+)?)/);
  if (counter !== null) {
    if (profile === 'cooperative' || r < 0.6)
      return `Ok, ${counter.toLocaleString('en-US')} works. Send the rate con.`;
    return 'Sorry, cannot do it for that.';
  }
  const posted = money(ourText, /posted rate \$([\d,]+(?:\.\d+)?)/);
  if (!/Do you have a truck/.test(ourText)) return null;
  if (profile === 'cooperative') {
    const amount = posted ? Math.round((posted * (0.9 + chance(seed, 'amount') * 0.1)) / 25) * 25 : 2000;
    return `Yes, we have a truck. Can do it for $${amount.toLocaleString('en-US')} all in.`;
  }
  if (r < 0.25) return null;
  if (r < 0.3) return 'Please remove me from your list.';
  if (r < 0.45) return 'No trucks available this week, sorry.';
  const base = posted ?? 2000;
  const amount = Math.round((base * (0.9 + chance(seed, 'amount') * 0.35)) / 25) * 25;
  const phrasings = [
    `We can do $${amount.toLocaleString('en-US')} all in.`,
    `${amount} all in`,
    `Truck is empty nearby, can do ${(amount / 1000).toFixed(2).replace(/0$/, '')}k`,
    `$${amount.toLocaleString('en-US')} + fuel`,
  ];
  return defined(
    phrasings[Math.floor(chance(seed, 'phrase') * phrasings.length)],
    "phrasings[Math.floor(chance(seed, 'phrase') * phrasings.length)]",
  );
}

/**
 * Delivers simulated carriers' answers to a sink after a delay, as a platform's webhook would.
 * close() cancels what has not arrived and waits for what is being handled, so no answer outlives
 * the database it writes to.
 */
export class SimulatedReplies<T> {
  private sink: ((message: T) => Promise<unknown>) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  attach(sink: (message: T) => Promise<unknown>) {
    this.sink = sink;
  }

  /** `message` is built when the delay has passed, so its timestamps are those of arrival. */
  after(ms: number, message: () => T) {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed || !this.sink) return;
      const done: Promise<void> = this.sink(message())
        .then(() => undefined)
        .catch(() => undefined)
        .finally(() => this.inflight.delete(done));
      this.inflight.add(done);
    }, ms);
    this.timers.add(timer);
  }

  async close() {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.inflight);
  }
}
