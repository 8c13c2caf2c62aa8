/**
 * A carrier that turns down one load or one day of our message and takes another: "4821 no",
 * "can't do wed, thu 2500", "la del martes no puedo", "not the Jersey one", "only the charlotte
 * one". From the text alone the reader cannot tell which load it is read for, so a named load or
 * day turned down makes the reply a no, with the no's reason, and any price in it is for the
 * other load or day. (readReply hands over only this load's words when load numbers tell them apart.)
 */
import type { UnavailableReason } from './reply-words-unavailable.js';
import { END, WORD } from './reply-words-unavailable.js';

/** A pickup day: a weekday, a day of the month, a date. */
const DAY =
  '(?:(?:el|the|on|para el)\\s+)?(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|\\d{1,2}(?:st|nd|rd|th)|\\d{1,2}\\/\\d{1,2}|el\\s+\\d{1,2}(?![\\d/]))(?![a-z\\u00e0-\\u00ff])';
/** A load named by its number: "4821", "00018", "ld-2026-00017", "412". */
const LOAD =
  '(?<![$\\d.,])(?:[a-z]{2,4}-)?(?:\\d+-)*\\d{2,6}(?![\\d,.]*\\s*(?:k|mil|dlls|usd|all|al|flat)\\b)';
/** A clause ends here. */
const CLAUSE_END = '(?=\\s*(?:[.!,;\\n]|$))';
/** Words that may stand before a closing "no" without naming a load: "lol no", "sorry no". */
const NOT_A_LOAD =
  'lol|lmao|sorry|thanks|thx|still|said|answer|is|ok|okay|yes|yeah|yep|def|hell|heck|nah|nope|bro|man|sir|boss|jefe|pues|bueno|gracias|sadly|unfortunately|prob|probably|also|then|and|but|so|just|que|pero|y|es|oh|uh|um|honestly|rn|now|today|nada';

const CANT = "(?:can't|cant|cannot|can not|won't|unable to|no puedo|no podemos)";

/** `only`: the phrase names what is taken, so every other load or day is turned down. */
const TURNED_DOWN: ReadonlyArray<{ reason: UnavailableReason; pattern: RegExp; only?: true }> = [
  // The day: "can't tuesday", "not wed", "wednesday doesn't", "el martes no puedo", "tues i'm stuck in fresno".
  {
    reason: 'timing',
    pattern: new RegExp(
      [
        `${CANT}\\s+(?:do\\s+|make\\s+|run\\s+|cover\\s+|load\\s+)?(?:it\\s+)?${DAY}`,
        `\\bnot\\s+(?:on\\s+)?${DAY}`,
        `\\b${DAY}\\s+(?:(?:i|we)\\s+)?(?:doesn't|does not|won't|is no good|no good|isn't good|not good|is out|can't|cant|cannot|won't|no\\s+puedo|no\\s+podemos|no\\s+alcanzo|no\\s+alcanzamos|no\\s+llego|no\\s+llegamos|no(?!\\s+(?:tengo|tenemos|hay|trucks?|drivers?|units?|capacity|problem|prob|worries|issue)))${END}`,
        `\\b${DAY}\\s+(?:i'm|im|we're|were|the truck is|truck is|my truck is|he's|hes|he is|driver is|my driver is)\\s+(?:still\\s+|stuck\\s+)+(?:in|at)\\b`,
        `\\binstead\\s+of\\s+${DAY}|\\b${DAY}\\s+instead\\b`,
        '\\bif\\s+(?:the\\s+)?(?:shipper|customer|receiver|consignee|they)\\s+can\\s+(?:push|move|slide|bump|shift|change)\\b',
        '(?<!deliver\\w*\\s+(?:it\\s+)?)\\bthe\\s+next\\s+day\\b|\\ba\\s+day\\s+later\\b',
      ].join('|'),
      'g',
    ),
  },
  // No truck that day or for that load: "nothing on the 24th", "el martes no tengo", "truck for 4830 only".
  {
    reason: 'no_capacity',
    pattern: new RegExp(
      [
        `\\bnothing\\s+(?:open\\s+|available\\s+)?(?:on|for)\\s+${DAY}`,
        `\\b${DAY}\\s+no\\s+(?:tengo|tenemos|hay|trucks?|drivers?|units?|capacity)${END}`,
        `\\bno\\s+(?:tengo|tenemos|hay)\\s+(?:${WORD}\\s+)?para\\s+${DAY}`,
      ].join('|'),
      'g',
    ),
  },
  // The load: "not the jersey one", "la de jersey no", "las otras no", "houston doesn't work".
  {
    reason: 'declined',
    pattern: new RegExp(
      [
        `\\bnot\\s+the\\s+[a-z]+\\s+one\\b|\\bthe\\s+[a-z]+\\s+one\\s+(?:no|nope|pass|(?:we|i)\\s+can't)${END}`,
        `\\bla\\s+del?\\s+${WORD}(?:\\s+del?\\s+${WORD})?\\s+no${END}`,
        `\\b(?:las|los)\\s+otr[ao]s\\s+no${END}|\\b(?:the\\s+)?others?\\s+(?:no|not)${END}|\\bnot\\s+the\\s+others?\\b`,
        `\\b(?!(?:${NOT_A_LOAD})\\b)[a-z]{4,}\\s+no[.!]*${CLAUSE_END}`,
        "\\b(?!(?:that|it|this|which|rate|price|pay|money|number|what|one|nothing)\\b)[a-z]+\\s+(?:doesn't|does not|won't)\\s+work\\b",
        "\\bthis\\s+one\\s+(?:we|i)\\s+(?:can't|cannot|cant|won't)\\b",
      ].join('|'),
      'g',
    ),
  },
];

/** Only another day or load: "solo tenemos camión para el jueves", "a truck for 4830 only". */
const ONLY: ReadonlyArray<{ reason: UnavailableReason; pattern: RegExp; only: true }> = [
  {
    reason: 'timing',
    pattern: new RegExp(
      `\\b(?:solo|s[oó]lo|nom[aá]s)\\s+(?:tenemos|tengo)\\s+(?:${WORD}\\s+)?para\\s+${DAY}|\\bonly\\s+(?:have\\s+)?(?:a\\s+|one\\s+)?truck\\s+(?:for|on)\\s+${DAY}`,
      'g',
    ),
    only: true,
  },
  {
    reason: 'no_capacity',
    pattern: new RegExp(
      `\\btruck\\s+for\\s+(?:the\\s+)?${LOAD}\\s+only\\b|\\bonly\\s+have\\s+(?:a\\s+)?truck\\s+for\\s+(?:the\\s+)?${LOAD}`,
      'g',
    ),
    only: true,
  },
  { reason: 'declined', pattern: /\bonly\s+(?:the\s+)?[a-z]+\s+one\b/g, only: true },
];

/** A load turned down by its number: "4821 no", "17 cant", "00017 - pass", "can't do 4821". */
const LOAD_REFUSED = new RegExp(
  [
    `(${LOAD})[ \\t]*(?:-[ \\t]*)?(?:no|nope|nah|pass|(?:we|i)?[ \\t]*(?:can't|cant|cannot))(?!\\s+(?:way|problem|prob|worries|issue))${END}`,
    `${CANT}\\s+(?:do\\s+|take\\s+|cover\\s+|run\\s+)?(?:the\\s+)?(${LOAD})(?![\\d,.]*\\s*(?:for|at|por|en)\\b)`,
  ].join('|'),
  'g',
);

/** The digits that tell a load apart: no prefix, no year, no leading zeros. */
const serial = (ref: string) => ref.replace(/^[a-z]{2,4}-(?:\d{4}-)?/, '').replace(/^0+/, '');

/**
 * A bare number is a load only beside a sibling: another number of as many digits, a few apart
 * ("4821" and "4830"); otherwise it may be our price ("2850 no, 3k firm"). Numbers with a prefix,
 * leading zeros or five digits are loads. The load a reply is read for is the first our message
 * offered, which is the lowest number: a refusal of a higher one, next to a lower sibling, is
 * about another load.
 */
function refusesThisLoad(ref: string, numbers: readonly string[]): boolean {
  const own = serial(ref);
  const siblings = numbers
    .map(serial)
    .filter((n) => n !== own && n.length === own.length && Math.abs(Number(n) - Number(own)) < 50);
  const namesALoad = ref !== own || own.length >= 5 || siblings.length > 0;
  return namesALoad && !siblings.some((n) => Number(n) < Number(own));
}

/**
 * Which load a stretch of the reply names, for a caller that knows the conversation (its loads'
 * numbers and places): this one, another one, or none it can tell.
 */
export type Referent = (start: number, end: number) => 'this' | 'other' | null;

const CLAUSE_BOUND = /[.,;!?\n]|\b(?:but|pero|though|aunque)\b/g;

/** The clause around `index`: between punctuation, line breaks and "but". */
export function clauseAt(text: string, index: number): { start: number; end: number } {
  let start = 0;
  let end = text.length;
  for (const bound of text.matchAll(CLAUSE_BOUND)) {
    if (bound.index < index) start = bound.index + bound[0].length;
    else if (bound.index > index) {
      end = bound.index;
      break;
    }
  }
  return { start, end };
}

/**
 * Every load or day the reply turns down, with where and why; a refusal inside an "if" clause is
 * none. With a referent, a refusal naming another load is no refusal of this one, and one naming
 * this load is, whatever its number.
 */
export function turnedDown(
  text: string,
  referent?: Referent,
): Array<{ reason: UnavailableReason; index: number }> {
  const found: Array<{ reason: UnavailableReason; index: number }> = [];
  const conditional = (index: number) => /\b(?:if|si)\b[^.,;!?\n]*$/.test(text.slice(0, index));
  const named = (match: RegExpMatchArray & { index: number }) =>
    referent?.(match.index, match.index + match[0].length) ?? null;
  for (const { reason, pattern, only } of [...TURNED_DOWN, ...ONLY]) {
    for (const match of text.matchAll(pattern)) {
      if (named(match) === (only ? 'this' : 'other') || (reason === 'declined' && conditional(match.index)))
        continue;
      found.push({ reason, index: match.index });
    }
  }
  const numbers = [...text.matchAll(new RegExp(LOAD, 'g'))].map((m) => m[0]);
  for (const match of text.matchAll(LOAD_REFUSED)) {
    const ref = match[1] ?? match[2] ?? '';
    const said = named(match);
    const ours = said === null ? refusesThisLoad(ref, numbers) : said === 'this';
    if (ours && !conditional(match.index)) found.push({ reason: 'declined', index: match.index });
  }
  return found;
}
