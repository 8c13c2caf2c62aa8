import { parsePhoneNumberFromString } from 'libphonenumber-js';

// Ingestion sees the same numbers again and again (a carrier's phone and its contacts', nightly
// re-syncs); parsing is ~12 µs a number, a lookup here well under one.
const CACHE_MAX = 50_000;
const cache = new Map<string, string | null>();

/** E.164 for a phone number in any common format (default region US), or null when unparseable. */
export function toE164(input: string): string | null {
  const known = cache.get(input);
  if (known !== undefined) return known;
  const parsed = parsePhoneNumberFromString(input, 'US');
  const e164 = parsed?.isValid() ? parsed.number : null;
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(input, e164);
  return e164;
}
