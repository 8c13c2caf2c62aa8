import { defined } from '../../src/lib/defined.js';
import { localMinutes, timeZoneOfState } from '../../src/modules/agent/cadence.js';
import type { Market, SimCarrier, SimLoad } from './market.js';
import { draw, normalDraw } from './prng.js';

/**
 * How a simulated carrier behaves: its private reservation price on a load, whether it has a truck,
 * whether and when it answers on each channel, what it answers to each thing the agent says, and
 * the words it uses (the way dispatchers write: "2400 all in", "can do 2.2k", "no trucks").
 * Every choice is a keyed draw, so each policy meets the same carriers with the same luck.
 */

export type Channel = 'call' | 'email' | 'whatsapp';

/** What the agent said, as a carrier understands it. */
export type AgentSays =
  | { kind: 'first'; ask: number | null }
  | { kind: 'offer'; amount: number }
  | { kind: 'booked' }
  | { kind: 'declined' }
  | { kind: 'ask_rate' }
  | { kind: 'review' }
  | { kind: 'closed' };

/** What the carrier does next. */
export type CarrierMove =
  | { kind: 'quote'; amount: number; hold?: boolean }
  | { kind: 'accept'; amount: number }
  | { kind: 'refuse' }
  | { kind: 'pass' }
  | { kind: 'stop' };

/** One carrier's conversation about one load, as the carrier remembers it. */
export interface Talk {
  quotes: number[];
  rounds: number;
  refused: boolean;
  done: boolean;
}

const round25 = (n: number) => Math.round(n / 25) * 25;

export class CarrierBehaviour {
  constructor(private readonly market: Market) {}

  private get seed() {
    return this.market.seed;
  }

  /** The least the carrier would haul the load for. */
  reservation(c: SimCarrier, l: SimLoad): number {
    return l.market * c.priceLevel * Math.exp(normalDraw(this.seed, 'reservation', c.index, l.index) * 0.05);
  }

  /** Whether the carrier has a truck for the load at all (before its trucks fill up). */
  hasTruck(c: SimCarrier, l: SimLoad): boolean {
    return draw(this.seed, 'truck', c.index, l.index) < 0.5;
  }

  /** The first thing the carrier asks on the load. */
  openingQuote(c: SimCarrier, l: SimLoad): number {
    return round25(this.reservation(c, l) * (1 + c.markup));
  }

  tierOn(c: SimCarrier, l: SimLoad): number | null {
    return c.lanes.find((m) => m.lane === l.lane)?.tier ?? null;
  }

  /** Whether the carrier answers its n-th contact about the load on this channel. */
  answers(c: SimCarrier, l: SimLoad, channel: Channel, n: number): boolean {
    const tier = this.tierOn(c, l);
    const base = { 1: 0.6, 2: 0.5, 3: 0.4 }[tier ?? 0] ?? 0.35;
    const lift = channel === 'call' ? 0 : channel === 'email' ? 0.05 : 0.12;
    const p = Math.min(0.92, (base + lift) * c.responsiveness);
    return draw(this.seed, 'answers', c.index, l.index, channel, n) < p;
  }

  /** An unanswered call: voicemail (else it rings out). */
  voicemail(c: SimCarrier, l: SimLoad, n: number): boolean {
    return draw(this.seed, 'voicemail', c.index, l.index, n) < 0.5;
  }

  /**
   * How long the carrier takes to write back (ms), from `at`; a reply that would fall in the
   * carrier's night waits for its morning.
   */
  replyAt(c: SimCarrier, l: SimLoad, channel: Exclude<Channel, 'call'>, n: number, at: number): number {
    const tier = this.tierOn(c, l);
    const medianMin = (channel === 'email' ? 30 : 8) * (n > 0 ? 0.7 : 1) * (tier === 1 ? 0.6 : 1);
    const minutes = Math.max(
      1,
      medianMin * Math.exp(normalDraw(this.seed, 'delay', c.index, l.index, channel, n) * 0.8),
    );
    let when = at + minutes * 60_000;
    const zone = timeZoneOfState(c.homeState) ?? 'America/Chicago';
    const local = localMinutes(new Date(when), zone);
    if (local >= 21 * 60 || local < 6 * 60) {
      const toMorning = (6 * 60 - local + 24 * 60) % (24 * 60);
      when += (toMorning + draw(this.seed, 'morning', c.index, l.index, n) * 90) * 60_000;
    }
    return when;
  }

  /**
   * The carrier's next move on what the agent said; null: it says nothing. `free` says whether it
   * still has a truck that day.
   */
  move(c: SimCarrier, l: SimLoad, talk: Talk, says: AgentSays, free: boolean): CarrierMove | null {
    if (talk.done) return null;
    const r = this.reservation(c, l);
    const last = talk.quotes[talk.quotes.length - 1];
    const quote = (amount: number, hold = false): CarrierMove => {
      talk.quotes.push(amount);
      return { kind: 'quote', amount, hold };
    };
    const finish = (m: CarrierMove): CarrierMove => {
      talk.done = true;
      return m;
    };
    switch (says.kind) {
      case 'first': {
        if (c.asksToStop) return finish({ kind: 'stop' });
        if (!free || !this.hasTruck(c, l)) {
          talk.refused = true;
          return finish({ kind: 'refuse' });
        }
        const opening = this.openingQuote(c, l);
        if (says.ask !== null && says.ask >= opening) return finish({ kind: 'accept', amount: says.ask });
        return quote(opening);
      }
      case 'offer': {
        if (!free) return finish({ kind: 'refuse' });
        if (says.amount >= r) return finish({ kind: 'accept', amount: says.amount });
        if (last === undefined) return quote(this.openingQuote(c, l));
        if (talk.rounds >= c.patience) return finish({ kind: 'pass' });
        talk.rounds++;
        const next = Math.max(round25(r + 12), round25(last - (last - says.amount) * c.concession));
        return next >= last ? quote(last, true) : quote(next);
      }
      case 'declined': {
        if (last === undefined || talk.rounds >= c.patience) return null;
        if (r > last * 0.98 || draw(this.seed, 'comes-down', c.index, l.index, talk.rounds) >= 0.5)
          return null;
        talk.rounds++;
        return quote(Math.max(round25(r + 12), round25(last * 0.95)));
      }
      case 'ask_rate': {
        if (talk.refused) return null;
        if (!free || !this.hasTruck(c, l)) {
          talk.refused = true;
          return finish({ kind: 'refuse' });
        }
        return quote(last ?? this.openingQuote(c, l));
      }
      default:
        return null;
    }
  }

  /** The carrier's words for a move, as dispatchers write them. */
  words(c: SimCarrier, l: SimLoad, move: CarrierMove, n: number): string {
    const pick = (list: string[]) =>
      defined(
        list[Math.floor(draw(this.seed, 'words', c.index, l.index, n) * list.length)],
        "list[Math.floor(draw(this.seed, 'words', c.index, l.index, n) * list.length)]",
      );
    const a = 'amount' in move ? move.amount : 0;
    const plain = String(a);
    const comma = a.toLocaleString('en-US');
    const k = a % 100 === 0 ? `${(a / 1000).toFixed(1).replace(/\.0$/, '')}k` : plain;
    switch (move.kind) {
      case 'quote':
        if (move.hold)
          return pick([`best I can do is ${plain}`, `can't go under ${plain}`, `${plain} is my bottom`]);
        return pick([
          `${plain} all in`,
          `can do ${k}`,
          `$${comma}`,
          `we can do it for ${plain}`,
          `${plain} flat`,
          `I can do $${plain} all in`,
          `rate would be ${comma}`,
          `Hi, we have a truck. ${plain} all in.`,
        ]);
      case 'accept':
        return pick([
          `ok ${plain} works`,
          `deal at ${plain}`,
          `yes we can take it at ${plain}`,
          `sounds good, ${comma} works, book it`,
        ]);
      case 'refuse': {
        const special =
          l.equipment === 'REEFER'
            ? ["we don't have any reefers"]
            : l.equipment === 'FLATBED'
              ? ['no flatbeds open']
              : [];
        return pick([
          'no trucks',
          'no trucks available, thanks',
          'sorry, all booked up today',
          'not my lane',
          "truck's covered, thanks",
          "we're out of hours",
          ...special,
        ]);
      }
      case 'pass':
        return pick([
          "can't do it for that",
          'too low for us, pass',
          "no thanks, can't make that work",
          "we'll pass",
        ]);
      case 'stop':
        return pick(['please take us off your list', 'stop texting me', 'remove me from your emails please']);
    }
  }
}

const DOLLARS = /\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d{1,2})?/g;

/** The dollar amounts of a text, in order. */
export function dollars(text: string): number[] {
  return [...text.matchAll(DOLLARS)].map((m) => Number(defined(m[1], 'm[1]').replace(/,/g, '')));
}

/**
 * What the agent said, as a carrier reads it. Deliberately loose about wording, so a new policy's
 * phrasing ("best we can do is $X") reads the same: the last amount that is not the carrier's
 * own is the agent's offer.
 */
export function readAgent(text: string, own: number[], first: boolean): AgentSays {
  const t = text.toLowerCase();
  const amounts = dollars(text);
  if (first)
    return {
      kind: 'first',
      ask: amounts.length ? defined(amounts[amounts.length - 1], 'amounts[amounts.length - 1]') : null,
    };
  if (/\bbooked\b/.test(t) && !/not booked/.test(t)) return { kind: 'booked' };
  if (/already covered|been covered|not contact you again|removed you|no longer available/.test(t)) {
    return { kind: 'closed' };
  }
  if (/rep will|for review|pending/.test(t)) return { kind: 'review' };
  const theirs = amounts.filter((a) => !own.includes(a));
  if (
    /more than we can do|we will pass|we'll pass|can't go that high|cannot go that high/.test(t) &&
    !theirs.length
  ) {
    return { kind: 'declined' };
  }
  if (theirs.length)
    return { kind: 'offer', amount: defined(theirs[theirs.length - 1], 'theirs[theirs.length - 1]') };
  if (/what rate|your rate|rate would you need|\?/.test(t)) return { kind: 'ask_rate' };
  return { kind: 'closed' };
}
