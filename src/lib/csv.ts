import { cooperative } from './yielding.js';

/**
 * Parses RFC 4180 CSV text (quoted fields, doubled quotes, CRLF or LF) into rows of cells.
 * Blank lines are skipped; a quoted field that never closes runs to the end of the text.
 */
export function parseCsv(text: string): string[][] {
  const reader = new CsvReader();
  reader.push(text);
  return reader.end();
}

/** Text handed to the reader at a time by parseCsvCooperatively: a slice of a string costs no copy. */
const PIECE = 256 * 1024;

const pauseEvery = () => {
  const turns = cooperative();
  return () => turns.pause();
};

/**
 * parseCsv for large uploads, of the text whole or in the pieces it arrived in (in order): the
 * same rows, with `pause` awaited between pieces (by default, the event loop is given back every
 * few milliseconds so other requests are served while a 16 MiB file is read). The pieces are
 * never joined: a 16 MiB string costs 15-50 ms to build on a busy machine, in one go.
 */
export async function parseCsvCooperatively(
  text: string | readonly string[],
  pause: () => Promise<void> | undefined = pauseEvery(),
): Promise<string[][]> {
  const reader = new CsvReader();
  for (const piece of typeof text === 'string' ? [text] : text) {
    for (let at = 0; at < piece.length; at += PIECE) {
      reader.push(piece.length <= PIECE ? piece : piece.slice(at, at + PIECE));
      await pause();
    }
  }
  return reader.end();
}

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;
const BOM = 0xfeff;

/** The index of the next comma or line break at or after `from` (the text's length if none). */
function delimiterAt(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === LF || c === CR) return i;
  }
  return text.length;
}

/** Where the reader is: between cells, in a cell, in or just after a quoted part, past a CR. */
type State = 'start' | 'plain' | 'quoted' | 'quote' | 'cr';

/**
 * CSV read a piece of text at a time; a cell or a line break may straddle two pieces. A cell
 * not starting with a quote runs to the next comma or line break (quotes in it are text); one
 * starting with a quote runs to the closing quote (a doubled quote is one quote), and text after
 * the closing quote up to the delimiter belongs to it as it is. A lone CR ends a line as LF and
 * CRLF do. A byte-order mark opening the text is dropped.
 */
class CsvReader {
  private readonly rows: string[][] = [];
  private row: string[] = [];
  /** The current cell's text so far, in parts. */
  private parts: string[] = [];
  private state: State = 'start';
  /** At the start of a cell that follows a comma (so the text ending here ends with an empty cell). */
  private afterComma = false;
  private begun = false;

  push(piece: string): void {
    let i = 0;
    if (!this.begun && piece.length > 0) {
      this.begun = true;
      if (piece.charCodeAt(0) === BOM) i = 1;
    }
    while (i < piece.length) {
      if (this.state === 'cr') {
        this.state = 'start';
        if (piece.charCodeAt(i) === LF) i++;
      } else if (this.state === 'start') {
        this.afterComma = false;
        this.state = piece.charCodeAt(i) === QUOTE ? 'quoted' : 'plain';
        if (this.state === 'quoted') i++;
      } else if (this.state === 'plain') {
        const end = delimiterAt(piece, i);
        if (end > i) this.parts.push(piece.slice(i, end));
        i = end < piece.length ? this.delimiter(piece.charCodeAt(end)) + end : end;
      } else if (this.state === 'quoted') {
        const quote = piece.indexOf('"', i);
        const end = quote === -1 ? piece.length : quote;
        if (end > i) this.parts.push(piece.slice(i, end));
        if (quote !== -1) this.state = 'quote';
        i = end + 1;
      } else {
        // Just past a quote in a quoted cell: a second one is a quote; anything else closed it.
        if (piece.charCodeAt(i) === QUOTE) {
          this.parts.push('"');
          this.state = 'quoted';
          i++;
        } else this.state = 'plain';
      }
    }
  }

  /** The rows of everything pushed, once the text has ended. */
  end(): string[][] {
    if (this.state !== 'start' && this.state !== 'cr') this.endCell();
    else if (this.afterComma) this.row.push('');
    this.endRow();
    return this.rows;
  }

  /** Ends the cell at a comma or line break (character code `c`); how many characters that takes (1). */
  private delimiter(c: number): number {
    this.endCell();
    if (c === COMMA) {
      this.state = 'start';
      this.afterComma = true;
    } else {
      this.endRow();
      this.state = c === CR ? 'cr' : 'start';
    }
    return 1;
  }

  private endCell() {
    const [only, ...more] = this.parts;
    this.row.push(only === undefined ? '' : more.length ? this.parts.join('') : only);
    this.parts = [];
  }

  private endRow() {
    // Blank lines (one empty cell) are skipped.
    if (this.row.length > 1 || (this.row.length === 1 && this.row[0] !== '')) this.rows.push(this.row);
    this.row = [];
  }
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
