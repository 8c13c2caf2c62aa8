import { cooperative } from '../lib/yielding.js';
import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE, stringEnd } from './json-depth.js';

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
 */
export interface JsonOutline {
  members: { key: [number, number]; value: [number, number]; elements: [number, number][] | null }[];
  /** The deepest nesting of objects and arrays in the text. */
  depth: number;
}

const COMMA = 0x2c;
const COLON = 0x3a;

/** How many characters the pass reads between checks of its time budget. */
const STRIDE = 1 << 16;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** [start, end) without the whitespace around it. */
function trimmed(text: string, start: number, end: number): [number, number] {
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

async function mark(text: string): Promise<Marks | null> {
  const turns = cooperative();
  const marks: Marks = { rootOpen: -1, rootClose: -1, rootMarks: [], innerCommas: [], maxDepth: 0 };
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (i % STRIDE === 0) await turns.pause();
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return null;
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
  return depth === 0 && marks.rootClose !== -1 ? marks : null;
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

export async function outlineJson(text: string): Promise<JsonOutline | null> {
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
function elementsOf(text: string, [start, end]: [number, number], commas: number[], from: number) {
  if (text.charCodeAt(start) !== OPEN_BRACKET || text.charCodeAt(end - 1) !== CLOSE_BRACKET)
    return { elements: null, next: from };
  const [s, e] = trimmed(text, start + 1, end - 1);
  if (s === e) return { elements: [], next: from };
  const parts = split(s, e, commas, from);
  return { elements: parts.ranges.map(([a, b]) => trimmed(text, a, b)), next: parts.next };
}
