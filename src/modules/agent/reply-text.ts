import { defined } from '../../lib/defined.js';
/**
 * The first steps of reading a carrier's reply: the carrier's own words only (the quoted thread
 * and the phone's sign-off cut away), one spelling of every character, and spelled-out prices as
 * digits. The later steps (reply-masks, reply-price, reply-availability, reply-questions) read
 * the text these return.
 */

/** A character no pattern matches, so a blanked number can neither match nor join its neighbours. */
export const BLANK = '\u2022';

/** Blanks the spans out, keeping every other character where it was. */
export function maskSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  let masked = text;
  for (const { start, end } of spans) {
    masked = masked.slice(0, start) + BLANK.repeat(end - start) + masked.slice(end);
  }
  return masked;
}

/**
 * Where the quoted thread begins: "On Mon, Mar 2, 2026 at 9:14 AM X wrote:", an Outlook header
 * block, a forwarded-message marker. Everything after is our own message coming back (with our
 * posted rate in it), never the carrier's answer.
 */
const THREAD_START =
  /^\s*(?:on\b[^\n]{0,200}\bwrote:|-{2,}\s*original message\s*-{2,}|_{5,}|from:\s[^\n]*\n\s*(?:sent|date):|begin forwarded message|-{2,}\s*forwarded message\s*-{2,})/im;
/** Sign-offs the phone adds. */
const DEVICE_FOOTER = /^\s*sent from my [^\n]*$/gim;

/** The carrier's own words: the quoted thread (after its first line, and every "> " line) dropped. */
export function ownWords(text: string): string {
  const start = text.search(THREAD_START);
  const head = start >= 0 ? text.slice(0, start) : text;
  return head
    .split('\n')
    .filter((line) => !/^\s*>/.test(line))
    .join('\n')
    .replace(DEVICE_FOOTER, '');
}

/** Lower case and plain ASCII punctuation so the patterns need only one spelling. Newlines stay. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014\u2212]/g, '-')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .trim();
}

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
};
const TENS: Record<string, number> = {
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
const WORD = [...Object.keys(UNITS), ...Object.keys(TENS), ...Object.keys(MULTIPLIERS)].join('|');

/** A run of number words (or digits followed by number words, as in "2 grand"), hyphens allowed. */
const SPELLED_RUN = new RegExp(`\\b(?:\\d+|${WORD})(?:(?:[\\s-]+|\\s+and\\s+)(?:${WORD})\\b)+`, 'g');

/**
 * Rewrites "twenty three hundred", "two thousand five hundred", "2 grand" and the way prices are
 * said aloud, "twenty-two fifty" (2250), as digits. Other runs stay words: "two trucks" or
 * "twenty five minutes" are never a load price and rewriting them would only add noise.
 */
export function spelledNumbersToDigits(text: string): string {
  return text.replace(SPELLED_RUN, (run) => {
    const words = run.split(/[\s-]+/).filter((word) => word !== 'and');
    if (words.some((word) => word in MULTIPLIERS)) return String(withMultipliers(words));
    const pair = hundredsPair(words);
    return pair === null ? run : String(pair);
  });
}

function withMultipliers(words: string[]): number {
  let total = 0;
  let current = 0;
  for (const word of words) {
    if (/^\d+$/.test(word)) current += Number(word);
    else if (word in UNITS) current += defined(UNITS[word], 'UNITS[word]');
    else if (word in TENS) current += defined(TENS[word], 'TENS[word]');
    else if (word === 'hundred') current = (current || 1) * 100;
    else {
      total += (current || 1) * defined(MULTIPLIERS[word], 'MULTIPLIERS[word]');
      current = 0;
    }
  }
  return total + current;
}

/** "twenty two fifty" -> 2250, "nineteen fifty" -> 1950: two numbers from 10 to 99, said in pairs. */
function hundredsPair(words: string[]): number | null {
  const groups: number[] = [];
  for (const word of words) {
    if (/^\d+$/.test(word)) return null;
    const last = groups.length - 1;
    if (
      word in UNITS &&
      last >= 0 &&
      defined(groups[last], 'groups[last]') >= 20 &&
      defined(groups[last], 'groups[last]') % 10 === 0 &&
      defined(UNITS[word], 'UNITS[word]') < 10
    ) {
      groups[last] = defined(groups[last], 'groups[last]') + defined(UNITS[word], 'UNITS[word]');
    } else groups.push(UNITS[word] ?? defined(TENS[word], 'TENS[word]'));
  }
  if (groups.length !== 2 || groups.some((g) => g < 10)) return null;
  return defined(groups[0], 'groups[0]') * 100 + defined(groups[1], 'groups[1]');
}

/** The reply cut into sentences (with where each starts), for the rules that read one at a time. */
export function sentencesOf(text: string): Array<{ text: string; start: number; question: boolean }> {
  const out: Array<{ text: string; start: number; question: boolean }> = [];
  for (const match of text.matchAll(/(?:[^.!?\n]|\.(?=\d))+[.!?]*/g)) {
    const raw = match[0];
    if (!raw.trim()) continue;
    out.push({ text: raw, start: match.index, question: raw.includes('?') });
  }
  return out;
}
