import {
  carrierKeyOf,
  type MarketLoad,
  marketRateOf,
  type Persona,
  personaOf,
} from '../../src/integrations/simulation/carrier-model.js';
import { defined } from '../../src/lib/defined.js';
import { Sequence } from './prng.js';

/**
 * The benchmark's scenario, built once from the seed: lanes, carriers with their lanes, tiers,
 * addresses, compliance and time zones, and loads arriving over business days. How each carrier
 * behaves (its prices, answer rates, trucks, habits, the way it writes) is not decided here: it is
 * the product's simulated market's model (src/integrations/simulation), keyed by the carrier's MC
 * number, the same carriers the product's simulation plays. Every policy of a run gets this same
 * scenario.
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
  email: string | null;
  /** registry: PASSED; unverified: not in the registry snapshot; blocked: out of service. */
  compliance: 'registry' | 'unverified' | 'blocked';
  active: boolean;
  /** Asked not to be contacted before the run starts. */
  stopped: boolean;
  /** Its habits in the product's simulated market (a landline, a dead number, a bouncing address...). */
  persona: Persona;
}

export interface SimLoad {
  index: number;
  number: string;
  lane: number;
  miles: number;
  equipment: Equipment;
  arrivesAt: number;
  pickupAt: number;
  /** The market rate the simulated market's carriers price against (the product's model). */
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
      email: hasEmail ? `dispatch${i}@carrier${i}.example` : null,
      compliance: rnd.weighted([
        ['registry', 0.86],
        ['unverified', 0.11],
        ['blocked', 0.03],
      ] as const),
      active: !rnd.chance(0.02),
      stopped: rnd.chance(0.03),
      persona: personaOf(seed, carrierKeyOf(mc, null, null), 'realistic'),
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
    const number = `OUT-${String(i + 1).padStart(5, '0')}`;
    const pickupAt = arrivesAt + leadHours * HOUR;
    const suggested = rnd.chance(0.7);
    // The market rate is the product's model's, from what the product will know of the load.
    const facts: MarketLoad = {
      number,
      postedRate: null,
      suggestedMarketRate: null,
      distance: lane.miles,
      equipment: lane.equipment,
      pickupAt,
      handedAt: arrivesAt,
      tier: null,
    };
    const market = marketRateOf(seed, facts);
    loads.push({
      index: i,
      number,
      lane: lane.index,
      miles: lane.miles,
      equipment: lane.equipment,
      arrivesAt,
      pickupAt,
      market,
      posted: round25(market * rnd.between(0.9, 0.97)),
      ceiling: round25(market * rnd.between(1.04, 1.12)),
      customer: round25(market * 1.2),
      suggested: suggested ? Math.round(market) : null,
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
