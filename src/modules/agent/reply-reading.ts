/**
 * A carrier's message read for one load of its conversation, knowing what the agent said there:
 * the load's number and pickup day, the amounts the agent named (posted rate, its counter, the
 * amount it asked to confirm), the load's distance, and the other loads the same message offered.
 * The carrier turn reads a message once per load of the conversation, each time with that load as
 * the context and the others as `other_loads`.
 */
import type { ReadingContext } from './reply-context.js';
import type { Language } from './reply-language.js';
import { type ReplyUnderstanding, understandFor } from './reply-understanding.js';

export type { OtherLoad, ReadingContext } from './reply-context.js';
export type { Language } from './reply-language.js';

export interface Reading extends ReplyUnderstanding {
  /**
   * A price for this load that is not firm (a range, an approximation, a condition on something
   * unsettled): the amount to confirm with the carrier. Never set together with `rate`.
   */
  tentative_rate: number | null;
  /** The language the carrier wrote in; the agent answers in it. */
  language: Language;
  /**
   * How sure the reading is of its firm rate, 0 to 1: 1 for a price stated plainly (a "$", "k",
   * "all in", an asking word, our amount accepted in words, a yes to our confirmation question) and
   * when there is no rate; 0.8 for a bare figure in the range of the load's price ("2300"); 0.6 for
   * a bare figure far from it, shorthand hundreds ("need 24"), our amount
   * repeated without a word of acceptance, or a figure read after setting another aside; 0.5 with
   * a tentative rate. The turn asks the carrier to confirm below CONFIRM_BELOW.
   */
  confidence: number;
}

/** A reading less sure than this is confirmed with the carrier before anything is recorded. */
export const CONFIRM_BELOW = 0.75;

/** The reading of `text` for the context's load. */
export function readReply(text: string, context: ReadingContext): Reading {
  return understandFor(text, context);
}
