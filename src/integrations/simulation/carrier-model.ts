import { localMinutes, timeZoneOfState } from '../../lib/time-zones.js';
import { between, draw, normalDraw, pickOf, weighted } from './draws.js';

/**
 * One model of a carrier, for the product's simulated providers and the outcomes benchmark alike:
 * its habits (drawn from the seed and its identity), its private reservation price on a load
 * around the load's market rate, whether it has a truck, whether and when it answers on each
 * channel, what it does on each thing the agent says, and the words it writes. Every choice is a
 * keyed draw, so a carrier meets every run of the same seed with the same luck.
 */

/**
 * How the simulated carriers behave: `realistic` (some are silent, busy, slow or ask to be removed;
 * quotes spread around the market rate; some write in Spanish or in texting shorthand),
 * `cooperative` (everyone answers at or under the posted rate and takes a counter: demos and
 * end-to-end tests) or `silent` (nobody answers: replies come only through the inbound webhooks).
 */
export type SimulationProfile = 'realistic' | 'cooperative' | 'silent';

export type Channel = 'call' | 'email' | 'whatsapp';

/** How a carrier writes. */
export type Style = 'plain' | 'texting' | 'formal' | 'spanish';

/** A carrier's habits: the same for one carrier (its MC number, else its id) wherever it is met. */
export interface Persona {
  key: string;
  /** Its price level against the market (its reservation prices scale with it). */
  priceLevel: number;
  /** How far above its reservation it opens. */
  markup: number;
  /** Share of the way to the broker's counter it moves per round. */
  concession: number;
  /** Counter rounds it will go before passing. */
  patience: number;
  /** Multiplies its answer rates. */
  responsiveness: number;
  /** Loads it can take per pickup day. */
  trucksPerDay: number;
  /** Asks to be taken off the list on its first contact. */
  asksToStop: boolean;
  /** Its number is a landline: calls work, WhatsApp does not. */
  landline: boolean;
  /** Its number is dead: every call fails. */
  deadPhone: boolean;
  /** Its address bounces. */
  badEmail: boolean;
  style: Style;
  /** Asks about the load (weight, commodity, the pickup) before it quotes. */
  asksFirst: boolean;
  /** Has a truck for every load (a call asked to complete, in a test or a demo). */
  willing?: boolean;
}

/** What the market knows of a load: what the agent's message says, and the lane's miles. */
export interface MarketLoad {
  number: string;
  postedRate: number | null;
  suggestedMarketRate: number | null;
  distance: number | null;
  equipment: string | null;
  pickupAt: number | null;
  /** When the load came to market (its creation). */
  handedAt: number;
  /** The carrier's routing-guide tier on the load's lane, when it has one. */
  tier: number | null;
}

/** What the agent said, as a carrier understands it. */
export type AgentSays =
  | { kind: 'first'; ask: number | null }
  | { kind: 'offer'; amount: number }
  | { kind: 'confirm'; amount: number | null }
  | { kind: 'booked' }
  | { kind: 'declined' }
  | { kind: 'ask_rate' }
  | { kind: 'answered' }
  | { kind: 'review' }
  | { kind: 'closed' };

/** What the carrier does next. */
export type CarrierMove =
  | { kind: 'quote'; amount: number; hold?: boolean }
  /** `confirming`: its yes to the agent's "to confirm: ...?". */
  | { kind: 'accept'; amount: number; confirming?: boolean }
  | { kind: 'question'; topic: 'weight' | 'commodity' | 'pickup' }
  | { kind: 'refuse' }
  | { kind: 'pass' }
  | { kind: 'stop' };

/** One carrier's conversation about one load, as the carrier remembers it. */
export interface Talk {
  quotes: number[];
  rounds: number;
  refused: boolean;
  asked: boolean;
  done: boolean;
  /** Messages the carrier wrote about the load (keys its wording). */
  messages: number;
}

export const newTalk = (): Talk => ({
  quotes: [],
  rounds: 0,
  refused: false,
  asked: false,
  done: false,
  messages: 0,
});

const PER_MILE: Record<string, number> = { VAN: 2.3, REEFER: 2.7, FLATBED: 2.9 };
const round25 = (n: number) => Math.round(n / 25) * 25;
const HOUR = 3_600_000;

/**
 * A carrier's identity across organizations, which keys its habits: its MC number, else its DOT
 * number, else the organization's id for it.
 */
export function carrierKeyOf(mc: string | null, dot: string | null, id: string | null): string {
  if (mc) return `mc:${mc}`;
  if (dot) return `dot:${dot}`;
  return `id:${id ?? 'unknown'}`;
}

/** The carrier's habits, drawn from the seed and its identity, as the profile shapes them. */
export function personaOf(seed: number, key: string, profile: SimulationProfile): Persona {
  const d = (label: string) => draw(seed, 'persona', key, label);
  const cooperative = profile === 'cooperative';
  return {
    key,
    priceLevel: cooperative ? 0.9 : Math.exp(normalDraw(seed, 'persona', key, 'price') * 0.07),
    markup: cooperative ? 0 : between(seed, 0.04, 0.18, 'persona', key, 'markup'),
    concession: between(seed, 0.3, 0.6, 'persona', key, 'concession'),
    patience: cooperative
      ? 3
      : weighted(
          seed,
          [
            [1, 0.3],
            [2, 0.45],
            [3, 0.25],
          ] as const,
          'persona',
          key,
          'patience',
        ),
    responsiveness: between(seed, 0.6, 1.3, 'persona', key, 'responsiveness'),
    trucksPerDay: weighted(
      seed,
      [
        [1, 0.5],
        [2, 0.35],
        [3, 0.15],
      ] as const,
      'persona',
      key,
      'trucks',
    ),
    asksToStop: !cooperative && d('stop') < 0.015,
    landline: !cooperative && d('landline') < 0.35,
    deadPhone: !cooperative && d('dead') < 0.02,
    badEmail: !cooperative && d('bounce') < 0.05,
    style: cooperative
      ? 'plain'
      : weighted(
          seed,
          [
            ['plain', 0.55],
            ['texting', 0.17],
            ['formal', 0.18],
            ['spanish', 0.1],
          ] as const,
          'persona',
          key,
          'style',
        ),
    asksFirst: !cooperative && d('asks') < 0.12,
  };
}

/**
 * A load's market rate: from the lane's miles and equipment, dearer for a near pickup, with a
 * spread of its own; without miles, the broker's market figure, else its posted rate.
 */
export function marketRateOf(seed: number, l: MarketLoad): number {
  const noise = Math.exp(normalDraw(seed, 'market', l.number) * 0.06);
  const leadHours = l.pickupAt === null ? 48 : (l.pickupAt - l.handedAt) / HOUR;
  const urgency = leadHours < 12 ? 1.08 : leadHours < 36 ? 1.02 : 1;
  if (l.distance !== null && l.distance > 0) {
    const perMile = PER_MILE[l.equipment ?? 'VAN'] ?? PER_MILE.VAN ?? 2.3;
    return Math.max(700, l.distance * perMile + 150) * urgency * noise;
  }
  if (l.suggestedMarketRate !== null) return l.suggestedMarketRate;
  if (l.postedRate !== null) return l.postedRate / 0.935;
  return 2000 * urgency * noise;
}

/** The model's decisions for one market (a seed and a profile). */
export class CarrierModel {
  constructor(
    readonly seed: number,
    readonly profile: SimulationProfile,
  ) {}

  persona(key: string): Persona {
    return personaOf(this.seed, key, this.profile);
  }

  /** The least the carrier would haul the load for. */
  reservation(p: Persona, l: MarketLoad): number {
    const market = marketRateOf(this.seed, l);
    const own =
      market * p.priceLevel * Math.exp(normalDraw(this.seed, 'reservation', p.key, l.number) * 0.05);
    // A cooperative carrier takes the posted rate whatever the market says.
    return this.profile === 'cooperative' && l.postedRate !== null ? Math.min(own, l.postedRate * 0.95) : own;
  }

  /** Whether the carrier has a truck for the load at all (before its trucks fill up). */
  hasTruck(p: Persona, l: MarketLoad): boolean {
    return (
      this.profile === 'cooperative' || p.willing === true || draw(this.seed, 'truck', p.key, l.number) < 0.5
    );
  }

  /** What the carrier asks first on the load. */
  openingQuote(p: Persona, l: MarketLoad): number {
    return round25(this.reservation(p, l) * (1 + p.markup));
  }

  /** Whether the carrier answers its n-th contact about the load on this channel. */
  answers(p: Persona, l: MarketLoad, channel: Channel, n: number): boolean {
    if (this.profile === 'silent') return false;
    if (this.profile === 'cooperative') return true;
    const base = { 1: 0.6, 2: 0.5, 3: 0.4 }[l.tier ?? 0] ?? 0.35;
    const lift = channel === 'call' ? 0 : channel === 'email' ? 0.05 : 0.12;
    const chance = Math.min(0.92, (base + lift) * p.responsiveness);
    return draw(this.seed, 'answers', p.key, l.number, channel, n) < chance;
  }

  /** An unanswered call: voicemail (else it rings out). */
  voicemail(p: Persona, l: MarketLoad, n: number): boolean {
    return draw(this.seed, 'voicemail', p.key, l.number, n) < 0.5;
  }

  /**
   * When the carrier writes back (ms since the epoch), from `at`: e-mail slower than WhatsApp, a
   * follow-up quicker than a first answer, a tier-1 carrier quicker; an answer that would fall in
   * the carrier's night waits for its morning (a cooperative carrier's does not).
   */
  replyAt(
    p: Persona,
    homeState: string | null,
    l: MarketLoad,
    channel: 'email' | 'whatsapp',
    n: number,
    at: number,
  ) {
    const medianMin = (channel === 'email' ? 30 : 8) * (n > 0 ? 0.7 : 1) * (l.tier === 1 ? 0.6 : 1);
    const minutes = Math.max(
      1,
      medianMin * Math.exp(normalDraw(this.seed, 'delay', p.key, l.number, channel, n) * 0.8),
    );
    let when = at + minutes * 60_000;
    // A cooperative carrier answers whatever the hour (a demo or a test at any time of day).
    if (this.profile === 'cooperative') return when;
    const zone = timeZoneOfState(homeState) ?? 'America/Chicago';
    const local = localMinutes(new Date(when), zone);
    if (local >= 21 * 60 || local < 6 * 60) {
      const toMorning = (6 * 60 - local + 24 * 60) % (24 * 60);
      when += (toMorning + draw(this.seed, 'morning', p.key, l.number, n) * 90) * 60_000;
    }
    return when;
  }

  /**
   * The carrier's next move on what the agent said; null: it says nothing. `free`: whether it
   * still has a truck on the load's pickup day.
   */
  move(p: Persona, l: MarketLoad, talk: Talk, says: AgentSays, free: boolean): CarrierMove | null {
    const r = this.reservation(p, l);
    if (talk.done) {
      // Asked to confirm an amount it already took: yes again; anything else gets no answer.
      const yes = says.kind === 'confirm' && !talk.refused && says.amount !== null && says.amount >= r;
      return yes && says.amount !== null ? { kind: 'accept', amount: says.amount, confirming: true } : null;
    }
    const last = talk.quotes[talk.quotes.length - 1];
    const quote = (amount: number, hold = false): CarrierMove => {
      talk.quotes.push(amount);
      return { kind: 'quote', amount, hold };
    };
    const finish = (m: CarrierMove): CarrierMove => {
      talk.done = true;
      return m;
    };
    const opening = () => {
      if (!free || !this.hasTruck(p, l)) {
        talk.refused = true;
        return finish({ kind: 'refuse' });
      }
      const ask = this.openingQuote(p, l);
      return quote(ask);
    };
    switch (says.kind) {
      case 'first': {
        if (p.asksToStop) return finish({ kind: 'stop' });
        if (!free || !this.hasTruck(p, l)) {
          talk.refused = true;
          return finish({ kind: 'refuse' });
        }
        if (p.asksFirst && !talk.asked) {
          talk.asked = true;
          return {
            kind: 'question',
            topic: pickOf(this.seed, ['weight', 'commodity', 'pickup'] as const, 'topic', p.key, l.number),
          };
        }
        const ask = this.openingQuote(p, l);
        if (says.ask !== null && says.ask >= ask) return finish({ kind: 'accept', amount: says.ask });
        return quote(ask);
      }
      case 'answered':
        return talk.asked && last === undefined && !talk.refused ? opening() : null;
      case 'offer': {
        if (!free) return finish({ kind: 'refuse' });
        if (says.amount >= r) return finish({ kind: 'accept', amount: says.amount });
        if (last === undefined) return quote(this.openingQuote(p, l));
        if (talk.rounds >= p.patience) return finish({ kind: 'pass' });
        talk.rounds++;
        const next = Math.max(round25(r + 12), round25(last - (last - says.amount) * p.concession));
        return next >= last ? quote(last, true) : quote(next);
      }
      case 'confirm': {
        // "To confirm: load X at $Y?": yes to its own price, else it says its price again.
        if (last === undefined) return talk.refused ? null : opening();
        if (says.amount === null || says.amount === last || says.amount >= r) {
          return finish({ kind: 'accept', amount: says.amount ?? last, confirming: true });
        }
        return quote(last, true);
      }
      case 'declined': {
        if (last === undefined || talk.rounds >= p.patience) return null;
        if (r > last * 0.98 || draw(this.seed, 'comes-down', p.key, l.number, talk.rounds) >= 0.5)
          return null;
        talk.rounds++;
        return quote(Math.max(round25(r + 12), round25(last * 0.95)));
      }
      case 'ask_rate': {
        if (talk.refused) return null;
        if (!free || !this.hasTruck(p, l)) {
          talk.refused = true;
          return finish({ kind: 'refuse' });
        }
        return quote(last ?? this.openingQuote(p, l));
      }
      default:
        return null;
    }
  }
}
