import { cooperative } from '../lib/yielding.js';
import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-depth.js';

/**
 * The outline of JSON text whose root is an object: where each member's key and value lie and,
 * for a member whose value is an array, where each of its elements lies. Each piece can then be
 * parsed with JSON.parse on its own, so a large body is parsed a piece at a time with the event
 * loop given back in between, instead of in one call that holds it for a quarter of a second.
 *
 * Found in one pass over the text, outside strings, that also measures nesting as
 * jsonNestingExceeds does. The pass checks only what splitting needs (balanced brackets, one root
 * object and nothing after it); every piece is checked by the parser that reads it, so text
 * that is not JSON is still refused. `null` when the text is not of that shape.
 *
 * The text may come in the pieces it was decoded in (PiecedText): positions count from the start
 * of the whole, and a piece of JSON that straddles two of them is joined alone, so a body of
 * several MiB is never copied into one string.
 */
export interface JsonOutline {
  members: { key: [number, number]; value: [number, number]; elements: [number, number][] | null }[];
  /** The deepest nesting of objects and arrays in the text. */
  depth: number;
}

const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;

/** Text held in the pieces it arrived in, read by position in the whole. */
export class PiecedText {
  readonly length: number;
  /** Where each piece starts in the whole. */
  private readonly starts: number[] = [];
  /** The piece the last lookup found: reads mostly move forward, a little at a time. */
  private at = 0;

  constructor(readonly pieces: readonly string[]) {
    let length = 0;
    for (const piece of pieces) {
      this.starts.push(length);
      length += piece.length;
    }
    this.length = length;
  }

  /** The index of the piece holding position `i` (0 <= i < length). */
  private pieceAt(i: number): number {
    let k = this.at;
    while (k > 0 && (this.starts[k] ?? 0) > i) k--;
    while (k + 1 < this.pieces.length && (this.starts[k + 1] ?? Number.POSITIVE_INFINITY) <= i) k++;
    this.at = k;
    return k;
  }

  charCodeAt(i: number): number {
    if (i < 0 || i >= this.length) return Number.NaN;
    const k = this.pieceAt(i);
    return (this.pieces[k] ?? '').charCodeAt(i - (this.starts[k] ?? 0));
  }

  /** The text of [start, end), copied from the pieces it spans. */
  slice(start: number, end: number): string {
    if (end <= start) return '';
    const parts: string[] = [];
    for (let k = this.pieceAt(start); k < this.pieces.length && (this.starts[k] ?? 0) < end; k++) {
      const from = this.starts[k] ?? 0;
      parts.push((this.pieces[k] ?? '').slice(Math.max(0, start - from), end - from));
    }
    return parts.length === 1 ? (parts[0] ?? '') : parts.join('');
  }
}

/** How many characters the pass reads between checks of its time budget. */
const STRIDE = 1 << 16;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** [start, end) without the whitespace around it. */
function trimmed(text: PiecedText, start: number, end: number): [number, number] {
  let s = start;
  let e = end;
  while (s < e && isSpace(text.charCodeAt(s))) s++;
  while (e > s && isSpace(text.charCodeAt(e - 1))) e--;
  return [s, e];
}

/** What the pass records: separators of the root object (depth 1) and of arrays in it (depth 2). */
interface Marks {
  rootOpen: number;
  rootClose: number;
  /** Commas and colons directly in the root object. */
  rootMarks: number[];
  /** Commas directly in a container that is a member of the root, and each such container's brackets. */
  innerCommas: number[];
  maxDepth: number;
}

async function mark(text: PiecedText): Promise<Marks | null> {
  const turns = cooperative();
  const marks: Marks = { rootOpen: -1, rootClose: -1, rootMarks: [], innerCommas: [], maxDepth: 0 };
  let depth = 0;
  /** Inside a string, and whether the last character read there was an escaping backslash. */
  let inString = false;
  let escaped = false;
  let offset = 0;
  let nextPause = 0;
  for (const piece of text.pieces) {
    for (let j = 0; j < piece.length; j++) {
      if (offset + j >= nextPause) {
        await turns.pause();
        nextPause = offset + j + STRIDE;
      }
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        // The next quote not escaped, or the end of the piece: the backslashes just before a
        // quote (all after j, where nothing is escaped) escape it when they are odd in number.
        const quote = piece.indexOf('"', j);
        const end = quote === -1 ? piece.length : quote;
        let backslashes = 0;
        while (end - 1 - backslashes >= j && piece.charCodeAt(end - 1 - backslashes) === BACKSLASH)
          backslashes++;
        j = end;
        if (quote === -1) escaped = backslashes % 2 === 1;
        else if (backslashes % 2 === 0) inString = false;
        continue;
      }
      const i = offset + j;
      const c = piece.charCodeAt(j);
      if (c === QUOTE) {
        inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === 0) {
          if (marks.rootOpen !== -1 || c !== OPEN_BRACE) return null;
          marks.rootOpen = i;
        }
        depth++;
        if (depth > marks.maxDepth) marks.maxDepth = depth;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth < 0) return null;
        if (depth === 0) marks.rootClose = i;
      } else if (c === COMMA || c === COLON) {
        if (depth === 1) marks.rootMarks.push(i);
        else if (depth === 2 && c === COMMA) marks.innerCommas.push(i);
      } else if (depth === 0 && !isSpace(c)) {
        return null;
      }
    }
    offset += piece.length;
  }
  return !inString && depth === 0 && marks.rootClose !== -1 ? marks : null;
}

/** Splits [start, end) at the given positions (sorted), as a list of ranges. */
function split(
  start: number,
  end: number,
  at: number[],
  from: number,
): { ranges: [number, number][]; next: number } {
  const ranges: [number, number][] = [];
  let s = start;
  let k = from;
  while (k < at.length && (at[k] ?? end) < end) {
    const p = at[k] ?? end;
    ranges.push([s, p]);
    s = p + 1;
    k++;
  }
  ranges.push([s, end]);
  return { ranges, next: k };
}

export async function outlineJson(text: PiecedText): Promise<JsonOutline | null> {
  const marks = await mark(text);
  if (!marks) return null;
  const { rootOpen, rootClose, rootMarks, innerCommas } = marks;
  const outline: JsonOutline = { members: [], depth: marks.maxDepth };
  const [bodyStart, bodyEnd] = trimmed(text, rootOpen + 1, rootClose);
  if (bodyStart === bodyEnd) return rootMarks.length === 0 ? outline : null;
  // The root's marks alternate colon, comma, colon...: a member is `key : value`.
  let m = 0;
  let start = bodyStart;
  let inner = 0;
  for (;;) {
    const colon = rootMarks[m];
    if (colon === undefined || text.charCodeAt(colon) !== COLON) return null;
    const comma = rootMarks[m + 1];
    if (comma !== undefined && text.charCodeAt(comma) !== COMMA) return null;
    const end = comma ?? bodyEnd;
    const value = trimmed(text, colon + 1, end);
    while (inner < innerCommas.length && (innerCommas[inner] ?? end) < value[0]) inner++;
    const listed = elementsOf(text, value, innerCommas, inner);
    inner = listed.next;
    outline.members.push({ key: trimmed(text, start, colon), value, elements: listed.elements });
    if (comma === undefined) break;
    start = comma + 1;
    m += 2;
  }
  return rootMarks.length === m + 1 ? outline : null;
}

/** The elements of a value that is an array, found at the commas the pass recorded inside it. */
function elementsOf(text: PiecedText, [start, end]: [number, number], commas: number[], from: number) {
  if (text.charCodeAt(start) !== OPEN_BRACKET || text.charCodeAt(end - 1) !== CLOSE_BRACKET)
    return { elements: null, next: from };
  const [s, e] = trimmed(text, start + 1, end - 1);
  if (s === e) return { elements: [], next: from };
  const parts = split(s, e, commas, from);
  return { elements: parts.ranges.map(([a, b]) => trimmed(text, a, b)), next: parts.next };
}
