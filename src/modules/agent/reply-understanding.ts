/**
 * Reads what a carrier writes back about a load offer (e-mail, WhatsApp or a transcribed call) and
 * pulls out the three things the outreach flow acts on: the price they ask, whether they have a
 * truck, and whether they want us to stop contacting them.
 *
 * Deterministic and offline on purpose: it runs on every inbound message, its answers must be
 * reproducible in tests and audits, and a chat model can still be layered on top for the hard cases.
 *
 * The pipeline, in order:
 *   1. normalize              lower case, plain quotes and dashes, single spaces
 *   2. spelledNumbersToDigits "twenty three hundred" -> "2300" (only runs with hundred/thousand/grand)
 *   3. maskNonRates           blank out numbers that are plainly something else (phones, loads, MC,
 *                             dates, times, weights, lengths, temperatures, counts, percentages, ...)
 *   4. findPerMileRates       "$2.50/mile", "2.75 a mile", "2.6 rpm"
 *   5. findAmounts            "$2,350", "2.4k", "2500 flat", "2,350 + fuel", bare "2400"
 *   6. pickAskingPrice        skip the broker's own number ("you posted 2000"), prefer cued amounts,
 *                             then the first one stated
 *   7. readAvailability / asksToStopContact on the normalized text
 *
 * Size: one pipeline whose steps are mostly tables of patterns; split up, its rules would be read apart.
 */

export interface ReplyUnderstanding {
  /** The carrier's price for the whole load in USD, or null when none is stated. */
  rate: number | null;
  /** How the rate was stated: all in, plus fuel surcharge on top, or per mile (converted with the load distance). */
  rate_basis: 'all_in' | 'plus_fuel' | 'per_mile' | null;
  /** A per-mile figure when one was given (e.g. 2.5), else null. */
  rate_per_mile: number | null;
  /** true: has a truck / can cover; false: cannot (no trucks, booked, pass); null: not said. */
  available: boolean | null;
  /** The carrier asks not to be contacted again (stop, unsubscribe, remove me, do not call, ...). */
  stop_contact: boolean;
}

/** Plausible prices for a whole truckload; anything outside is some other number. */
export const RATE_RANGE = { min: 100, max: 50_000 } as const;
/** Plausible per-mile prices in USD. */
export const PER_MILE_RANGE = { min: 0.5, max: 20 } as const;

export function understandReply(text: string, context?: { distance?: number | null }): ReplyUnderstanding {
  const normalized = spelledNumbersToDigits(normalize(text));
  const masked = maskNonRates(normalized);

  const perMile = findPerMileRates(masked);
  // Blank the per-mile figures so the amount scan does not see "2.50" a second time.
  const amounts = findAmounts(maskSpans(masked, perMile));
  const price = pickAskingPrice([...perMile, ...amounts]);

  const result: ReplyUnderstanding = {
    rate: null,
    rate_basis: null,
    rate_per_mile: null,
    available: readAvailability(normalized),
    stop_contact: asksToStopContact(normalized),
  };

  if (price) {
    if (price.kind === 'per_mile') {
      const distance = context?.distance;
      result.rate_per_mile = price.value;
      result.rate = distance != null && distance > 0 ? Math.round(price.value * distance) : null;
      result.rate_basis = 'per_mile';
    } else {
      result.rate = price.value;
      result.rate_basis = price.plusFuel ? 'plus_fuel' : 'all_in';
    }
    // Quoting a price means they can haul it, unless they also said they cannot.
    if (result.available === null) result.available = true;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// 1. Normalize

/** Lower case and plain ASCII punctuation so the patterns below need only one spelling. */
function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014\u2212]/g, '-')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// 2. Spelled-out numbers

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const MULTIPLIERS: Record<string, number> = { hundred: 100, thousand: 1000, grand: 1000 };

/** A run of number words (or digits followed by number words, as in "2 grand"), hyphens allowed. */
const SPELLED_RUN =
  /\b(?:\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|grand)(?:(?:[\s-]+|\s+and\s+)(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|grand)\b)+/g;

/**
 * Rewrites "twenty three hundred", "two thousand five hundred", "two grand" and "2 grand" as digits.
 * Only runs holding hundred/thousand/grand are touched: "two trucks" or "one more stop" stay words,
 * since small numbers are never a load price and rewriting them would only add noise.
 */
function spelledNumbersToDigits(text: string): string {
  return text.replace(SPELLED_RUN, (run) => {
    const words = run.split(/[\s-]+/).filter((word) => word !== 'and');
    if (!words.some((word) => word in MULTIPLIERS)) return run;
    let total = 0;
    let current = 0;
    for (const word of words) {
      if (/^\d+$/.test(word)) current += Number(word);
      else if (word in UNITS) current += UNITS[word]!;
      else if (word === 'hundred') current = (current || 1) * 100;
      else {
        total += (current || 1) * MULTIPLIERS[word]!;
        current = 0;
      }
    }
    return String(total + current);
  });
}

// ---------------------------------------------------------------------------------------------
// 3. Numbers that are not rates

/**
 * Each entry blanks out numbers that a carrier's message commonly carries besides a price. The order
 * matters where patterns overlap: identifiers and phones go first because their digits would
 * otherwise look like dates or times.
 */
const NOT_A_RATE: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  // "MC 123456", "DOT# 2345678", "usdot: 1234567": carrier registration numbers.
  { name: 'authority', pattern: /\b(?:mc|dot|usdot|us dot|mx|ff)\s*(?:number|num|no\.?|#)?\s*[:#-]?\s*\d+/g },
  // "load 123456", "re: load #48213", "ref# 5521", "po 7788", "truck # 512": references to a thing.
  {
    name: 'identifier',
    pattern:
      /\b(?:loads?|ld|order|ref|reference|po|pro|bol|b\/l|shipment|trip|conf|confirmation|unit|tracking)\s*(?:number|num|no\.?|#)?\s*[:#-]?\s*\d+|\b(?:truck|trailer|driver)\s*(?:number|num|no\.?|#)\s*[:#-]?\s*\d+|#\s*\d+/g,
  },
  // "(312) 555-0100", "555-123-4567", "+1 312 555 0100", "555-0100", "3125550100", "ext 1234".
  {
    name: 'phone',
    pattern:
      /(?:\+?1[\s.-]?)?\(\d{3}\)\s*\d{3}[\s.-]?\d{4}\b|(?:\+?1[\s.-]?)?\b\d{3}[\s.-]\d{3}[\s.-]\d{4}\b|\b\d{3}-\d{4}\b|\b\d{10,11}\b|\b(?:ext|extension|x)\.?\s*\d+/g,
  },
  // "12/15", "12/15/2024", "12-15-24", "dec 15", "december 15th, 2024", "on the 3rd".
  {
    name: 'date',
    pattern:
      /\b\d{1,2}\/\d{1,2}(?:\/\d{2,4})?\b|\b\d{1,2}-\d{1,2}-\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b|\b\d{1,2}(?:st|nd|rd|th)\b/g,
  },
  // "in 2024", "since 2019", "2022 freightliner": model years and calendar years.
  {
    name: 'year',
    pattern:
      /\b(?:in|since|year|model|of|from)\s+(?:19|20)\d{2}\b|\b(?:19|20)\d{2}(?=\s+(?:model|freightliner|kenworth|peterbilt|pete|volvo|international|mack|western star|utility|wabash|great dane|hyundai|trailer|truck|tractor|reefer|van|flatbed))/g,
  },
  // "at 14:30", "8am", "5 pm", "0800", "pick up 1400", "deliver by 0600", "1400 hrs": clock times.
  // A bare "1900" stays a price: only a leading zero, an hours suffix or a pickup/delivery word makes
  // a four-digit number a military time.
  {
    name: 'time',
    pattern:
      /\b\d{1,2}:\d{2}(?:\s*[ap]\.?m\.?)?|\b\d{1,2}\s*[ap]\.?m\b\.?|\b0\d{3}\b|\b(?:[01]\d|2[0-3])[0-5]\d\s*(?:hrs|hours|h)\b|\b(?:pick\s?up|pu|deliver(?:y|ed)?|del|drop|appt|appointment|eta|arrive|arrival|load(?:ing)?|unload(?:ing)?|before|after|until|till|by)\s+(?:at\s+|by\s+|around\s+)?(?:[01]\d|2[0-3])[0-5]\d\b/g,
  },
  // "42,000 lbs", "44k lbs", "42000#", "20 tons", "18000 kg": cargo weight.
  { name: 'weight', pattern: /\b\d[\d,.]*\s*k?\s*(?:lbs?\b|pounds?\b|#|tons?\b|kgs?\b)/g },
  // "53' van", "48 ft", "53 foot", "26ft box truck": equipment length.
  { name: 'length', pattern: /\b\d{2}\s*(?:'|ft\b|foot\b|feet\b|footer\b)/g },
  // "-10f", "34 degrees", "0 deg", "-10°": reefer temperature.
  { name: 'temperature', pattern: /-?\b\d{1,3}\s*(?:°\s*[fc]?|degrees?\b|deg\b|f\b|c\b)/g },
  // "10%", "5 percent": fuel surcharge or quick-pay percentages.
  { name: 'percentage', pattern: /\b\d+(?:\.\d+)?\s*(?:%|percent\b|pct\b)/g },
  // "$150 detention", "75 lumper", "$50/hr": accessorial charges beside the line haul.
  {
    name: 'accessorial',
    pattern:
      /\$?\s*\b\d[\d,]*(?:\.\d+)?\s*(?:for\s+(?:the\s+)?)?(?:detention|lumper|tarps?|tarping|layover|tonu|stop[\s-]?off|extra stop|driver assist)\b|\$?\s*\b\d[\d,]*(?:\.\d+)?\s*(?:\/|per|an?)\s*(?:hr|hour)\b/g,
  },
  // "we have 2 trucks", "26 pallets", "850 miles", "3 stops", "2 days": counts and distances.
  {
    name: 'count',
    pattern:
      /\b\d[\d,]*(?:\.\d+)?\s*(?:trucks?|units?|drivers?|teams?|loads?|stops?|drops?|picks?|pallets?|skids?|pieces?|pcs|cases?|boxes|days?|nights?|hours?|hrs?|weeks?|mins?|minutes?|miles?|mi|axles?|trailers?|vans?|reefers?|flatbeds?|years?)\b/g,
  },
  // "60601", "dallas, tx 75201", "zip 30301": a five-digit number after a place word or a state
  // code. Other bare five-digit numbers are rejected later unless a price cue stands beside them.
  {
    name: 'zip',
    pattern:
      /\b(?:zip|in|at|from|to|near|around|al|ak|az|ar|ca|co|ct|de|fl|ga|hi|id|il|ia|ks|ky|la|me|md|ma|mi|mn|ms|mo|mt|ne|nv|nh|nj|nm|ny|nc|nd|oh|ok|or|pa|ri|sc|sd|tn|tx|ut|vt|va|wa|wv|wi|wy)\s*,?\s*:?\s*\d{5}(?:-\d{4})?\b|\b\d{5}-\d{4}\b/g,
  },
];

/** A character no pattern matches, so a blanked number can neither match nor join its neighbours. */
const BLANK = '\u2022';

function maskNonRates(text: string): string {
  let masked = text;
  for (const { pattern } of NOT_A_RATE) {
    masked = masked.replace(pattern, (match) => BLANK.repeat(match.length));
  }
  return masked;
}

function maskSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  let masked = text;
  for (const { start, end } of spans) {
    masked = masked.slice(0, start) + BLANK.repeat(end - start) + masked.slice(end);
  }
  return masked;
}

// ---------------------------------------------------------------------------------------------
// 4.-5. Price candidates

interface Candidate {
  kind: 'per_mile' | 'amount';
  value: number;
  start: number;
  end: number;
  /** A currency sign, "k", "usd", "all in", "+ fuel" or an asking word ("need", "rate", "do") beside it. */
  cued: boolean;
  /** The number is the broker's price or one the carrier turns down ("you posted 2000", "can't do 2000"). */
  reference: boolean;
  plusFuel: boolean;
}

/** "$2.50/mile", "2.75 a mile", "3.10 per mile", "2.6 rpm", "$2.40 per loaded mile", "3 dollars a mile". */
const PER_MILE =
  /(?<![\w.,])\$?\s*(\d{1,2}(?:\.\d{1,3})?)\s*(?:dollars?\s+|bucks\s+|usd\s+)?(?:\/\s*(?:loaded\s+)?(?:mile|mi)\b|(?:a|per|each)\s+(?:loaded\s+)?(?:mile|mi)\b|rpm\b)/g;

/** "$2,350", "2350", "2.4k", "$1.9k", "2 grand", "$2400.00". */
const AMOUNT = /(?<![\w.,$])(\$\s*)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s*(k|grand)(?![a-z]))?/g;

/** Words that put a price right after them: "rate 2100", "we'd need 2500", "how about 1900", "do it for". */
const ASKING_BEFORE =
  /\b(?:rate|rates|need|needs|do|about|for|offer|counter|price|pay|asking|ask|quote|bid|minimum|min|make it|go|least|want|charge|cost|is)\b[\s:]*(?:(?:is|it|be|would|of|us|me|you|around|like|at|only|just|a)\s+){0,2}$/;
/** Qualifiers after a price: "2500 flat", "2350 all in", "2,350 usd", "2,350 + fuel". */
const PRICE_AFTER = /^\s*(?:usd|dollars|bucks|all[\s-]?in|all inclusive|flat|firm|total|\+|plus\b)/;
const PLUS_FUEL_AFTER =
  /^\s*(?:usd|dollars|bucks)?\s*(?:\+|plus|and|&)\s*(?:fuel|fsc|f\.s\.c\.?)|^\s*(?:usd|dollars)?\s*(?:with|w\/)\s*fuel surcharge/;
/** The broker's figure, or one the carrier refuses: not their asking price. */
const REFERENCE_BEFORE =
  /\b(?:posted|post|posting|listed|offered|offering|offer(?:ing)? us|your|you're|you are|you have|you got|can't do|cannot do|can not do|won't do|not for|instead of|than|was|from)\b[\s:]*(?:(?:at|it|for|rate|offer|price|is|of|the|a|only|just)\s+){0,3}$/;
const REFERENCE_AFTER =
  /^\s*(?:is\s+|was\s+)?(?:too\s+low|too\s+cheap|low\b|won't\s+work|doesn't\s+work|does not work|not enough|no good|isn't enough|is not enough|you posted|posted)/;

function findPerMileRates(masked: string): Candidate[] {
  const found: Candidate[] = [];
  for (const match of masked.matchAll(PER_MILE)) {
    const value = Number(match[1]);
    if (value < PER_MILE_RANGE.min || value > PER_MILE_RANGE.max) continue;
    const start = match.index;
    const end = start + match[0].length;
    found.push({
      kind: 'per_mile',
      value,
      start,
      end,
      cued: true,
      reference: isReference(masked, start, end),
      plusFuel: false,
    });
  }
  return found;
}

function findAmounts(masked: string): Candidate[] {
  const found: Candidate[] = [];
  for (const match of masked.matchAll(AMOUNT)) {
    const [text, dollar, whole, fraction, suffix] = match;
    const start = match.index;
    const end = start + text.length;
    const before = masked.slice(Math.max(0, start - 40), start);
    const after = masked.slice(end, end + 40);
    // "2.4" with no "k" is not a load price; it would only be one per mile, handled above.
    const value = Number(`${whole!.replace(/,/g, '')}${fraction ?? ''}`) * (suffix ? 1000 : 1);
    if (value < RATE_RANGE.min || value > RATE_RANGE.max) continue;

    const cued =
      Boolean(dollar) ||
      Boolean(suffix) ||
      whole!.includes(',') ||
      ASKING_BEFORE.test(before) ||
      PRICE_AFTER.test(after);
    // A bare five-digit number is far more often a ZIP code than a price: prices that high are
    // written "$12,500" or "12.5k", or come after an asking word.
    if (!cued && /^\d{5,}$/.test(whole!)) continue;

    found.push({
      kind: 'amount',
      value: Math.round(value * 100) / 100,
      start,
      end,
      cued,
      reference: isReference(masked, start, end),
      plusFuel: PLUS_FUEL_AFTER.test(after),
    });
  }
  return found;
}

function isReference(masked: string, start: number, end: number): boolean {
  const before = masked.slice(Math.max(0, start - 40), start);
  const after = masked.slice(end, end + 40);
  return REFERENCE_BEFORE.test(before) || REFERENCE_AFTER.test(after);
}

// ---------------------------------------------------------------------------------------------
// 6. Choosing the asking price

/**
 * The carrier's own price, in this order of preference:
 *   - never the broker's figure or one they refuse ("you posted 2000 but we need 2400" -> 2400);
 *     when only such a figure is present the answer is null, as the carrier named no new price;
 *   - a cued number ("$", "k", "all in", "need ...") before a bare one, so "truck 512 can do $2400"
 *     reads 2400;
 *   - otherwise the first stated: "2400 or 2300 if you can load today" -> 2400, the opening ask,
 *     with the lower figure a conditional discount the broker can still negotiate towards.
 */
function pickAskingPrice(candidates: Candidate[]): Candidate | null {
  const own = candidates.filter((candidate) => !candidate.reference).sort((a, b) => a.start - b.start);
  return own.find((candidate) => candidate.cued) ?? own[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// 7. Availability and stop requests

/** Phrases saying they cannot take the load. Matched first, and blanked, so "no truck available" does not also read as "truck available". */
const UNAVAILABLE: readonly RegExp[] = [
  /\bno\s+(?:\w+\s+)?(?:trucks?|capacity|equipment|drivers?|units?|power)\b(?:\s+available)?/g,
  /\b(?:don't|do not|dont|doesn't|does not)\s+have\s+(?:a|any|an|one)?\s*(?:\w+\s+)?(?:trucks?|drivers?|equipment|capacity)\b/g,
  /\b(?:nothing|not|none)\s+(?:\w+\s+)?available\b/g,
  /\b(?:we're|we are|were|i'm|i am|all|fully|already|totally|completely)\s+(?:all\s+|fully\s+|already\s+)?(?:booked|full|covered)\b/g,
  // "booked for the week", but not "we booked it" / "get it booked".
  /(?<!\b(?:get|got|have|had|we|i|we've|i've|it)\s+)\bbooked\b(?!\s+(?:it|this|that|the\s+load))/g,
  /\b(?:can't|cannot|can not|cant|won't|unable to|not able to)\s+(?:do|cover|take|haul|run|make|handle|help)\b(?!\s+(?:it\s+)?(?:\$?\d|for\b|at\b))(?:\s+(?:it|that|this|one|the load|this load|that load|this one|that one|them))?/g,
  /\bnot\s+interested\b/g,
  /\bno\s+(?:thanks|thank\s+you|thx|ty|deal)\b/g,
  /\b(?:i'll|we'll|will|gonna|going to|i|we|have to|got to|gotta|must)?\s*pass\b(?!\s+through)/g,
  /^(?:no|nope|nah)[.!]*$/g,
];

/** Phrases saying they can take it. */
const AVAILABLE: readonly RegExp[] = [
  /\b(?:have|got|has)\s+(?:a|an|one|\d+|some|the)?\s*(?:\w+\s+)?trucks?\b/g,
  /\btrucks?\s+(?:is\s+|are\s+)?(?:available|ready|open|free)\b/g,
  /\b(?:can|could|will|we'll|i'll)\s+(?:cover|do|take|haul|run|move|handle)\b/g,
  /\b(?:book it|let's do it|lets do it|sounds good|deal|count (?:me|us) in)\b/g,
  /\b(?:yes|yeah|yep|yup|sure|absolutely|interested)\b/g,
  /\b(?:empty|available|ready)\b/g,
];

/**
 * true / false / null from the availability phrases. When both kinds appear the later one wins,
 * because carriers correct themselves in the order they write ("no truck today, but can cover
 * tomorrow"; "yes, but not interested at that rate").
 */
function readAvailability(text: string): boolean | null {
  let lastNegative = -1;
  let remaining = text;
  for (const pattern of UNAVAILABLE) {
    for (const match of text.matchAll(pattern)) {
      if (!match[0].trim()) continue;
      lastNegative = Math.max(lastNegative, match.index);
      remaining = maskSpans(remaining, [{ start: match.index, end: match.index + match[0].length }]);
    }
  }
  let lastPositive = -1;
  for (const pattern of AVAILABLE) {
    for (const match of remaining.matchAll(pattern)) lastPositive = Math.max(lastPositive, match.index);
  }
  if (lastNegative < 0 && lastPositive < 0) return null;
  return lastPositive > lastNegative;
}

/** Explicit opt-out phrases; none of them can be part of routing talk about stops. */
const STOP_PHRASES: readonly RegExp[] = [
  /\bun-?subscribe\b/,
  /\bopt(?:[\s-])?out\b/,
  /\b(?:remove|delete|take)\s+(?:me|us|my\s+\w+|our\s+\w+|this\s+\w+)\s+(?:off|from|out of)\s+(?:\w+\s+){0,2}(?:list|lists|emails?|texts?|mailing|distribution|contacts?|database|system)\b/,
  // "do not call before 8am" only sets calling hours, so a time word right after does not count.
  /\b(?:do not|don't|dont|never)\s+(?:call|contact|text|email|e-mail|message)\b(?!\s+(?:me\s+|us\s+)?(?:before|after|until|till|between|during|on weekends)\b)/,
  /\b(?:stop|quit|quit it with)\s+(?:calling|contacting|texting|emailing|e-mailing|messaging|sending|spamming|bothering|blowing up)\b/,
  /\bno\s+more\s+(?:e-?mails?|texts?|messages?|calls?|spam)\b/,
  /\blose\s+(?:my|our)\s+number\b/,
  // "please remove me." as a whole request, without naming the list.
  /\bremove\s+(?:me|us|my number|our number)\s*(?:please\s*)?(?:[.!]|$)/,
];

/**
 * "stop" counts only as a whole sentence ("STOP", "Stop.", "please stop"), so "truck stop",
 * "stop #2", "2 stops", "the second stop" and "non-stop" never opt a carrier out.
 */
const STOP_SENTENCE = /^(?:please\s+)?stop(?:\s+(?:please|now|it|all|all messages|this))?(?:\s+please)?$/;

function asksToStopContact(text: string): boolean {
  if (STOP_PHRASES.some((pattern) => pattern.test(text))) return true;
  return (
    text
      .split(/[.!?\n;,]+/)
      // Trim only surrounding punctuation and emoji: "stop #2" must keep its "#2".
      .map((sentence) => sentence.replace(/^[^a-z0-9#]+|[^a-z0-9#]+$/g, '').replace(/\s+/g, ' '))
      .some((sentence) => STOP_SENTENCE.test(sentence))
  );
}
