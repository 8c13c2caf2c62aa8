import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { LRUCache } from 'lru-cache';

// Ingestion sees the same numbers again and again (a carrier's phone and its contacts', nightly
// re-syncs); parsing is ~12 µs a number, a lookup here well under one.
// Unparseable numbers are kept as '' (the cache holds no null).
const cache = new LRUCache<string, string>({ max: 50_000 });

/** E.164 for a phone number in any common format (default region US), or null when unparseable. */
export function toE164(input: string): string | null {
  const known = cache.get(input);
  if (known !== undefined) return known || null;
  const parsed = parsePhoneNumberFromString(input, 'US');
  const e164 = parsed?.isValid() ? parsed.number : null;
  cache.set(input, e164 ?? '');
  return e164;
}

/** A North American number: area code and exchange each start with 2-9. */
const NANP = String.raw`\(?[2-9][0-9]{2}\)?[ .-]?[2-9][0-9]{2}[ .-]?[0-9]{4}`;

/**
 * The phone numbers the API accepts, as one regular expression the OpenAPI document publishes:
 * a North American number (10 digits, optionally `1` or `+1` first, with spaces, dots, dashes or
 * parentheses), or `+` and another country's number of 7 to 15 digits with the same separators.
 * Digits only, no letters or extensions, so any regex dialect reads it alike.
 */
export const PHONE_PATTERN = String.raw`^(?:(?:\+?1[ .-]?)?${NANP}|\+[2-9](?:[ .-]?[0-9]){6,14})$`;

/** An E.164 number as the API accepts it: `+1` and a North American number, or another country's. */
export const E164_PATTERN = String.raw`^\+(?:1[2-9][0-9]{2}[2-9][0-9]{6}|[2-9][0-9]{6,14})$`;

/** E.164 for a number that matches PHONE_PATTERN: its digits, with `+1` before a North American one. */
export function patternToE164(input: string): string {
  const digits = input.replace(/[^0-9]/g, '');
  if (input.trimStart().startsWith('+')) return `+${digits}`;
  return `+1${digits.slice(-10)}`;
}
