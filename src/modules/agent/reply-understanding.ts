/**
 * Reads what a carrier writes back about a load offer (e-mail, WhatsApp or a transcribed call) and
 * pulls out what the outreach flow acts on: the price they ask, whether they have a truck (and why
 * not), whether they want us to stop contacting them, and what they ask about the load.
 *
 * Deterministic and offline on purpose: it runs on every inbound message, its answers must be
 * reproducible in tests and audits, and a chat model can still be layered on top for the hard cases.
 * It is measured against a hand-labelled corpus (test/fixtures/carrier-replies.json).
 *
 * The pipeline, in order:
 *   1. ownWords / normalize   the carrier's own words (quoted thread and signature cut, answers
 *                             written inline kept), lower case, plain quotes          reply-text
 *   2. spelledNumbersToDigits "twenty three hundred", "dos mil cuatrocientos", "2k4" -> digits
 *                                                                                    reply-numbers
 *   3. readOffer              the price for this load: numbers that are something else masked
 *                             (reply-masks), figures found (reply-price, reply-price-shapes),
 *                             placed by the loads, places and days named (reply-mentions), then
 *                             weighed: firm, tentative or none                       reply-offer
 *   4. readAvailability       yes / no / not said, and why not                    reply-availability
 *   5. asksToStopContact      opt-out requests                                           reply-stop
 *   6. askedTopics            questions about the load                              reply-questions
 *
 * When unsure, it reads no amount: a missed price costs a question ("what rate would you need?"),
 * a wrong one costs money.
 */
import type { QuestionTopic } from '../../domain/load-questions.js';
import { readAvailability, type UnavailableReason } from './reply-availability.js';
import { contextWithDistance, type ReadingContext } from './reply-context.js';
import { type Language, languageOf } from './reply-language.js';
import { mentionsIn } from './reply-mentions.js';
import { spelledNumbersToDigits } from './reply-numbers.js';
import { readOffer } from './reply-offer.js';
import { askedTopics } from './reply-questions.js';
import { asksToStopContact } from './reply-stop.js';
import { normalize, ownWords } from './reply-text.js';

export type { UnavailableReason } from './reply-availability.js';
export { PER_MILE_RANGE, RATE_RANGE } from './reply-price.js';

export interface ReplyUnderstanding {
  /** The carrier's firm line-haul price for the whole load in USD, or null when none is clearly stated. */
  rate: number | null;
  /** How the rate was stated: all in, plus fuel surcharge on top, or per mile (converted with the load distance). */
  rate_basis: 'all_in' | 'plus_fuel' | 'per_mile' | null;
  /** A per-mile figure when one was given (e.g. 2.5), else null. */
  rate_per_mile: number | null;
  /** true: has a truck / can cover; false: cannot (no trucks, booked, pass); null: not said. */
  available: boolean | null;
  /** Why not, when `available` is false. */
  unavailable_reason: UnavailableReason | null;
  /** The carrier asks not to be contacted again (stop, unsubscribe, remove me, do not call, ...). */
  stop_contact: boolean;
  /** What the carrier asks about the load, in the order asked. */
  questions: QuestionTopic[];
}

/** Reasons that are haggling, not a missing truck: a price named beside them still stands. */
const PRICE_TALK: ReadonlySet<UnavailableReason> = new Set(['rate', 'declined']);

/** A message read on its own, knowing only the load's distance (for per-mile quotes). */
export function understandReply(text: string, context?: { distance?: number | null }): ReplyUnderstanding {
  const {
    tentative_rate: _tentative,
    confidence: _confidence,
    language: _language,
    ...heard
  } = understandFor(text, contextWithDistance(context?.distance ?? null));
  return heard;
}

/** A message read for one load of its conversation: the firm or tentative price for it, and the rest. */
export function understandFor(
  text: string,
  context: ReadingContext,
): ReplyUnderstanding & { tentative_rate: number | null; confidence: number; language: Language } {
  const numbers = [context.load_number, ...context.other_loads.map((o) => o.load_number)].filter(Boolean);
  const own = normalize(ownWords(text, numbers));
  const normalized = spelledNumbersToDigits(own);
  let offer = readOffer(normalized, context);
  // Which load a stretch of the reply names, so that a refusal of another load is not this one's.
  const mentions = mentionsIn(normalized, context);
  const availability = readAvailability(normalized, (start, end) => {
    const named = mentions.filter((m) => m.kind !== 'day' && m.start >= start && m.end <= end);
    if (named.some((m) => m.target === 'this')) return 'this';
    return named.some((m) => m.target === 'other') ? 'other' : null;
  });
  const stop = asksToStopContact(normalized);
  const priced = offer.rate !== null || offer.tentative_rate !== null || offer.rate_per_mile !== null;

  let available = availability.available;
  let reason = availability.reason;
  if (stop) {
    // A stop request is a no, whatever else the message says; a wrong number stays a wrong number.
    available = false;
    reason = availability.reasons.has('wrong_contact') ? 'wrong_contact' : 'opt_out';
    offer = { ...offer, rate: null, rate_basis: null, rate_per_mile: null, tentative_rate: null };
  } else if (priced) {
    const haggling = [...availability.reasons].every((r) => PRICE_TALK.has(r)) && !availability.elsewhere;
    if (available === false && !haggling && !offer.onOurRaise && !offer.checking) {
      // "No trucks, 2500 maybe next week", "4821 no, 4830 2450": no price for this load.
      offer = { ...offer, rate: null, rate_basis: null, rate_per_mile: null, tentative_rate: null };
    } else {
      // Quoting a price means they can haul it: "too low, 2450 and we go" is a counter, not a no;
      // unless they still have to check their truck ("prob 2300 lemme ask my driver").
      available = offer.checking || availability.checking ? null : true;
      reason = null;
    }
  }
  const stillPriced = offer.rate !== null || offer.tentative_rate !== null;
  return {
    rate: offer.rate,
    rate_basis: offer.rate_basis,
    rate_per_mile: offer.rate_per_mile,
    tentative_rate: offer.tentative_rate,
    confidence: offer.rate === null ? 1 : offer.confidence,
    available,
    unavailable_reason: available === false ? reason : null,
    stop_contact: stop,
    questions: askedTopics(normalized, stillPriced),
    language: languageOf(own),
  };
}
