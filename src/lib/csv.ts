import { cooperative } from './yielding.js';

/**
 * Parses RFC 4180 CSV text (quoted fields, doubled quotes, CRLF or LF) into rows of cells.
 * Blank lines are skipped; a quoted field that never closes runs to the end of the text.
 */
export function parseCsv(text: string): string[][] {
  return Array.from(csvRows(text));
}

/**
 * parseCsv for large uploads: the same rows, with the event loop given back every few
 * milliseconds so other requests are served while a 16 MiB file is read.
 */
export async function parseCsvCooperatively(text: string): Promise<string[][]> {
  const rows: string[][] = [];
  const turns = cooperative();
  for (const row of csvRows(text)) {
    rows.push(row);
    await turns.pause();
  }
  return rows;
}

const COMMA = 44;
const LF = 10;
const CR = 13;

/** The index of the next comma or line break at or after `from` (the text's length if none). */
function delimiterAt(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === LF || c === CR) return i;
  }
  return text.length;
}

/** One field from `at`: its text and where it ends. A quoted part is found with indexOf, not char by char. */
function fieldAt(text: string, at: number): [string, number] {
  if (text.charCodeAt(at) !== 34) {
    const end = delimiterAt(text, at);
    return [text.slice(at, end), end];
  }
  const parts: string[] = [];
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return [parts.join('') + text.slice(from), text.length];
    if (text.charCodeAt(quote + 1) === 34) {
      parts.push(text.slice(from, quote + 1));
      from = quote + 2;
      continue;
    }
    parts.push(text.slice(from, quote));
    // Text after the closing quote, up to the delimiter, belongs to the field as it is.
    const end = delimiterAt(text, quote + 1);
    parts.push(text.slice(quote + 1, end));
    return [parts.join(''), end];
  }
}

function* csvRows(text: string): Generator<string[]> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let row: string[] = [];
  const full = (r: string[]) => r.length > 1 || r[0] !== '';
  while (i < text.length) {
    const [cell, end] = fieldAt(text, i);
    row.push(cell);
    i = end;
    if (i >= text.length) break;
    if (text.charCodeAt(i) === COMMA) {
      i++;
      if (i === text.length) row.push('');
      continue;
    }
    i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    if (full(row)) yield row;
    row = [];
  }
  if (row.length > 0 && full(row)) yield row;
}

/** A cell a spreadsheet would run as a formula: text starting with = + - @, a tab or a carriage return. */
const FORMULA = /^[=+\-@\t\r]/;

/**
 * Rows as RFC 4180 CSV (CRLF line ends, a field quoted when it holds a comma, a quote or a line
 * break). Text that a spreadsheet would take for a formula is prefixed with `'` so opening the
 * file never runs it; numbers are written as they are, nulls as empty fields.
 */
export function formatCsv(
  header: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
): string {
  const cell = (value: string | number | null) => {
    if (value === null) return '';
    if (typeof value === 'number') return String(value);
    const text = FORMULA.test(value) ? `'${value}` : value;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return `${[header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}
