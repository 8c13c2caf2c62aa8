import { AppError } from '../domain/errors.js';

/**
 * How deep objects and arrays may nest in a JSON body. No request of the API needs more than a
 * handful of levels; the bound keeps every recursive step after parsing (validation, the `input`
 * echoed in a 422, serialization) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** The index of the quote closing the string opened at `open`: the first one after an even run of backslashes (-1 if none). */
function stringEnd(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/**
 * Whether JSON text nests deeper than `max`, found in one pass over the text without parsing it
 * (and so without recursion). String contents are skipped, so brackets inside strings do not
 * count. Malformed text is not judged here: the parser reports it.
 */
export function jsonNestingExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i === -1) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** The 422 for a body nested deeper than MAX_JSON_DEPTH. */
export function jsonTooDeep(): AppError {
  const msg = `Body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
  return new AppError(422, 'validation_error', msg, null, {
    detail: [{ loc: ['body'], msg, type: 'json_too_deep', ctx: { maximum: MAX_JSON_DEPTH } }],
  });
}

/**
 * A body that is valid JSON but was refused by the parser: it holds a `__proto__` key (or
 * `constructor.prototype`), which could reach Object.prototype in code that copies it.
 */
export function forbiddenJsonKey(text: string): AppError | null {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  const msg = 'Body contains a "__proto__" or "constructor.prototype" key, which is not accepted';
  return new AppError(422, 'validation_error', msg, null, {
    detail: [{ loc: ['body'], msg, type: 'forbidden_key' }],
  });
}
