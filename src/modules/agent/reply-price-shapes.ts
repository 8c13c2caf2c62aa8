/**
 * The shapes around price figures in a masked reply: where its sentences and clauses run, ranges
 * ("2300-2400", "23-2400", "between 19 and 2100", "entre 3,300 y 3,400"), and hundreds written
 * bare ("need 24", "make it 22 n we good", "86 ok"), read as such only beside the agent's amount.
 */
import type { Candidate } from './reply-price.js';

export interface Span {
  start: number;
  end: number;
}

export type Shaped = Candidate & { range: boolean; shorthand: boolean };

/** Sentence ends: . ! ? ; and new lines, not the point of "2.5" or "$2,305.50". */
const SENTENCE_END = /[!?;\n]+|\.(?!\d)/g;
/** Clause breaks inside a sentence: ", " (not "2,350"), " / ", "but", "pero", "otherwise", "though". */
const CLAUSE_BREAK = /,(?!\d)|\s[/|]\s|(?=\s(?:but|pero|otherwise|though|si no|if not)\b)/g;

function cut(text: string, from: number, to: number, breaks: RegExp): Span[] {
  const spans: Span[] = [];
  let start = from;
  for (const m of text.slice(from, to).matchAll(breaks)) {
    const end = from + m.index + m[0].length;
    if (text.slice(start, end).trim()) spans.push({ start, end });
    start = end;
  }
  if (text.slice(start, to).trim()) spans.push({ start, end: to });
  return spans;
}

export function clausesOf(text: string): { sentences: Span[]; clauses: Span[] } {
  const sentences = cut(text, 0, text.length, SENTENCE_END);
  const clauses = sentences.flatMap((s) => cut(text, s.start, s.end, CLAUSE_BREAK));
  return { sentences, clauses };
}

/** A figure read from shorthand ("need 24", "around 2.3"), cued by how it was said. */
const shorthand = (value: number, start: number, end: number): Shaped => ({
  kind: 'amount',
  value,
  start,
  end,
  cued: true,
  reference: false,
  plusFuel: false,
  quickPay: false,
  range: false,
  shorthand: true,
});

const HUNDREDS =
  /(?<![\w.,$\u2022-])(\d{1,2})(?![\w.,:'"%/\u2022-]|\s*(?:am|pm|hrs?|hours?|mins?|k\b|grand|mil|percent))/g;
const HUNDREDS_BEFORE =
  /(?:^|[.!?]\s*|\b(?:need|needs|do|make it|for|en|por|go|want|cobro|asking|rate|min|minimum|least|below|still|meet me at))\s*$/;
const HUNDREDS_AFTER =
  /^\s*(?:(?:n|and|&|y)\s+(?:we|it'?s|its|es|la|you)\b|ok\b|okay|👍|final|flat|firm|all in|y es suya|[.!]?\s*$)/;

/**
 * "need 24" -> 2400 when the agent's amount is about 2000: a one- or two-digit figure with a price
 * word before or after it, that times a hundred lies within half and twice the agent's amount.
 */
export function hundredsCandidates(masked: string, reference: number | null): Shaped[] {
  if (reference === null) return [];
  const found: Shaped[] = [];
  for (const m of masked.matchAll(HUNDREDS)) {
    const value = Number(m[1]) * 100;
    if (value < reference / 2 || value > reference * 2) continue;
    const before = masked.slice(Math.max(0, m.index - 20), m.index);
    const after = masked.slice(m.index + m[0].length, m.index + m[0].length + 20);
    if (!HUNDREDS_BEFORE.test(before) && !HUNDREDS_AFTER.test(after)) continue;
    found.push(shorthand(value, m.index, m.index + m[0].length));
  }
  return found;
}

const ROUGHLY =
  /\b(?:around|about|approx(?:imately)?|ballpark|roughly|like|maybe|prob(?:ably)?|como|alrededor de)\s*$/;

/**
 * "around 2.3" -> 2300: a figure with one decimal is thousands only when said as a guess beside an
 * agent's amount of that size; "can you do 2.4?" ($2.40 a mile or $2,400) stays unread.
 */
export function roughThousands(masked: string, reference: number | null): Shaped[] {
  if (reference === null) return [];
  const found: Shaped[] = [];
  for (const m of masked.matchAll(/(?<![\w.,$\u2022])(\d\.\d)(?![\w.,%/\u2022])/g)) {
    const value = Number(m[1]) * 1000;
    if (value < reference / 2 || value > reference * 2) continue;
    if (!ROUGHLY.test(masked.slice(Math.max(0, m.index - 20), m.index))) continue;
    found.push(shorthand(value, m.index, m.index + m[0].length));
  }
  return found;
}

const RANGE_BETWEEN = /^\s*(?:-|to|a|hasta)\s*\$?\s*$/;
const RANGE_AND = /^\s*(?:and|y)\s*\$?\s*$/;
const CHANGE_FROM =
  /\b(?:bump\w*|rais\w*|went|go|going|gone|mov\w*|came|come|coming|up|down|increas\w*|lower\w*|drop\w*|subi\w*|baj\w*)\b[^.\d]{0,12}\b(?:from|de)\s*\$?\s*$/;
const BETWEEN_BEFORE = /\b(?:between|entre|from|de)\s*\$?\s*$/;

/**
 * The figures in order, each range kept as its first figure marked `range` ("2300-2400" -> 2300,
 * "23-2400" -> 2300, "6k-6500" -> 6000): the second figure is not a price of its own.
 */
export function markRanges(masked: string, candidates: Candidate[]): Shaped[] {
  const sorted = candidates
    .map((c) => ({ range: false, shorthand: false, ...c }))
    .sort((a, b) => a.start - b.start)
    .filter((c, i, all) => !all.some((o, j) => j < i && o.start <= c.start && o.end >= c.end));
  const bare = /(?<![\w.,$])(\d{1,2})\s*$/;
  const out: Shaped[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const c = sorted[i];
    if (c === undefined) continue;
    const next = sorted[i + 1];
    const gap = next ? masked.slice(c.end, next.start) : '';
    const head = masked.slice(Math.max(0, c.start - 30), c.start);
    // "bump it from 2000 to 2400": a change of price, not a range.
    if (CHANGE_FROM.test(head)) {
      out.push(c);
      continue;
    }
    const between = BETWEEN_BEFORE.test(head);
    const joined = RANGE_BETWEEN.test(gap) || (between && RANGE_AND.test(gap));
    if (next && joined && next.kind === c.kind && c.value < next.value && next.value <= c.value * 1.5) {
      out.push({ ...c, range: true });
      i += 1;
      continue;
    }
    out.push(c);
  }
  // "23-2400", "between 19 and 2100": a bare first figure takes the hundreds of the second.
  for (const c of [...out]) {
    if (c.kind !== 'amount' || c.range) continue;
    const head = masked.slice(Math.max(0, c.start - 20), c.start);
    const joint = /(?:-|\bto|\band|\by|\ba)\s*\$?\s*$/.exec(head);
    if (!joint) continue;
    const first = bare.exec(head.slice(0, joint.index));
    if (!first) continue;
    const value = Number(first[1]) * 100;
    if (value > c.value || value < c.value * 0.6) continue;
    if (/^\s*(?:and|y)/.test(joint[0]) && !BETWEEN_BEFORE.test(head.slice(0, joint.index - first[0].length)))
      continue;
    const start = c.start - head.length + (first.index ?? 0);
    out.splice(out.indexOf(c), 1, {
      ...c,
      value,
      start,
      end: start + (first[1]?.length ?? 0),
      range: true,
      shorthand: true,
    });
  }
  return out.sort((a, b) => a.start - b.start);
}
