import { defined } from '../lib/defined.js';
/**
 * An organization's negotiation policy and the amounts it puts forward, as pure functions of the
 * load's numbers and the time to pickup. The ceiling (max_buy_rate) only ever clips an amount: it
 * never chooses one, so two loads whose ceilings both sit above the schedule hear the same numbers.
 */

export const NEGOTIATION_STRATEGIES = ['concede', 'posted_rate_once'] as const;
export type NegotiationStrategy = (typeof NEGOTIATION_STRATEGIES)[number];

export const TARGET_BASES = ['posted_rate', 'suggested_market_rate'] as const;
export type TargetBasis = (typeof TARGET_BASES)[number];

/** From this many hours before pickup, the agent may concede up to this share of the target. */
export interface ConcessionStep {
  min_hours_to_pickup: number;
  max_concession_pct: number;
}

export interface NegotiationPolicy {
  /** `concede`: the schedule below. `posted_rate_once`: the earlier rule, kept as a baseline. */
  strategy: NegotiationStrategy;
  target_basis: TargetBasis;
  /** The opening ask as a percentage of the target; never below the posted rate carriers were told. */
  opening_ask_pct: number;
  /** Most counter-offers to one carrier on one load, the final one included. */
  max_rounds: number;
  /** Sorted by min_hours_to_pickup descending; the concession allowed grows as pickup nears. */
  concession_schedule: ConcessionStep[];
  /** The last round is said as "the best we can do is $X". */
  best_and_final: boolean;
  /** Books at once an offer at or under the agent's current ask (a PASSED carrier only). */
  auto_accept_at_or_under_ask: boolean;
  /** Amounts the agent puts forward are rounded down to a multiple of this many dollars. */
  round_to: number;
}

export const DEFAULT_NEGOTIATION_POLICY: NegotiationPolicy = Object.freeze({
  strategy: 'concede',
  target_basis: 'posted_rate',
  opening_ask_pct: 95,
  max_rounds: 3,
  // Against 3/6/10/15: as many loads covered, less paid (docs/decisions/0034-negotiation.md); with
  // a carrier offered its whole lane, more carriers quote each load.
  concession_schedule: [
    { min_hours_to_pickup: 72, max_concession_pct: 2 },
    { min_hours_to_pickup: 24, max_concession_pct: 4 },
    { min_hours_to_pickup: 6, max_concession_pct: 6 },
    { min_hours_to_pickup: 0, max_concession_pct: 10 },
  ],
  best_and_final: true,
  auto_accept_at_or_under_ask: false,
  round_to: 25,
});

/** The load's numbers the policy reads; none of them is said to a carrier except the posted rate. */
export interface LoadNumbers {
  posted: number | null;
  /** max_buy_rate. */
  ceiling: number | null;
  /** suggested_market_rate. */
  market: number | null;
  pickupAt: Date | null;
}

/** The policy's view of one load: its target, opening ask, ceiling and concession cap now. */
export interface Bounds {
  target: number;
  opening: number;
  ceiling: number;
  /** Most the agent may add to the opening ask now (dollars), by the hours left to pickup. */
  cap: number;
}

const HOUR_MS = 3_600_000;

export function targetOf(policy: NegotiationPolicy, load: LoadNumbers): number | null {
  if (policy.target_basis === 'suggested_market_rate' && load.market !== null && load.market > 0)
    return load.market;
  return load.posted;
}

/** The share of the target the schedule allows now (an unknown pickup takes the least urgent step). */
export function concessionPct(policy: NegotiationPolicy, pickupAt: Date | null, now: Date): number {
  const steps = [...policy.concession_schedule].sort((a, b) => b.min_hours_to_pickup - a.min_hours_to_pickup);
  if (steps.length === 0) return 0;
  if (pickupAt === null) return defined(steps[0], 'steps[0]').max_concession_pct;
  const hours = (pickupAt.getTime() - now.getTime()) / HOUR_MS;
  const step = steps.find((s) => hours >= s.min_hours_to_pickup) ?? defined(steps.at(-1), 'steps.at(-1)');
  return step.max_concession_pct;
}

export const roundDown = (amount: number, step: number) =>
  step > 1 ? Math.floor(amount / step) * step : Math.floor(amount);

/** Null when the load has no target (neither a posted rate nor, where configured, a market rate). */
export function boundsOf(policy: NegotiationPolicy, load: LoadNumbers, now: Date): Bounds | null {
  const target = targetOf(policy, load);
  if (target === null || target <= 0) return null;
  const unclipped = Math.max(
    load.posted ?? 0,
    roundDown((target * policy.opening_ask_pct) / 100, policy.round_to),
  );
  // Without a max_buy_rate the agent never pays over its own opening ask.
  const ceiling = load.ceiling ?? unclipped;
  return {
    target,
    opening: Math.min(ceiling, unclipped),
    ceiling,
    cap: (target * concessionPct(policy, load.pickupAt, now)) / 100,
  };
}

/**
 * The amount of the agent's counter number `round` (1-based): the opening ask, then equal steps up
 * to the cap at the last round, rounded down, never under `floor` and never over the ceiling.
 */
export function scheduledCounter(policy: NegotiationPolicy, b: Bounds, round: number, floor: number): number {
  const share = policy.max_rounds <= 1 ? 0 : Math.min(1, (round - 1) / (policy.max_rounds - 1));
  const amount = round <= 1 ? b.opening : roundDown(b.opening + b.cap * share, policy.round_to);
  return Math.min(b.ceiling, Math.max(floor, amount));
}

/** The most the schedule could ever say for this load (the last round at the steepest step). */
export function scheduleTop(policy: NegotiationPolicy, load: LoadNumbers): number | null {
  const b = boundsOf(policy, { ...load, ceiling: null, pickupAt: null }, new Date(0));
  if (!b) return null;
  const steepest = Math.max(0, ...policy.concession_schedule.map((s) => s.max_concession_pct));
  return Math.max(b.opening, roundDown(b.opening + (b.target * steepest) / 100, policy.round_to));
}
