import { defined } from './defined.js';
import { objectOf } from './json-object.js';

/**
 * Text as a US freight dispatcher says it on the phone, for a voice that reads text aloud: dates
 * as "Wednesday, July 1st", 24-hour times as "2:30 PM", state codes after a city as the state's
 * name, dollar amounts in words ("twenty-three hundred dollars"), and reference numbers one
 * character at a time ("L N 4 5 1 2").
 */

const STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'D.C.',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  PR: 'Puerto Rico',
  AB: 'Alberta',
  BC: 'British Columbia',
  MB: 'Manitoba',
  NB: 'New Brunswick',
  NL: 'Newfoundland',
  NS: 'Nova Scotia',
  ON: 'Ontario',
  PE: 'Prince Edward Island',
  QC: 'Quebec',
  SK: 'Saskatchewan',
};

const ONES = [
  '',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** 0-999 in words ("" for 0). */
function underThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const tail =
    rest < 20
      ? defined(ONES[rest], 'ONES[rest]')
      : `${TENS[Math.floor(rest / 10)]}${rest % 10 ? `-${ONES[rest % 10]}` : ''}`;
  return [hundreds ? `${ONES[hundreds]} hundred` : '', tail].filter(Boolean).join(' ');
}

/** A whole number in words, the way amounts are said: 2300 is "twenty-three hundred". */
export function numberInWords(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 1e9) return String(n);
  if (n === 0) return 'zero';
  // 1,100 to 9,999 with a hundreds digit, as amounts are said: "twenty-three hundred fifty".
  if (n > 1000 && n < 10_000 && Math.floor(n / 100) % 10 !== 0) {
    return [`${underThousand(Math.floor(n / 100))} hundred`, underThousand(n % 100)]
      .filter(Boolean)
      .join(' ');
  }
  const millions = Math.floor(n / 1e6);
  const thousands = Math.floor((n % 1e6) / 1000);
  return [
    millions ? `${underThousand(millions)} million` : '',
    thousands ? `${underThousand(thousands)} thousand` : '',
    underThousand(n % 1000),
  ]
    .filter(Boolean)
    .join(' ');
}

/** US dollars in words: 2300 is "twenty-three hundred dollars", 2350.5 adds "and 50 cents". */
export function spokenDollars(amount: number): string {
  const dollars = Math.floor(amount);
  const cents = Math.round((amount - dollars) * 100);
  const said = `${numberInWords(dollars)} ${dollars === 1 ? 'dollar' : 'dollars'}`;
  return cents ? `${said} and ${numberInWords(cents)} cents` : said;
}

function ordinal(day: number): string {
  const teen = day % 100 >= 11 && day % 100 <= 13;
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[day % 10] ?? 'th');
  return `${day}${suffix}`;
}

/** `YYYY-MM-DD` as "Wednesday, July 1st"; anything else as given. */
export function spokenDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(m[3])) return iso;
  const weekday = date.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  const month = date.toLocaleDateString('en-US', { month: 'long', timeZone: 'UTC' });
  return `${weekday}, ${month} ${ordinal(date.getUTCDate())}`;
}

/** `HH:MM` (24-hour) as "2 PM", "2:30 PM", "noon" or "midnight"; anything else as given. */
export function spokenTime(hhmm: string): string {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(hhmm);
  if (!m) return hhmm;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (minutes === 0 && hours === 12) return 'noon';
  if (minutes === 0 && hours === 0) return 'midnight';
  const h12 = hours % 12 === 0 ? 12 : hours % 12;
  return `${h12}${minutes ? `:${m[2]}` : ''} ${hours < 12 ? 'AM' : 'PM'}`;
}

/** A state or province code as its name ("TX" is "Texas"); anything else as given. */
export function spokenState(code: string): string {
  return STATES[code.trim().toUpperCase()] ?? code;
}

/** A reference number one character at a time, separators dropped: "LN-4512" is "L N 4 5 1 2". */
export function spokenReference(reference: string): string {
  return [...reference.replace(/[^A-Za-z0-9]/g, '').toUpperCase()].join(' ');
}

const SAYABLE = new RegExp(
  [
    String.raw`\$(?<dollars>\d{1,3}(?:,\d{3})+|\d+)(?<cents>\.\d{1,2})?`,
    String.raw`\b(?<day>\d{4}-\d{2}-\d{2})(?:T(?<at>\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b`,
    String.raw`\b(?<time>(?:[01]?\d|2[0-3]):[0-5]\d)\b`,
    String.raw`(?<city>[A-Za-z.'-]+), (?<state>[A-Z]{2})\b`,
  ].join('|'),
  'g',
);

/**
 * A sentence made sayable: dollar amounts, ISO dates (and date-times), 24-hour times, state codes
 * after a city, and each of `references` (load numbers) as above. Other text is left alone.
 */
export function speakable(text: string, references: readonly string[] = []): string {
  let out = text;
  for (const ref of references) if (ref) out = out.split(ref).join(spokenReference(ref));
  return out.replace(SAYABLE, (all, ...rest) => {
    // SAYABLE has named groups, so String.replace passes the groups object last.
    const g: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(objectOf(rest.at(-1)) ?? {})) {
      if (typeof value === 'string') g[name] = value;
    }
    if (g.dollars) return spokenDollars(Number(g.dollars.replace(/,/g, '')) + Number(g.cents ?? 0));
    if (g.day) return g.at ? `${spokenDate(g.day)} at ${spokenTime(g.at)}` : spokenDate(g.day);
    if (g.time) return spokenTime(g.time);
    if (g.city && g.state && STATES[g.state]) return `${g.city}, ${STATES[g.state]}`;
    return all;
  });
}
