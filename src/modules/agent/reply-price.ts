import { defined } from '../../lib/defined.js';
import { maskSpans } from './reply-text.js';

/** Plausible prices for a whole truckload; anything outside is some other number. */
export const RATE_RANGE = { min: 100, max: 50_000 } as const;
/** Plausible per-mile prices in USD. */
export const PER_MILE_RANGE = { min: 0.5, max: 20 } as const;

export interface Candidate {
  kind: 'per_mile' | 'amount';
  value: number;
  start: number;
  end: number;
  /** A currency sign, "k", "usd", "all in", "+ fuel" or an asking word ("need", "rate", "do") beside it. */
  cued: boolean;
  /** The number is the broker's price or one the carrier turns down ("you posted 2000", "can't do 2000"). */
  reference: boolean;
  plusFuel: boolean;
  /** The price for quick payment, a discount off the carrier's price on standard terms. */
  quickPay: boolean;
}

/** "$2.50/mile", "2.75 a mile", "3.10 per mile", "2.6 rpm", "$2.40 per loaded mile", "3 dollars a mile", "2.70 la milla". */
const PER_MILE =
  /(?<![\w.,])\$?\s*(\d{1,2}(?:\.\d{1,3})?)\s*(?:dollars?\s+|bucks\s+|usd\s+|d[oó]lares\s+)?(?:\/\s*(?:loaded\s+)?(?:mile|mi)\b|(?:a|per|each)\s+(?:loaded\s+)?(?:mile|mi)\b|rpm\b|(?:la|por|x|cada)\s+milla\b)/g;
/** A message that talks in miles: there a bare "2.40" is a price per mile. */
const MILES_TALK = /\b(?:per mile|a mile|\/mi|rpm|la milla|por milla|the mile)\b/;

/** "$2,350", "2350", "2.4k", "$1.9k", "2 grand", "$2400.00". */
const AMOUNT = /(?<![\w.,$])(\$\s*)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s*(k|grand)(?![a-z]))?/g;

/** Words that put a price right after them: "rate 2100", "we'd need 2500", "how about 1900", "do it for". */
const ASKING_BEFORE =
  /\b(?:rate|rates|need|needs|do|about|for|offer|counter|price|pay|asking|ask|quote|bid|minimum|min|make it|go|least|want|charge|cost|is|usd|linehaul|line haul|lh|lowest|best)\b[\s:]*(?:(?:is|it|be|would|of|us|me|you|around|like|at|only|just|a)\s+){0,2}$/;
/** Qualifiers after a price: "2500 flat", "2350 all in", "2,350 usd", "2,350 + fuel", "2350$". */
const PRICE_AFTER =
  /^\s*(?:\$|usd|dollars|bucks|all[\s-]?in|all inclusive|flat|firm|total|linehaul|line haul|lh\b|\+|plus\b)/;
const PLUS_FUEL_AFTER =
  /^\s*(?:usd|dollars|bucks)?\s*(?:\+|plus|and|&)\s*(?:fuel|fsc|f\.s\.c\.?)|^\s*(?:usd|dollars)?\s*(?:with|w\/)\s*fuel surcharge/;
/** The broker's figure, or one the carrier refuses: not their asking price. */
const REFERENCE_BEFORE =
  /\b(?:posted|post|posting|listed|offered|offering|offer(?:ing)? us|your|you're|you are|you have|you got|can't do|cannot do|can not do|won't do|not for|not at|instead of|(?<!less |lower |more )than|was|from)\b[\s:]*(?:(?:at|it|for|rate|offer|price|is|of|the|a|only|just)\s+){0,3}$|\bthe\s*$/;
const REFERENCE_AFTER =
  /^\s*(?:is\s+|was\s+|'s\s+)?(?:too\s+low|(?:too\s+)?cheap\b|low\b|won't\s+work|doesn't\s+work|does not work|not enough|no good|isn't enough|is not enough|you posted|posted|is a little light|light\b)/;
/** Quick pay: a discount for paying at once, or within a few days ("if you pay in 2 days", "pronto pago"). */
const QUICK_PAY_WORDS = String.raw`quick\s*pay|qp\b|pronto pago|pago r[aá]pido|pay(?:ment)?\s+(?:in|within)\s+(?:[1-9]\s*days?|\u2022+)`;
const QUICK_PAY_AROUND = new RegExp(
  String.raw`^\s*(?:\$|usd)?\s*(?:\(?\s*)?(?:with\s+|w\/\s*|on\s+|if\s+(?:you\s+(?:can\s+)?)?)?(?:${QUICK_PAY_WORDS})`,
);
const QUICK_PAY_CLAUSE = new RegExp(String.raw`\b(?:${QUICK_PAY_WORDS})`);

function around(masked: string, start: number, end: number) {
  return { before: masked.slice(Math.max(0, start - 40), start), after: masked.slice(end, end + 40) };
}

function clauseAfter(masked: string, end: number): string {
  const rest = masked.slice(end, end + 60);
  const stop = rest.search(/[,.;!?\n]|\s\/\s|\bor\b/);
  return stop >= 0 ? rest.slice(0, stop) : rest;
}

function tagged(masked: string, start: number, end: number) {
  const { before, after } = around(masked, start, end);
  const clause = clauseAfter(masked, end);
  return {
    reference: REFERENCE_BEFORE.test(before) || REFERENCE_AFTER.test(after),
    quickPay: QUICK_PAY_AROUND.test(after) || QUICK_PAY_CLAUSE.test(clause),
  };
}

export function findPerMileRates(masked: string): Candidate[] {
  const found: Candidate[] = [];
  const matches = [...masked.matchAll(PER_MILE)];
  if (matches.length === 0 && MILES_TALK.test(masked))
    matches.push(...masked.matchAll(/(?<![\w.,])\$?(\d\.\d{2})(?![\w.,%])/g));
  for (const match of matches) {
    const value = Number(match[1]);
    if (value < PER_MILE_RANGE.min || value > PER_MILE_RANGE.max) continue;
    const start = match.index;
    const end = start + match[0].length;
    const after = masked.slice(end, end + 40);
    found.push({
      kind: 'per_mile',
      value,
      start,
      end,
      cued: true,
      plusFuel: PLUS_FUEL_AFTER.test(after),
      ...tagged(masked, start, end),
    });
  }
  return found;
}

export function findAmounts(masked: string): Candidate[] {
  const found: Candidate[] = [];
  for (const match of masked.matchAll(AMOUNT)) {
    const [text, dollar, whole, fraction, suffix] = match;
    const start = match.index;
    const end = start + text.length;
    const { before, after } = around(masked, start, end);
    // "2.4" with no "k" is not a load price; it would only be one per mile, handled above.
    const value =
      Number(`${defined(whole, 'whole').replace(/,/g, '')}${fraction ?? ''}`) * (suffix ? 1000 : 1);
    if (value < RATE_RANGE.min || value > RATE_RANGE.max) continue;

    const cued =
      Boolean(dollar) ||
      Boolean(suffix) ||
      defined(whole, 'whole').includes(',') ||
      ASKING_BEFORE.test(before) ||
      PRICE_AFTER.test(after);
    // A bare five-digit number is far more often a ZIP code than a price: prices that high are
    // written "$12,500" or "12.5k", or come after an asking word.
    if (!cued && /^\d{5,}$/.test(defined(whole, 'whole'))) continue;

    found.push({
      kind: 'amount',
      value: Math.round(value * 100) / 100,
      start,
      end,
      cued,
      plusFuel: PLUS_FUEL_AFTER.test(after),
      ...tagged(masked, start, end),
    });
  }
  return found;
}

/** Both kinds of price in the masked text, the per-mile figures blanked before amounts are read. */
export function priceCandidates(masked: string): Candidate[] {
  const perMile = findPerMileRates(masked);
  return [...perMile, ...findAmounts(maskSpans(masked, perMile))];
}
