import { defined } from '../../src/lib/defined.js';
import { Sequence } from './prng.js';

/**
 * The simulated market, built once from the seed: lanes with a market rate per mile, carriers
 * with their lanes, tiers, addresses, compliance, time zones, price level and habits, and loads
 * arriving over business days. Every policy of a run gets this same market.
 */

export type Equipment = 'VAN' | 'REEFER' | 'FLATBED';

export interface SimLane {
  index: number;
  origin: { city: string; state: string };
  destination: { city: string; state: string };
  miles: number;
  equipment: Equipment;
}

export interface LaneMembership {
  lane: number;
  tier: number | null;
  /** restricted: on the lane but never to be contacted automatically about it. */
  preference: 'primary' | 'restricted';
}

export interface SimCarrier {
  index: number;
  name: string;
  mc: string;
  homeState: string;
  lanes: LaneMembership[];
  equipment: Equipment[];
  phone: string | null;
  /** A landline: calls work, WhatsApp does not. */
  landline: boolean;
  /** The number is dead: every call fails. */
  deadPhone: boolean;
  email: string | null;
  /** The address bounces. */
  badEmail: boolean;
  /** registry: PASSED; unverified: not in the registry snapshot; blocked: out of service. */
  compliance: 'registry' | 'unverified' | 'blocked';
  active: boolean;
  /** Asked not to be contacted before the run starts. */
  stopped: boolean;
  /** Asks to be taken off the list on its first contact. */
  asksToStop: boolean;
  /** The carrier's price level against the market (its reservation prices scale with it). */
  priceLevel: number;
  /** How far above its reservation it opens. */
  markup: number;
  /** Share of the way to the broker's counter it moves per round. */
  concession: number;
  /** Counter rounds it will go before passing. */
  patience: number;
  /** Multiplies its answer rates. */
  responsiveness: number;
  /** Loads it can take per day. */
  trucksPerDay: number;
}

export interface SimLoad {
  index: number;
  number: string;
  lane: number;
  equipment: Equipment;
  arrivesAt: number;
  pickupAt: number;
  market: number;
  posted: number;
  ceiling: number;
  customer: number;
  suggested: number | null;
  weight: number;
}

export interface Market {
  seed: number;
  start: Date;
  lanes: SimLane[];
  carriers: SimCarrier[];
  loads: SimLoad[];
}

const LANES: [string, string, string, string, number, Equipment][] = [
  ['Chicago', 'IL', 'Dallas', 'TX', 925, 'VAN'],
  ['Dallas', 'TX', 'Atlanta', 'GA', 780, 'VAN'],
  ['Atlanta', 'GA', 'Chicago', 'IL', 715, 'VAN'],
  ['Los Angeles', 'CA', 'Phoenix', 'AZ', 370, 'VAN'],
  ['Phoenix', 'AZ', 'Denver', 'CO', 820, 'FLATBED'],
  ['Denver', 'CO', 'Kansas City', 'MO', 600, 'VAN'],
  ['Seattle', 'WA', 'Salt Lake City', 'UT', 840, 'REEFER'],
  ['Newark', 'NJ', 'Charlotte', 'NC', 530, 'VAN'],
  ['Charlotte', 'NC', 'Jacksonville', 'FL', 380, 'REEFER'],
  ['Memphis', 'TN', 'Columbus', 'OH', 575, 'VAN'],
  ['Houston', 'TX', 'Memphis', 'TN', 570, 'FLATBED'],
  ['Detroit', 'MI', 'Philadelphia', 'PA', 580, 'VAN'],
  ['Laredo', 'TX', 'Chicago', 'IL', 1380, 'VAN'],
  ['Minneapolis', 'MN', 'Chicago', 'IL', 410, 'REEFER'],
  ['Los Angeles', 'CA', 'Seattle', 'WA', 1135, 'REEFER'],
  ['Atlanta', 'GA', 'Newark', 'NJ', 870, 'VAN'],
];

const PER_MILE: Record<Equipment, number> = { VAN: 2.3, REEFER: 2.7, FLATBED: 2.9 };
/** Carriers' home states, by time zone. */
const HOME_STATES = [
  'IL',
  'TX',
  'GA',
  'CA',
  'AZ',
  'CO',
  'MO',
  'WA',
  'UT',
  'NJ',
  'NC',
  'FL',
  'TN',
  'OH',
  'MI',
  'PA',
  'MN',
];

const round25 = (n: number) => Math.round(n / 25) * 25;

export interface MarketSize {
  loads: number;
  carriers: number;
  lanes: number;
  /** Business days the loads arrive over. */
  days: number;
  /** The longest a pickup is after the load arrives (hours; 72 at full size). */
  maxLeadHours: number;
}

/** A Monday 06:00 in Chicago, away from daylight-saving changes. */
export const SIM_START = new Date('2025-06-02T11:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function buildMarket(seed: number, size: MarketSize): Market {
  const rnd = new Sequence(seed);
  const lanes: SimLane[] = LANES.slice(0, size.lanes).map(([oc, os, dc, ds, miles, equipment], index) => ({
    index,
    origin: { city: oc, state: os },
    destination: { city: dc, state: ds },
    miles,
    equipment,
  }));
  const carriers: SimCarrier[] = [];
  for (let i = 0; i < size.carriers; i++) {
    const laneCount = rnd.weighted([
      [1, 0.5],
      [2, 0.35],
      [3, 0.15],
    ] as const);
    const first = rnd.int(0, lanes.length - 1);
    const chosen = new Set([first]);
    while (chosen.size < Math.min(laneCount, lanes.length)) {
      // Mostly a neighbouring lane (lanes are listed roughly by region), else any.
      const next = rnd.chance(0.6)
        ? (first + rnd.pick([-2, -1, 1, 2]) + lanes.length) % lanes.length
        : rnd.int(0, lanes.length - 1);
      chosen.add(next);
    }
    const memberships: LaneMembership[] = [...chosen].map((lane) => ({
      lane,
      tier: rnd.weighted([
        [1, 0.15],
        [2, 0.35],
        [3, 0.3],
        [null, 0.2],
      ] as const),
      preference: rnd.chance(0.04) ? 'restricted' : 'primary',
    }));
    const home = rnd.chance(0.65)
      ? defined(lanes[first], 'lanes[first]').origin.state
      : rnd.pick(HOME_STATES);
    const unreachable = rnd.chance(0.04);
    const hasPhone = !unreachable && rnd.chance(0.9);
    const hasEmail = !unreachable && (!hasPhone || rnd.chance(0.8));
    const mc = String(300000 + i);
    carriers.push({
      index: i,
      name: `${rnd.pick(['Swift', 'Eagle', 'Prairie', 'Blue Line', 'Red Rock', 'Lone Star', 'Summit', 'Coastal', 'Iron Horse', 'Great Lakes'])} ${rnd.pick(['Freight', 'Logistics', 'Transport', 'Trucking', 'Carriers'])} ${i}`,
      mc,
      homeState: home,
      lanes: memberships,
      equipment: [...new Set(memberships.map((m) => defined(lanes[m.lane], 'lanes[m.lane]').equipment))],
      phone: hasPhone ? `+1312${String(5550000 + i).padStart(7, '0')}` : null,
      landline: rnd.chance(0.35),
      deadPhone: rnd.chance(0.02),
      email: hasEmail ? `dispatch${i}@carrier${i}.example` : null,
      badEmail: rnd.chance(0.05),
      compliance: rnd.weighted([
        ['registry', 0.86],
        ['unverified', 0.11],
        ['blocked', 0.03],
      ] as const),
      active: !rnd.chance(0.02),
      stopped: rnd.chance(0.03),
      asksToStop: rnd.chance(0.015),
      priceLevel: Math.exp(rnd.normal() * 0.07),
      markup: rnd.between(0.04, 0.18),
      concession: rnd.between(0.3, 0.6),
      patience: rnd.weighted([
        [1, 0.3],
        [2, 0.45],
        [3, 0.25],
      ] as const),
      responsiveness: rnd.between(0.6, 1.3),
      trucksPerDay: rnd.weighted([
        [1, 0.5],
        [2, 0.35],
        [3, 0.15],
      ] as const),
    });
  }
  const loads: SimLoad[] = [];
  for (let i = 0; i < size.loads; i++) {
    const lane = defined(lanes[rnd.int(0, lanes.length - 1)], 'lanes[rnd.int(0, lanes.length - 1)]');
    // Business hours in Chicago (07:00-17:00, 11 hours after SIM_START's 06:00), day by day.
    const day = Math.floor((i / size.loads) * size.days);
    const arrivesAt = SIM_START.getTime() + day * DAY + HOUR + rnd.next() * 10 * HOUR;
    // Pickup from 4 hours to 3 days out; the nearer, the dearer.
    const leadHours = Math.min(
      size.maxLeadHours,
      rnd.weighted([
        [rnd.between(4, 12), 0.25],
        [rnd.between(12, 36), 0.45],
        [rnd.between(36, 72), 0.3],
      ] as const),
    );
    const urgency = leadHours < 12 ? 1.08 : leadHours < 36 ? 1.02 : 1;
    const market =
      Math.max(700, lane.miles * PER_MILE[lane.equipment] + 150) * urgency * Math.exp(rnd.normal() * 0.06);
    loads.push({
      index: i,
      number: `OUT-${String(i + 1).padStart(5, '0')}`,
      lane: lane.index,
      equipment: lane.equipment,
      arrivesAt,
      pickupAt: arrivesAt + leadHours * HOUR,
      market,
      posted: round25(market * rnd.between(0.9, 0.97)),
      ceiling: round25(market * rnd.between(1.04, 1.12)),
      customer: round25(market * 1.2),
      suggested: rnd.chance(0.7) ? Math.round(market) : null,
      weight: rnd.int(12, 44) * 1000,
    });
  }
  // In arrival order, each load's index its place in that order.
  loads.sort((a, b) => a.arrivesAt - b.arrivesAt);
  loads.forEach((l, i) => {
    l.index = i;
  });
  return { seed, start: SIM_START, lanes, carriers, loads };
}
