/**
 * Local time by US and Canadian state or province, as pure functions: a state's time zone, the
 * minutes since local midnight, and when quiet hours let a contact go out.
 */

const ZONES: Record<string, string[]> = {
  'America/New_York': [
    'CT',
    'DE',
    'DC',
    'FL',
    'GA',
    'IN',
    'KY',
    'ME',
    'MD',
    'MA',
    'MI',
    'NH',
    'NJ',
    'NY',
    'NC',
    'OH',
    'PA',
    'RI',
    'SC',
    'VT',
    'VA',
    'WV',
    'ON',
    'QC',
  ],
  'America/Chicago': [
    'AL',
    'AR',
    'IL',
    'IA',
    'KS',
    'LA',
    'MN',
    'MS',
    'MO',
    'NE',
    'ND',
    'OK',
    'SD',
    'TN',
    'TX',
    'WI',
    'MB',
  ],
  'America/Denver': ['CO', 'ID', 'MT', 'NM', 'UT', 'WY', 'AB'],
  'America/Phoenix': ['AZ'],
  'America/Los_Angeles': ['CA', 'NV', 'OR', 'WA', 'BC'],
  'America/Anchorage': ['AK'],
  'Pacific/Honolulu': ['HI'],
  'America/Regina': ['SK'],
  'America/Halifax': ['NS', 'NB', 'PE'],
  'America/St_Johns': ['NL'],
  'America/Puerto_Rico': ['PR'],
};
const ZONE_OF_STATE = new Map(
  Object.entries(ZONES).flatMap(([zone, states]) => states.map((s) => [s, zone])),
);

/** Where a state spans two zones, the zone most of its people live in. */
export const DEFAULT_TIME_ZONE = 'America/Chicago';

export function timeZoneOfState(state: string | null | undefined): string | null {
  return state ? (ZONE_OF_STATE.get(state.toUpperCase()) ?? null) : null;
}

/** Minutes since local midnight at `at` in `timeZone`. */
export function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

/**
 * The earliest time at or after `now` outside quiet hours [start, end) in `timeZone` (hours 0-23;
 * a window may span midnight; start equal to end means no quiet hours).
 */
export function nextContactTime(now: Date, timeZone: string, start: number, end: number): Date {
  if (start === end) return now;
  const minute = localMinutes(now, timeZone);
  const inQuiet =
    start < end ? minute >= start * 60 && minute < end * 60 : minute >= start * 60 || minute < end * 60;
  if (!inQuiet) return now;
  const wait = (end * 60 - minute + 24 * 60) % (24 * 60);
  const at = new Date(now.getTime() + wait * 60_000);
  at.setUTCSeconds(0, 0);
  // A night across a clock change is 23 or 25 hours long: move by the hour the count missed, unless
  // the end hour does not exist that night (spring forward at it), when the time counted is the first after it.
  const drift = ((end * 60 - localMinutes(at, timeZone) + 36 * 60) % (24 * 60)) - 12 * 60;
  const moved = new Date(at.getTime() + drift * 60_000);
  return drift !== 0 && localMinutes(moved, timeZone) === end * 60 ? moved : at;
}
