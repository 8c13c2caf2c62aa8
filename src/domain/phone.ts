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
