/**
 * Negotiation inside the load's numbers, as one pure decision used by every channel (e-mail,
 * WhatsApp, the voice tool). The agent says the posted rate and its own asks, nothing else: the
 * customer rate, the margin and the max buy rate (the ceiling) are never in a reply, and an offer
 * over the ceiling is answered exactly as an offer over the current ask under it (see docs/decisions/0034-negotiation.md).
 */
import {
  boundsOf,
  type LoadNumbers,
  type NegotiationPolicy,
  scheduledCounter,
} from './negotiation-policy.js';
import type { ReplyIntent } from './reply-wording.js';

export type Decision =
  /**
   * Booked at once: at or under the current ask, where the organization allows it, PASSED carrier,
   * and the amount confirmed by the carrier.
   */
  | { kind: 'accept'; amount: number }
  /**
   * The carrier is asked "to confirm: <load> at `amount` all in?" before anything else: an amount
   * that would be booked but was not confirmed, or one that was not firm (a range, a condition).
   */
  | { kind: 'confirm'; amount: number }
  /** Recorded pending for a rep, at the carrier's amount. */
  | { kind: 'review'; amount: number }
  /** A counter-offer at `amount`. */
  | { kind: 'counter'; amount: number }
  /** The last round: "the best we can do is `amount`". */
  | { kind: 'final'; amount: number }
  /** After the final round: a neutral pass, the same words whatever the carrier asked. */
  | { kind: 'pass' }
  /** `posted_rate_once` only (the earlier rule): over the ceiling, declined. */
  | { kind: 'decline'; amount: number }
  /** The carrier named no rate and has not quoted one yet. */
  | { kind: 'ask_rate' }
  /** The carrier declined or has no truck. */
  | { kind: 'not_available' };

/**
 * What the intake answers besides a decision: the load is booked or past booking (`covered`), or
 * the carrier is not vetted yet and its quote is kept for a rep without an answer on the rate (`held`).
 */
export type OfferDecision = Decision | { kind: 'covered' } | { kind: 'held' };

/** The amount the answer states, when it states one. */
export const amountOf = (d: OfferDecision): number | null => ('amount' in d ? d.amount : null);

/** One carrier's negotiation on one load so far (stored per carrier per load). */
export interface Conversation {
  /** Counter-offers made (the final one included). */
  rounds: number;
  /** The agent's standing ask: its last counter, or an amount over it it took; null before any. */
  ask: number | null;
  /** The last counter said. */
  lastCounter: number | null;
  /** The carrier's lowest and latest offers. */
  lowestOffer: number | null;
  lastOffer: number | null;
  /** The agent passed after its final round. */
  passed: boolean;
  /** The carrier said no (no truck, not interested). */
  declined: boolean;
  /** The amount the agent last asked the carrier to confirm, until the carrier answers. */
  confirming: number | null;
}

export const NEW_CONVERSATION: Conversation = Object.freeze({
  rounds: 0,
  ask: null,
  lastCounter: null,
  lowestOffer: null,
  lastOffer: null,
  passed: false,
  declined: false,
  confirming: null,
});

/**
 * What the carrier said: a rate (`confirmed` when it is the carrier's yes to the amount the agent
 * asked it to confirm), an amount that is not firm, a refusal, or something without a rate.
 */
export type CarrierSaid =
  | { kind: 'offer'; amount: number; confirmed?: boolean }
  | { kind: 'tentative'; amount: number }
  | { kind: 'declined' }
  | { kind: 'no_rate' };

export interface NegotiationInput {
  policy: NegotiationPolicy;
  /** The organization books at once an offer at or under the posted rate (agent settings). */
  autoAcceptAtOrUnderPostedRate: boolean;
  load: LoadNumbers;
  /** Only a PASSED carrier is ever booked automatically; others go to review. */
  carrierCompliancePassed: boolean;
  now: Date;
  conversation: Conversation;
  said: CarrierSaid;
}

export interface NegotiationStep {
  decision: Decision;
  conversation: Conversation;
}

/** THE decision on what a carrier said, and the conversation after it. */
export function decide(input: NegotiationInput): NegotiationStep {
  const step = decided(input);
  // An amount to confirm stands until the carrier's next answer, whatever that is.
  if (step.decision.kind === 'confirm') return step;
  return { ...step, conversation: { ...step.conversation, confirming: null } };
}

function decided(input: NegotiationInput): NegotiationStep {
  const c = input.conversation;
  if (input.said.kind === 'declined') {
    return { decision: { kind: 'not_available' }, conversation: { ...c, declined: true } };
  }
  if (input.said.kind === 'no_rate') return { decision: standing(input), conversation: c };
  if (input.said.kind === 'tentative') {
    // Never recorded, never the base of a counter: the carrier is asked for the amount, firm.
    const amount = input.said.amount;
    return { decision: { kind: 'confirm', amount }, conversation: { ...c, confirming: amount } };
  }
  const x = input.said.amount;
  const heard: Conversation = {
    ...c,
    lastOffer: x,
    lowestOffer: c.lowestOffer === null ? x : Math.min(c.lowestOffer, x),
  };
  const step =
    input.policy.strategy === 'posted_rate_once'
      ? postedRateOnce(input, x, heard)
      : negotiated(input, x, heard);
  if (step.decision.kind === 'accept' && !input.said.confirmed && !ours(input, x)) {
    // Booked only once the carrier said yes to the amount, in words, to our question.
    return {
      decision: { kind: 'confirm', amount: x },
      conversation: { ...step.conversation, confirming: x },
    };
  }
  return step;
}

/**
 * The agent's own number (the posted rate it announced, its last counter) said back: the carrier
 * agreed to an amount the agent named itself, which needs no reading back.
 */
const ours = (input: NegotiationInput, x: number) =>
  x === input.load.posted || x === input.conversation.lastCounter;

function negotiated(input: NegotiationInput, x: number, heard: Conversation): NegotiationStep {
  const c = input.conversation;
  const b = boundsOf(input.policy, input.load, input.now);
  if (!b) return { decision: { kind: 'review', amount: x }, conversation: heard };
  const ask = Math.min(b.ceiling, c.ask ?? b.opening);
  if (x <= ask) return { decision: take(input, x, ask), conversation: heard };
  // The carrier already offered what the agent would take: it holds them to that, never counters higher.
  if (c.lowestOffer !== null && c.lowestOffer <= ask) {
    return { decision: { kind: 'review', amount: c.lowestOffer }, conversation: heard };
  }
  if (c.passed) return { decision: { kind: 'pass' }, conversation: heard };
  const moved = c.lowestOffer === null || x < c.lowestOffer;
  const last = c.rounds >= input.policy.max_rounds;
  if (c.rounds > 0 && !moved) {
    // The carrier did not come down: the agent repeats its standing ask, as it said it last.
    return { decision: counterAt(input, ask, c.rounds), conversation: heard };
  }
  if (last) return { decision: { kind: 'pass' }, conversation: { ...heard, passed: true } };
  const round = c.rounds + 1;
  const next = scheduledCounter(input.policy, b, round, ask);
  if (x <= next) {
    // Within what the agent would put forward now: taken as the carrier said it.
    return { decision: take(input, x, next), conversation: { ...heard, ask: x } };
  }
  return {
    decision: counterAt(input, next, round),
    conversation: { ...heard, rounds: round, ask: next, lastCounter: next },
  };
}

/** An offer at or under what the agent would pay now: booked where allowed, else for a rep. */
function take(input: NegotiationInput, x: number, ask: number): Decision {
  const { posted } = input.load;
  const auto =
    input.carrierCompliancePassed &&
    ((input.autoAcceptAtOrUnderPostedRate && posted !== null && x <= posted) ||
      (input.policy.auto_accept_at_or_under_ask && x <= ask));
  return { kind: auto ? 'accept' : 'review', amount: x };
}

/** A counter of round `round`: the last one is said as final where the policy says so. */
const counterAt = (input: Pick<NegotiationInput, 'policy'>, amount: number, round: number) =>
  ({
    kind: round >= input.policy.max_rounds && input.policy.best_and_final ? 'final' : 'counter',
    amount,
  }) as const satisfies Decision;

/** The answer to a reply without a rate: never a question for a rate once one was quoted or refused. */
function standing(input: NegotiationInput): Decision {
  const c = input.conversation;
  if (c.declined) return { kind: 'not_available' };
  // An amount asked to be confirmed and not answered yet: the question stands.
  if (c.confirming !== null) return { kind: 'confirm', amount: c.confirming };
  // The earlier rule asks again whatever was quoted (kept as it was, for the baseline).
  if (c.lowestOffer === null || input.policy.strategy === 'posted_rate_once') return { kind: 'ask_rate' };
  const b = boundsOf(input.policy, input.load, input.now);
  const ask = b ? Math.min(b.ceiling, c.ask ?? b.opening) : null;
  if (ask === null || c.lowestOffer <= ask) return { kind: 'review', amount: c.lowestOffer };
  if (c.passed) return { kind: 'pass' };
  return counterAt(input, ask, Math.max(1, c.rounds));
}

/** The earlier rule, kept as a named baseline: it declines over the ceiling (and so reveals it). */
function postedRateOnce(input: NegotiationInput, x: number, heard: Conversation): NegotiationStep {
  const { posted, ceiling } = input.load;
  const c = input.conversation;
  if (ceiling !== null && x > ceiling)
    return { decision: { kind: 'decline', amount: x }, conversation: heard };
  if (posted === null) return { decision: { kind: 'review', amount: x }, conversation: heard };
  if (x <= posted) {
    const auto = input.autoAcceptAtOrUnderPostedRate && input.carrierCompliancePassed;
    return { decision: { kind: auto ? 'accept' : 'review', amount: x }, conversation: heard };
  }
  if (c.rounds > 0) return { decision: { kind: 'review', amount: x }, conversation: heard };
  return {
    decision: { kind: 'counter', amount: posted },
    conversation: { ...heard, rounds: 1, ask: posted, lastCounter: posted },
  };
}

/** Why a rep's counter cannot be said: each a rule the agent keeps too. */
export type RepCounterRefusal =
  /** Over max_buy_rate: never offered, whoever counters. */
  | { kind: 'above_ceiling'; ceiling: number }
  /** At or over what the carrier asked: accept the offer instead. */
  | { kind: 'not_below_ask'; asked: number }
  /** Under our own last counter: a counter never takes back what was said. */
  | { kind: 'below_last_counter'; lastCounter: number }
  /** Every round of the policy was said. */
  | { kind: 'rounds_exhausted'; maxRounds: number }
  /** The conversation ended: we passed after the final round, or the carrier said no. */
  | { kind: 'conversation_ended'; why: 'passed' | 'declined' };

export interface RepCounterInput {
  policy: NegotiationPolicy;
  load: LoadNumbers;
  conversation: Conversation;
  /** The amount of the offer the rep answers. */
  offerAmount: number;
  /** What the rep would say. */
  amount: number;
}

export type RepCounterStep =
  | {
      ok: true;
      decision: { kind: 'counter' | 'final'; amount: number };
      round: number;
      conversation: Conversation;
    }
  | { ok: false; refusal: RepCounterRefusal };

/**
 * A rep's counter-offer, under the rules the agent's own counters keep: never over the ceiling,
 * never at or over what the carrier asked (that is an offer to accept), never under our last
 * counter, at most `max_rounds` counters in one conversation. It takes a round and becomes the
 * standing ask, so a carrier who then offers at or under it is taken as `decide` takes any offer.
 */
export function repCounter(input: RepCounterInput): RepCounterStep {
  const c = input.conversation;
  const { amount } = input;
  if (c.declined) return { ok: false, refusal: { kind: 'conversation_ended', why: 'declined' } };
  if (c.passed) return { ok: false, refusal: { kind: 'conversation_ended', why: 'passed' } };
  if (c.rounds >= input.policy.max_rounds) {
    return { ok: false, refusal: { kind: 'rounds_exhausted', maxRounds: input.policy.max_rounds } };
  }
  if (input.load.ceiling !== null && amount > input.load.ceiling) {
    return { ok: false, refusal: { kind: 'above_ceiling', ceiling: input.load.ceiling } };
  }
  const asked = Math.min(input.offerAmount, c.lowestOffer ?? input.offerAmount);
  if (amount >= asked) return { ok: false, refusal: { kind: 'not_below_ask', asked } };
  if (c.lastCounter !== null && amount < c.lastCounter) {
    return { ok: false, refusal: { kind: 'below_last_counter', lastCounter: c.lastCounter } };
  }
  const round = c.rounds + 1;
  return {
    ok: true,
    decision: counterAt(input, amount, round),
    round,
    conversation: { ...c, rounds: round, ask: amount, lastCounter: amount },
  };
}

export {
  describeLoad,
  type Language,
  type LoadSummary,
  type ReplyIntent,
  replyText,
} from './reply-wording.js';

/** The wording a decision is answered with. */
export const intentOf = (d: OfferDecision): ReplyIntent => (d.kind === 'held' ? 'vetting_pending' : d.kind);
