/**
 * What a carrier's words point at besides prices: a load of the message (by its number, or by a
 * place, "the Houston one", "la de Dallas"), a day ("Wednesday", "el 25", "on 3/3", "the next
 * day"), or several loads at once ("both", "las tres"). A price is this load's only when what it
 * is said of is this load on its pickup day. Read on the normalized text (lower case).
 */
import type { OtherLoad, ReadingContext } from './reply-context.js';

/** 'unknown': a load named by a place the context does not know ("the jackson one"). */
export type Target = 'this' | 'other' | 'package' | 'unknown';

export interface Mention {
  start: number;
  end: number;
  kind: 'load' | 'place' | 'day' | 'package';
  /** The load(s) it names; null for a day that names no load. */
  target: Target | null;
  /** For a day: whether it is this load's pickup day. */
  day: 'this' | 'other' | null;
}

type Load = Pick<OtherLoad, 'load_number' | 'pickup_date' | 'origin' | 'destination'> & { ours: boolean };

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Lower case without accents ("miércoles" -> "miercoles"), the same length for precomposed text. */
const plain = (s: string) =>
  /[^ -~\s]/.test(s)
    ? s
        .toLowerCase()
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
    : s.toLowerCase();

/** "LD-2026-00017" -> ld-2026-00017, 2026-00017, 00017, 17: the ways a carrier writes a load number. */
function aliasesOf(loadNumber: string): string[] {
  const full = loadNumber.toLowerCase();
  const tail = /(\d+)$/.exec(full)?.[1];
  const out = [full];
  if (tail && tail !== full) out.push(tail);
  const short = tail?.replace(/^0+/, '');
  if (short && short !== tail && short.length >= 2) out.push(short);
  return out;
}

const STATES =
  'al:alabama,az:arizona,ar:arkansas,ca:california,co:colorado,ct:connecticut,fl:florida,ga:georgia,il:illinois,in:indiana,ia:iowa,ks:kansas,ky:kentucky,la:louisiana,md:maryland,ma:massachusetts,mi:michigan,mn:minnesota,ms:mississippi,mo:missouri,nv:nevada,nj:new jersey|jersey,nm:new mexico,ny:new york,nc:north carolina,oh:ohio,ok:oklahoma,or:oregon,pa:pennsylvania,sc:south carolina,tn:tennessee,tx:texas,ut:utah,va:virginia,wa:washington,wi:wisconsin';
const STATE_NAMES = new Map(
  STATES.split(',').map((pair) => {
    const [code = '', names = ''] = pair.split(':');
    return [code, names];
  }),
);
const NICKNAMES: Record<string, string[]> = {
  chicago: ['chi', 'chitown', 'chi-town'],
  phoenix: ['phx'],
  atlanta: ['atl'],
  dallas: ['dfw'],
  houston: ['htown', 'h-town'],
  'las vegas': ['vegas'],
  philadelphia: ['philly'],
  'new york': ['nyc'],
};

/** "Elk Grove Village, IL" -> elk grove village, elk grove, illinois, ... */
function placeAliases(place: string | null | undefined, withState: boolean): string[] {
  if (!place) return [];
  const [city = '', state = ''] = plain(place).split(/\s*,\s*/);
  const out = [city, ...(NICKNAMES[city] ?? [])];
  const shorter = city.replace(/\s+(?:village|city|heights|park)$/, '');
  if (shorter !== city) out.push(shorter);
  if (withState) out.push(...(STATE_NAMES.get(state.trim())?.split('|') ?? []));
  return out.filter(Boolean);
}

const WEEKDAYS: Array<[RegExp, number]> = [
  [/^(?:sunday|domingo)$/, 0],
  [/^(?:monday|mon|lunes)$/, 1],
  [/^(?:tuesday|tues|tue|martes)$/, 2],
  [/^(?:wednesday|wed|weds|miercoles)$/, 3],
  [/^(?:thursday|thurs|thur|thu|jueves)$/, 4],
  [/^(?:friday|fri|viernes)$/, 5],
  [/^(?:saturday|sabado)$/, 6],
];
const DAY =
  /\b(?:(sunday|domingo|monday|mon|lunes|tuesday|tues|tue|martes|wednesday|weds|wed|mi[eé]rcoles|thursday|thurs|thur|thu|jueves|friday|fri|viernes|saturday|s[aá]bado)(?:\s+(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?)?|(?:the|el|del|on)\s+(\d{1,2})(?:st|nd|rd|th)?\b(?![.,/]?\d|\s*(?:%|am|pm|hours?|hrs?|days?|mins?|miles?|loads?|trucks?|stops?|pallets?|horas|d[ií]as|millas|tarimas|piezas))|(\d{1,2})(?:st|nd|rd|th)|(\d{1,2})\/(\d{1,2})(?:\/\d{2,4})?|(next day|day after|following day|d[ií]a siguiente|otro d[ií]a|next week|la pr[oó]xima semana|la otra semana|la semana que entra))\b/g;
/** A day said of the delivery, or turned down ("not wed"), says nothing of when the price is for. */
const NOT_PICKUP_BEFORE =
  /(?:(?:deliver(?:s|y|ed)?|drop|unload|receiver|appointment|appt|entrega)(?:\s+[\w']+){0,3}|\bnot|\bno|nothing on|instead of|hasta)\s+(?:the\s+)?$/;
const PACKAGE =
  /\b(?:both(?=\s*(?:$|[,.!?$\d@]|for|at|in|loads?|of (?:them|those|these)|together|ok|work))|all (?:two|three|four|five|[2-9])|all of them|together|las (?:dos|tres|cuatro)|los dos|ambas|juntas|todas)\b/g;
/** "the other load", "la otra": another load of the message, unnamed. */
const OTHER_LOAD = /\b(?:the other (?:load|one)|la otra(?: carga)?|el otro)\b/g;
const LOCATION_BEFORE = /(?:\bin|\ben|\bat|\bnear|\bfrom|\bout of|\bdesde|\bby)\s+$/;

/** Every mention of a load, a day or a package in `text`, in order. */
export function mentionsIn(text: string, context: ReadingContext): Mention[] {
  const loads: Load[] = [
    { ...context, ours: true },
    ...context.other_loads.map((o) => ({ ...o, ours: false })),
  ].filter((l) => l.load_number);
  const found: Mention[] = [
    ...loadNumbers(text, loads),
    ...places(text, loads),
    ...packages(text),
    ...(context.other_loads.length > 0 ? unknownPlaces(text, loads) : []),
    ...[...text.matchAll(OTHER_LOAD)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
      kind: 'load' as const,
      target: 'other' as const,
      day: null,
    })),
  ];
  if (context.pickup_date) found.push(...days(text, context.pickup_date, loads));
  found.sort((a, b) => a.start - b.start);
  // One mention a stretch of text: "LD-2026-00017" also holds "00017".
  return found.filter(
    (m, i) =>
      !found.some(
        (o, j) =>
          j !== i && o.start <= m.start && o.end >= m.end && (o.end - o.start > m.end - m.start || j < i),
      ),
  );
}

function loadNumbers(text: string, loads: Load[]): Mention[] {
  const out: Mention[] = [];
  const all = loads.flatMap((l) => aliasesOf(l.load_number).map((alias) => ({ alias, load: l })));
  const unique = all.filter((a) => all.filter((b) => b.alias === a.alias).length === 1);
  for (const { alias, load } of unique) {
    // Most replies name no load: a plain search first spares compiling the pattern.
    if (!text.includes(alias)) continue;
    const re = new RegExp(`(?<![\\w.,$-])${escapeRegExp(alias)}(?![\\w-]|[.,]\\d)`, 'g');
    for (const m of text.matchAll(re))
      out.push({
        start: m.index,
        end: m.index + m[0].length,
        kind: 'load',
        target: load.ours ? 'this' : 'other',
        day: null,
      });
  }
  // A two-digit alias ("17", "la 44") is a load only beside an article, or when another load is named too.
  return out.filter((m) => {
    if (m.end - m.start > 2) return true;
    const article = /(?:\bla|\bel|\bload|\bthe|#)\s*$/.test(text.slice(Math.max(0, m.start - 6), m.start));
    return article || out.some((o) => o !== m && o.end - o.start > 2);
  });
}

function places(text: string, loads: Load[]): Mention[] {
  const all = loads.flatMap((l) => [
    ...placeAliases(l.destination, true).map((alias) => ({ alias, load: l, origin: false })),
    ...placeAliases(l.origin, false).map((alias) => ({ alias, load: l, origin: true })),
  ]);
  const source = plain(text);
  const out: Mention[] = [];
  for (const { alias, load, origin } of all) {
    if (!source.includes(alias)) continue;
    // A place of several loads names none of them.
    if (new Set(all.filter((a) => a.alias === alias).map((a) => a.load)).size > 1) continue;
    for (const m of source.matchAll(new RegExp(`\\b${escapeRegExp(alias)}\\b`, 'g'))) {
      const before = source.slice(Math.max(0, m.index - 12), m.index);
      const after = source.slice(m.index + m[0].length, m.index + m[0].length + 6);
      // "driver is in Chicago" is where the truck is; an origin names a load only as "the X one", "la de X".
      if (LOCATION_BEFORE.test(before)) continue;
      if (origin && !/^\s+(?:one|load)\b/.test(after) && !/\b(?:la|el) de\s+$/.test(before)) continue;
      out.push({
        start: m.index,
        end: m.index + m[0].length,
        kind: 'place',
        target: load.ours ? 'this' : 'other',
        day: null,
      });
    }
  }
  return out;
}

/** "the X one", "la de X", "X load" where X is no place of the loads: one of them, but which is not known. */
const PLACE_REFERENCE =
  /\b(?:the\s+([a-z]+)\s+(?:one|load)|(?:la|el)\s+de\s+([a-z]+)|([a-z]+)\s+(?:load|one))\b/g;
const NOT_A_PLACE =
  /^(?:other|first|second|third|last|next|same|this|that|each|every|one|a|an|the|your|my|our|per|for|por|una|which|any|no|some|only|just|big|new|good|full|partial|ltl|ftl|team|solo|van|reefer|flatbed|heavy|light|hazmat|day|night|morning|back|return|carga|unidad|caja|ma[nñ]ana|tarde|noche|hoy|d[ií]a)$/;

function unknownPlaces(text: string, loads: Load[]): Mention[] {
  const known = new Set(
    loads.flatMap((l) => [...placeAliases(l.destination, true), ...placeAliases(l.origin, true)]),
  );
  const out: Mention[] = [];
  for (const m of plain(text).matchAll(PLACE_REFERENCE)) {
    const word = m[1] ?? m[2] ?? m[3] ?? '';
    if (NOT_A_PLACE.test(word) || known.has(word) || /\d/.test(word)) continue;
    out.push({ start: m.index, end: m.index + m[0].length, kind: 'place', target: 'unknown', day: null });
  }
  return out;
}

function packages(text: string): Mention[] {
  return [...text.matchAll(PACKAGE)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    kind: 'package' as const,
    target: 'package' as const,
    day: null,
  }));
}

function days(text: string, pickup: string, loads: Load[]): Mention[] {
  const out: Mention[] = [];
  const dayOf = (iso: string) => {
    const d = new Date(`${iso}T12:00:00Z`);
    return { weekday: d.getUTCDay(), date: d.getUTCDate(), month: d.getUTCMonth() + 1 };
  };
  const ours = dayOf(pickup);
  for (const m of text.matchAll(DAY)) {
    if (NOT_PICKUP_BEFORE.test(text.slice(Math.max(0, m.index - 40), m.index))) continue;
    const [, weekdayWord, weekdayDate, articleDate, ordinalDate, month, slashDate, relative] = m;
    const date = Number(weekdayDate ?? articleDate ?? ordinalDate ?? slashDate ?? Number.NaN);
    const weekday = weekdayWord ? WEEKDAYS.find(([re]) => re.test(plain(weekdayWord)))?.[1] : undefined;
    const matches = (d: { weekday: number; date: number; month: number }) =>
      relative === undefined &&
      (weekday === undefined || weekday === d.weekday) &&
      (Number.isNaN(date) || date === d.date) &&
      (month === undefined || Number(month) === d.month);
    const isOurs = matches(ours);
    const others = loads.filter((l) => !l.ours && l.pickup_date && matches(dayOf(l.pickup_date)));
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      kind: 'day',
      target: !isOurs && others.length === 1 ? 'other' : null,
      day: isOurs ? 'this' : 'other',
    });
  }
  return out;
}
