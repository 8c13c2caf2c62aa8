import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** E.164 for a phone number in any common format (default region US), or null when unparseable. */
export function toE164(input: string): string | null {
  const parsed = parsePhoneNumberFromString(input, 'US');
  return parsed?.isValid() ? parsed.number : null;
}
