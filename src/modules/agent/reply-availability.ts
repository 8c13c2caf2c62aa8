import { maskSpans, sentencesOf } from './reply-text.js';

/** Why a carrier says it cannot take the load. */
export const UNAVAILABLE_REASONS = [
  'wrong_contact',
  'opt_out',
  'equipment',
  'lane',
  'hours',
  'timing',
  'no_capacity',
  'rate',
  'declined',
] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

const EQUIPMENT =
  '(?:reefers?|refers?|flatbeds?|flats|dry vans?|vans?|step ?decks?|conestogas?|box trucks?|straight trucks?|hot ?shots?|power only|tankers?|lowboys?|rgns?|dumps?|hoppers?|sprinters?|temp(?:erature)? control(?:led)?(?: equipment| trailers?)?|tarps?|hazmat endorsements?|team drivers?|teams)';
const NOT = "(?:don't|do not|dont|doesn't|does not|didn't|never)";

/**
 * Phrases saying they cannot take the load, each with its reason. The most specific reason found
 * wins (the order of UNAVAILABLE_REASONS), not the first written: "no tarps on my truck, can't do
 * it" is an equipment refusal, not a plain one.
 */
const UNAVAILABLE: ReadonlyArray<{ reason: UnavailableReason; pattern: RegExp }> = [
  // Wrong person, wrong number, not a carrier, no longer in business.
  {
    reason: 'wrong_contact',
    pattern:
      /\bwrong\s+(?:person|number|contact|e-?mail|guy|company|address|people)\b|\bnot\s+(?:in|a)\s+(?:the\s+)?(?:trucking|carrier|freight|transportation)\b|\bnot a (?:trucking|freight|transport\w*|carrier)\s*(?:company|business)?\b|\bno\s+longer\s+(?:work|with|at|employed|in business|hauling|trucking|driving|operating)\b|\b(?:closed|shut down|sold)\s+(?:the|my|our)\s+(?:company|business|trucks?)\b|\bout of business\b|\bpersonal\s+(?:phone|number|cell|e-?mail)\b|\bnot\s+(?:hauling|trucking|driving|operating)\s+any\s*more\b|\b(?:is|are)?\s*for\s+(?:billing|accounting|invoic\w+|payments?|safety|claims)\s+only\b/g,
  },
  // "we don't have any reefers", "we only run flatbeds", "dry van only", "no reefer", "won't fit".
  {
    reason: 'equipment',
    pattern: new RegExp(
      [
        `\\b${NOT}\\s+(?:have|run|pull|haul|own|got|do|carry)\\s+(?:any\\s+|a\\s+|an\\s+)?(?:\\w+\\s+)?${EQUIPMENT}\\b`,
        `\\b(?:only|just)\\s+(?:run|have|pull|do|haul|got)\\s+(?:\\w+\\s+){0,2}${EQUIPMENT}\\b`,
        `\\b${EQUIPMENT}\\s+only\\b`,
        `\\bno\\s+${EQUIPMENT}\\b(?!\\s+(?:needed|required|necessary)|\\?)`,
        `\\b(?:won't|will not|doesn't|does not|wouldn't)\\s+fit\\b`,
        // What it hauls: "we don't haul produce", "we don't do team loads", "insurance doesn't cover alcohol".
        `\\b${NOT}\\s+(?:haul|carry|take|do|move|pull)\\s+(?!it\\b|that\\b|this\\b|them\\b|the\\s+load|this\\s+one|that\\s+one|one\\b|any\\s*more\\b)(?:\\w+\\s+)?(?:\\w+)\\b`,
        "\\binsurance\\s+(?:doesn't|does not|won't|will not)\\s+cover\\b",
        '\\bnot\\s+(?:hazmat|tanker|twic)\\s+(?:certified|endorsed|qualified)\\b',
      ].join('|'),
      'g',
    ),
  },
  // "not my lane", "don't go to texas", "we stay local", "too far for us", "outside our area".
  {
    reason: 'lane',
    pattern: new RegExp(
      [
        '\\bnot\\s+(?:my|our)\\s+(?:lanes?|area|region)\\b',
        `\\b${NOT}\\s+(?:go|run|service|serve|travel|haul|deliver|head|do)\\s+(?:to|into|that\\s+(?:lane|way|area|direction)|this\\s+(?:lane|way)|there|down\\s+there|out\\s+there)\\b`,
        `\\b${NOT}\\s+(?:go|service|serve|travel|deliver|head)\\s+(?!it\\b|that\\b|this\\b|the\\b|any\\b)[a-z]+\\b`,
        '\\bout\\s+of\\s+(?:my|our|the)\\s+way\\b',
        '\\bstay\\s+(?:local|regional|in\\s+(?:the\\s+)?\\w+|close\\s+to\\s+home)\\b',
        '\\bnot\\s+(?:going|headed|heading|running)\\s+(?:that|this)\\s+way\\b',
        '\\bno\\s+(?!thanks\\b|thank\\b|deal\\b)[a-z]+\\s+for\\s+(?:us|me)\\b',
        '\\bonly\\s+(?:do|run|go|haul)\\s+(?:intrastate|local|regional|in\\s+\\w+)\\b',
        '\\btoo\\s+far\\b',
        '\\b(?:outside|out of)\\s+(?:of\\s+)?(?:our|my)\\s+(?:area|region|lanes?|radius|range)\\b',
        '\\bwrong\\s+direction\\b',
      ].join('|'),
      'g',
    ),
  },
  // Hours of service: "out of hours", "on a 34 hour reset", "no hours left", "hos won't allow it".
  {
    reason: 'hours',
    pattern:
      /\bout\s+of\s+(?:hours|hrs|drive time|driving hours)\b|\b34[\s-]*(?:hours?|hrs?|hr)?\s*(?:reset|restart)\b|\bon\s+(?:his|her|their|my|a|the)\s+(?:\d+\s*(?:hours?|hrs?|hr)\s+)?(?:reset|break)\b|\bno\s+(?:hours|hrs)\s+(?:left|available)\b|\bhos\s+(?:won't|will not|doesn't|does not)\b|\b(?:hours|clock)\s+(?:ran|run|is|are)\s+out\b/g,
  },
  // The date or time does not work: "can't make that pickup", "too early", "two days late".
  {
    reason: 'timing',
    pattern:
      /\b(?:can't|cannot|can not|cant|won't|unable to)\s+make\s+(?:that|the|this|it\s+(?:by|on|in time|for))\s*(?:pick\s?up|pu|date|time|appointment|appt|window|delivery)?\b|\btoo\s+(?:late|early|soon)\b|\b(?:days?|hours?)\s+late\b/g,
  },
  // No truck: "no trucks", "booked", "all covered", "trucks are committed", "got loaded", "broke down".
  {
    reason: 'no_capacity',
    pattern: new RegExp(
      [
        '\\bno\\s+(?:\\w+\\s+)?(?:trucks?|capacity|equipment|drivers?|units?|power)\\b(?:\\s+available)?',
        `\\b${NOT}\\s+have\\s+(?:a|any|an|one)?\\s*(?:\\w+\\s+)?(?:trucks?|drivers?|equipment|capacity)\\b`,
        '\\b(?:nothing|not|none)\\s+(?:\\w+\\s+)?available\\b',
        "\\b(?:we're|we are|were|i'm|i am|all|fully|already|totally|completely)\\s+(?:all\\s+|fully\\s+|already\\s+)?(?:booked|full|covered|committed)\\b",
        // "booked for the week", but not "we booked it" / "get it booked".
        "(?<!\\b(?:get|got|have|had|we|i|we've|i've|it)\\s+)\\bbooked\\b(?!\\s+(?:it|this|that|the\\s+load))",
        '\\b(?:trucks?|drivers?|units?|fleet)\\s+(?:are|is)\\s+(?:all\\s+)?(?:committed|booked|covered|taken|busy|tied up|loaded)\\b',
        '\\b(?:got|already|been|just)\\s+(?:re)?loaded\\b',
        '\\b(?:all\\s+)?(?:my\\s+|our\\s+)?(?:trucks?|drivers?)\\s+(?:are\\s+|is\\s+)?(?:out|gone|dispatched|on the road)\\b',
        '\\btry\\s+(?:me|us)\\s+(?:again\\s+)?(?:next|later|tomorrow|another)\\b',
        '\\b(?:broke|broken)\\s+down\\b|\\bin\\s+the\\s+shop\\b',
        '\\bmiles\\s+(?:away|out|deadhead)\\b[^.?!\\n]*\\b(?:sorry|no)\\b|\\bdeadhead\\b[^.?!\\n]*,\\s*(?:no|sorry)\\b',
      ].join('|'),
      'g',
    ),
  },
  // The price: "too cheap", "not for 2000", "that rate won't even cover fuel".
  {
    reason: 'rate',
    pattern:
      /\btoo\s+(?:cheap|low|light)\b|\bcheap\s+(?:freight|load|rate)\b|\bnot\s+for\s+(?:that|this|\$?\d)|\b(?:won't|will not|doesn't|does not)\s+(?:even\s+)?cover\s+(?:the\s+|my\s+|our\s+)?(?:fuel|costs?|expenses)\b|\bnot\s+(?:at|for)\s+(?:that\s+(?:rate|price)|\$?\d)|\b(?:below|under)\s+(?:my|our)\s+(?:rate|minimum|min)\b/g,
  },
  // A plain no.
  {
    reason: 'declined',
    pattern: new RegExp(
      [
        "\\b(?:can't|cannot|can not|cant|won't|unable to|not able to)\\s+(?:do|cover|take|haul|run|make|handle|help)\\b(?!\\s+(?:it\\s+)?(?:\\$?\\d|for\\b|at\\b))(?:\\s+(?:it|that|this|one|the load|this load|that load|this one|that one|them))?",
        '\\bnot\\s+interested\\b',
        '\\bno\\s+(?:thanks|thank\\s+you|thx|ty|deal)\\b',
        "\\b(?:i'll|we'll|will|gonna|going to|i|we|have to|got to|gotta|must)?\\s*pass\\b(?!\\s+through)",
        '^(?:no|nope|nah)\\b[.!,]*',
        '(?:,|\\.)\\s*(?:no|nope|nah)[.!]*$',
        "\\b(?:doesn't|does not|won't|will not|wouldn't)\\s+work\\s+(?:for\\s+(?:us|me|you)|out)\\b",
      ].join('|'),
      'gm',
    ),
  },
];

/** Phrases saying they can take it. */
const AVAILABLE: readonly RegExp[] = [
  /\b(?:have|got|has)\s+(?:a|an|one|\d+|some|the)?\s*(?:\w+\s+)?(?:trucks?|capacity)\b/g,
  /\btrucks?\s+(?:is\s+|are\s+)?(?:available|ready|open|free)\b/g,
  /\b(?:can|could|will|we'll|i'll)\s+(?:cover|do|take|haul|run|move|handle)\b/g,
  /\b(?:book it|let's do it|lets do it|sounds good|deal|count (?:me|us) in|send (?:me |us |over )?(?:the |a )?rate con\w*|works for (?:us|me))\b/g,
  /\b(?:yes|yeah|yep|yup|sure|absolutely|interested)\b/g,
  /\b(?:empty|available|ready)\b/g,
  new RegExp(`\\b(?:we|i)\\s+(?:run|pull|have|got)\\s+(?:\\w+\\s+)?${EQUIPMENT}\\b`, 'g'),
];

/** A sentence that only maybe has a truck ("we might have a truck") says nothing yet. */
const HEDGED = /\b(?:might|may|maybe|possibly|perhaps|if)\b/;

export interface AvailabilityReading {
  /** true: can take the load; false: cannot; null: not said. */
  available: boolean | null;
  /** Why not, when `available` is false. */
  reason: UnavailableReason | null;
  /** Every reason some phrase gave, said or overruled. */
  reasons: ReadonlySet<UnavailableReason>;
}

/**
 * true / false / null from the phrases above, questions left aside ("is it still available?"
 * says nothing about a truck). When both kinds appear the later one wins, because carriers
 * correct themselves in the order they write ("no truck today, but can cover tomorrow").
 */
export function readAvailability(text: string): AvailabilityReading {
  const asked = sentencesOf(text).filter((sentence) => sentence.question);
  const hedged = sentencesOf(text).filter((sentence) => HEDGED.test(sentence.text));
  const inside = (index: number, list: typeof asked) =>
    list.some((s) => index >= s.start && index < s.start + s.text.length);

  let lastNegative = -1;
  const reasons = new Set<UnavailableReason>();
  let remaining = text;
  for (const { reason, pattern } of UNAVAILABLE) {
    for (const match of text.matchAll(pattern)) {
      if (!match[0].trim() || inside(match.index, asked)) continue;
      lastNegative = Math.max(lastNegative, match.index);
      reasons.add(reason);
      remaining = maskSpans(remaining, [{ start: match.index, end: match.index + match[0].length }]);
    }
  }
  let lastPositive = -1;
  for (const pattern of AVAILABLE) {
    for (const match of remaining.matchAll(pattern)) {
      if (inside(match.index, asked) || inside(match.index, hedged)) continue;
      lastPositive = Math.max(lastPositive, match.index);
    }
  }
  if (lastNegative < 0 && lastPositive < 0) return { available: null, reason: null, reasons };
  const available = lastPositive > lastNegative;
  return { available, reason: available ? null : mostSpecific(reasons), reasons };
}

export function mostSpecific(reasons: ReadonlySet<UnavailableReason>): UnavailableReason | null {
  return UNAVAILABLE_REASONS.find((reason) => reasons.has(reason)) ?? null;
}
