/**
 * A carrier's message read for one load of its conversation, knowing what the agent said there:
 * the load's number and pickup day, the amounts the agent named (posted rate, its counter, the
 * amount it asked to confirm), the load's distance, and the other loads the same message offered.
 * The carrier turn reads a message once per load of the conversation, each time with that load as
 * the context and the others as `other_loads`.
 */
import { splitByLoadNumbers } from '../../domain/bundled-offers.js';
import { type ReplyUnderstanding, understandReply } from './reply-understanding.js';

export interface OtherLoad {
  load_number: string;
  /** YYYY-MM-DD, when the load has a pickup date. */
  pickup_date: string | null;
  posted_rate: number | null;
}

export interface ReadingContext {
  load_number: string;
  /** YYYY-MM-DD, when the load has a pickup date. */
  pickup_date: string | null;
  /** The rate the agent's message said. */
  posted_rate: number | null;
  /** The agent's last counter-offer to this carrier on this load. */
  our_counter: number | null;
  /** Set when the agent's last message asked "to confirm: <load> at $X all in?". */
  confirm_amount: number | null;
  /** Miles, for per-mile quotes. */
  distance: number | null;
  /** The other loads the same conversation offered. */
  other_loads: OtherLoad[];
}

export type Language = 'en' | 'es';

export interface Reading extends ReplyUnderstanding {
  /**
   * A price for this load that is not firm (a range, an approximation, a condition on something
   * unsettled): the amount to confirm with the carrier. Never set together with `rate`.
   */
  tentative_rate: number | null;
  /** The language the carrier wrote in; the agent answers in it. */
  language: Language;
  /**
   * How sure the reading is of its amount, 0 to 1: 1 for a price stated plainly, lower for a bare
   * figure without a cue. The turn asks the carrier to confirm below CONFIRM_BELOW.
   */
  confidence: number;
}

/** A reading less sure than this is confirmed with the carrier before anything is recorded. */
export const CONFIRM_BELOW = 0.75;

const SPANISH =
  /\b(?:hola|buen[oa]s?|gracias|cami[oó]n|tenemos|tengo|podemos|puedo|cu[aá]nto|precio|carga|mil|ma[ñn]ana|s[ií]\b|por favor|disponible|no tengo|ya no)\b/i;

/** The reading of `text` for the context's load. */
export function readReply(text: string, context: ReadingContext): Reading {
  const numbers = [context.load_number, ...context.other_loads.map((o) => o.load_number)];
  const { parts, rest } = splitByLoadNumbers(text, numbers);
  const own = parts.find((p) => p.load_number.toLowerCase() === context.load_number.toLowerCase());
  // Another load named and this one not: its words are about the other load.
  const words = own ? own.text : parts.length > 0 ? '' : rest;
  const heard = understandReply(words, { distance: context.distance });
  return {
    ...heard,
    tentative_rate: null,
    language: SPANISH.test(text) ? 'es' : 'en',
    confidence: heard.rate === null ? 1 : 0.9,
  };
}
