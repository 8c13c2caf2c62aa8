import { maskSpans, sentencesOf } from './reply-text.js';
import { clauseAt, type Referent, turnedDown } from './reply-words-elsewhere.js';
import { carrierPart } from './reply-words-thread.js';
import {
  END,
  EQUIPMENT,
  UNAVAILABLE,
  UNAVAILABLE_REASONS,
  type UnavailableReason,
  WORD,
} from './reply-words-unavailable.js';

export type { Referent } from './reply-words-elsewhere.js';
export { UNAVAILABLE_REASONS, type UnavailableReason } from './reply-words-unavailable.js';

/** A truck or a driver, English and Spanish. */
const UNIT =
  '(?:trucks?|capacity|drivers?|unidad(?:es)?|cami[oó]n(?:es)?|trocas?|tr[aá]iler(?:es)?|caja|equipo|chofer)';

/** Phrases saying they can take it. */
const AVAILABLE: readonly RegExp[] = [
  new RegExp(`\\b(?:have|got|has)\\s+(?:a|an|one|\\d+|some|the)?\\s*(?:\\w+\\s+)?${UNIT}${END}`, 'g'),
  /\btrucks?\s+(?:is\s+|are\s+)?(?:available|ready|open|free)\b/g,
  /\b(?:can|could|will|we'll|i'll|we'd|i'd|would)\s+(?:cover|do|take|haul|run|move|handle)\b/g,
  /\b(?:book it|let's do it|lets do it|sounds good|deal|count (?:me|us) in|send (?:me |us |over )?(?:the |a )?rate con\w*|works for (?:us|me))\b/g,
  /\b(?:yes|yeah|yep|yup|sure|absolutely|interested|correct|confirmed|that's right|affirmative)\b/g,
  /\b(?:empty|available|ready)\b(?!\s+(?:24\s*\/\s*7|24\s*(?:hrs|hours)|mon|monday|m-f))/g,
  /\b(?:i|we)\s+got\s+(?:you|u|ya)\b|\bmake\s+it\s+work\b|\b(?:i'm|im|we're|were)\s+in\b(?!\s+[a-z])|\block\s+it\s+in\b|\bsend\s+it(?:\s+over)?\b|\blet's\s+(?:roll|go)\b|\byes+(?:sir)?\b|^(?:bet|yessir|yeh|ye)\b/gm,
  /\b(?:estoy|estamos|ando|andamos)\s+(?:vac[ií]os?|libres?|disponibles?|list[oa]s?)(?![a-z\u00e0-\u00ff])|\b(?:dale|sim[oó]n|con\s+gusto|claro\s+que\s+s[ií])(?![a-z\u00e0-\u00ff])/g,
  new RegExp(`\\b(?:we|i)\\s+(?:run|pull|have|got)\\s+(?:\\w+\\s+)?${EQUIPMENT}\\b`, 'g'),
  // A price with a yes tied to it: "24hunnid and its yours", "make it 22 n we good", "86 ok", "need 9".
  /\b(?:and|n|&)\s+(?:it's|its|it is)\s+(?:yours|done|booked|a deal|a go)\b|\b(?:and|n|&)\s+(?:we're|were|we|we are)\s+(?:good|set|rolling|go)\b/g,
  /\d\s*(?:k\s*)?(?:ok|okay|works)\b|\bneeds?\s+(?:at\s+least\s+|min(?:imum)?\s+)?\$?\d|\bsqueeze\s+(?:it|you|this|that)\s+in\b|\bin\s+the\s+(?:low|mid|high|upper)\s+\d+s\b/g,
  /\b(?:i'll|we'll|will)\s+find\s+(?:a\s+)?(?:driver|truck)\b|\b(?:both|all\s+(?:two|three|four|five|\d)|all\s+of\s+them)\s+(?:for|at)\s+\$?\d|\b(?:together|juntas?|separately|por\s+separado)\s+(?:for\s+|at\s+|por\s+|en\s+)?\$?\d/g,
  // Spanish: "tengo troca vacía", "se la hago en 3,000", "le entro", "y es suya", "correcto", "va".
  new RegExp(
    `\\b(?:tengo|tenemos|traigo|traemos|hay)\\s+(?:una?\\s+)?(?:${WORD}\\s+)?(?:${UNIT}|${EQUIPMENT}|refri)${END}`,
    'g',
  ),
  new RegExp(
    `\\b(?:(?:se|te|le)\\s+)?(?:la|lo|las|los)\\s+(?:hago|hacemos|tomo|tomamos|cubro|cubrimos|llevo|llevamos|muevo|movemos|subo|subimos|cargo|cargamos|jalo|jalamos)${END}|\\ble\\s+(?:entro|entramos|damos|doy|cotizo|cotizamos)${END}|\\bes\\s+(?:suya|tuya|suyo|tuyo)${END}`,
    'g',
  ),
  new RegExp(
    `\\b(?:correcto|afirmativo|confirmado|confirmo|de acuerdo|as[ií] es|claro|me interesa|nos interesa|sale|va|vale|[oó]rale|ok\\s+va)${END}|(?:^|[\\s,.])s[ií](?=\\s*(?:[,.!]|$|se\\s+puede|est[aá]|claro|va|podemos|puedo|en\\s+\\$?\\d|confirm))|\\bs[í]${END}|\\b(?:las|ambas|los)\\s+(?:dos|tres|\\d)\\s+(?:\\w+\\s+)?(?:por|en)\\s+\\$?\\d`,
    'gm',
  ),
];

/** A price proposed as a question is an offer: "can you do 2.4?", "cn u do 2.5k?", "lmk if u can do 23". */
const OFFER_ASKED =
  /\b(?:can|could|cn|would|will)\s+(?:you|u|ya|y'all)\s+(?:do|go|get\s+(?:it\s+)?to|meet\s+(?:me\s+)?at|pay|bump\s+(?:it\s+)?to|make\s+it)\s+\$?\d|\bmeet\s+me\s+at\s+\$?\d|\bif\s+(?:you|u|ya)\s+can\s+(?:do|go|get\s+(?:it\s+)?to|pay|bump\s+(?:it\s+)?to|make\s+it)\s+\$?\d/g;

/**
 * A sentence that only maybe has a truck ("we might have a truck"), or has one for other freight
 * ("two trucks open Tuesday if you have anything then"), says nothing yet about this load.
 */
const HEDGED =
  /\bif\s+(?:you|u)\s+(?:have|got|get|need)\s+(?:anything|something|another|any\s+other|other|more)\b|\banything\s+else\b|\b(?:might|may|maybe|possibly|perhaps|tal vez|quiz[aá]s?|a lo mejor|puede que)\b|\bif\s+(?:i|we)\s+(?:can\s+)?(?:find|get|free up)\b|\bif\s+(?:my|the|our|a)\s+(?:truck|driver|unit)s?\b|\bif\s+(?:i'm|we're|im|i am|we are)\s+(?:empty|free|available|still)\b/;

/**
 * The carrier still has to check it has a truck or a driver: "lemme ask my driver", "waiting on my
 * driver to confirm", "could probably squeeze it in", "déjeme checar con el chofer". A price beside
 * it is still an offer to confirm, not a yes.
 */
const CHECKING = new RegExp(
  [
    '\\b(?:ask|check|confirm|verify|see)\\s+(?:with\\s+|w\\/\\s*|w\\s+)?(?:my|the|our)\\s+(?:driver|drivers|guy|guys|owner|boss|partner)\\b',
    '\\bwaiting\\s+(?:on|for)\\s+(?:my|the|our)\\s+(?:driver|guy|truck)\\b',
    '\\b(?:see|check)\\s+if\\s+(?:i|we)\\s+(?:have|got|can\\s+find|can\\s+get)\\s+(?:a\\s+)?(?:truck|driver)\\b',
    '\\b(?:probably|prob|maybe)\\s+squeeze\\b',
    '\\bbefore\\s+(?:we|i)\\s+(?:can\\s+)?(?:say\\s+yes|commit|confirm)\\b',
    "\\b(?:can't|cannot)\\s+confirm\\b[^.?!\\n]*\\buntil\\b",
    '\\b(?:checo|checar|pregunto|preguntar|verifico|verificar|confirmo|confirmar)\\s+con\\s+(?:el|mi)\\s+(?:chofer|operador|due[nñ]o)\\b',
  ].join('|'),
);

/** An out-of-office or automatic answer says nothing about a truck, whatever words it has. */
const AUTO_REPLY =
  /\bout\s+of\s+(?:the\s+)?office\b|\bautomatic\s+reply\b|\bauto-?reply\b|\blimited\s+access\s+to\s+(?:e-?mail|my\s+e-?mail)\b|\b(?:respond|reply|get\s+back\s+to\s+you)\s+(?:to\s+your\s+(?:e-?mail|message)\s+)?(?:when|upon|as\s+soon\s+as)\s+(?:i|we)\s+return\b|\bfuera\s+de\s+(?:la\s+)?oficina\b|\brespuesta\s+autom[aá]tica\b|\bacceso\s+limitado\b/;

/** The questions of a reply; a Spanish one starts at its "¿", not at the start of the sentence. */
function questionsOf(text: string): Array<{ text: string; start: number }> {
  return sentencesOf(text)
    .filter((sentence) => sentence.question)
    .map((sentence) => {
      const opening = sentence.text.indexOf('\u00bf');
      return opening > 0 ? { text: sentence.text.slice(opening), start: sentence.start + opening } : sentence;
    });
}

export interface AvailabilityReading {
  /** true: can take the load; false: cannot; null: not said. */
  available: boolean | null;
  /** Why not, when `available` is false. */
  reason: UnavailableReason | null;
  /** Every reason some phrase gave, said or overruled. */
  reasons: ReadonlySet<UnavailableReason>;
  /** The carrier still has to check its truck or driver: a price named is no yes yet. */
  checking: boolean;
  /** This load or day is turned down and another taken: a price named is for the other one. */
  elsewhere: boolean;
}

/**
 * true / false / null from the phrases above, questions left aside ("is it still available?"
 * says nothing about a truck). When both kinds appear the later one wins, because carriers
 * correct themselves in the order they write ("no trucks right now, but I'll find a driver"),
 * except that a load or day turned down by name is a no (see reply-words-elsewhere).
 */
export function readAvailability(reply: string, referent?: Referent): AvailabilityReading {
  const text = carrierPart(reply);
  // A clause about another load says nothing of this one ("4830 we're full").
  const elsewhere = (index: number) => {
    const clause = clauseAt(text, index);
    return referent?.(clause.start, clause.end) === 'other';
  };
  const asked = questionsOf(text);
  const hedged = sentencesOf(text).filter((sentence) => HEDGED.test(sentence.text));
  const inside = (index: number, list: typeof asked) =>
    list.some((s) => index >= s.start && index < s.start + s.text.length);
  const checking = CHECKING.test(text);
  if (AUTO_REPLY.test(text)) {
    return { available: null, reason: null, reasons: new Set(), checking, elsewhere: false };
  }

  let lastNegative = -1;
  const reasons = new Set<UnavailableReason>();
  let remaining = text;
  for (const { reason, pattern, rhetorical } of UNAVAILABLE) {
    for (const match of text.matchAll(pattern)) {
      if (!match[0].trim() || (!rhetorical && inside(match.index, asked)) || elsewhere(match.index)) continue;
      lastNegative = Math.max(lastNegative, match.index);
      reasons.add(reason);
      remaining = maskSpans(remaining, [{ start: match.index, end: match.index + match[0].length }]);
    }
  }
  const refused = turnedDown(text, referent).filter((t) => !inside(t.index, asked));
  if (refused.length > 0) {
    for (const { reason } of refused) reasons.add(reason);
    return { available: false, reason: mostSpecific(reasons), reasons, checking, elsewhere: true };
  }

  let lastPositive = -1;
  for (const pattern of AVAILABLE) {
    for (const match of remaining.matchAll(pattern)) {
      if (inside(match.index, asked) || inside(match.index, hedged) || elsewhere(match.index)) continue;
      lastPositive = Math.max(lastPositive, match.index);
    }
  }
  for (const match of remaining.matchAll(OFFER_ASKED)) lastPositive = Math.max(lastPositive, match.index);
  if (lastNegative < 0 && lastPositive < 0) {
    return { available: null, reason: null, reasons, checking, elsewhere: false };
  }
  const available = lastPositive > lastNegative;
  if (available && checking) return { available: null, reason: null, reasons, checking, elsewhere: false };
  return { available, reason: available ? null : mostSpecific(reasons), reasons, checking, elsewhere: false };
}

export function mostSpecific(reasons: ReadonlySet<UnavailableReason>): UnavailableReason | null {
  return UNAVAILABLE_REASONS.find((reason) => reasons.has(reason)) ?? null;
}
