/**
 * The carrier's price for one load, read from its own words (normalized, numbers as digits) with
 * what the agent's message said. Each figure is first placed: which load it is said of (by number,
 * place or package, else the load the sentence before named, else this one) and which day; then
 * weighed: the agent's own amounts echoed back count only when accepted in words, refused or past
 * figures and quick-pay discounts drop out, a correction keeps what follows it. What is left is:
 *   - one price stated plainly: the firm rate;
 *   - a range, an approximation, a price on an unsettled fact of the load, a carrier still checking,
 *     or several prices for this load on alternatives: a tentative rate, the first stated;
 *   - nothing for this load: no rate. An answer to our confirmation question reads as its amount.
 * When unsure it reads no firm rate: a missed price costs a question, a wrong one costs money.
 */
import type { ReadingContext } from './reply-context.js';
import { CHARGE_WORD, maskNonRates } from './reply-masks.js';
import { type Mention, mentionsIn } from './reply-mentions.js';
import { type Candidate, priceCandidates } from './reply-price.js';
import {
  clausesOf,
  hundredsCandidates,
  markRanges,
  roughThousands,
  type Span,
} from './reply-price-shapes.js';
import { maskSpans } from './reply-text.js';

export interface Offer {
  rate: number | null;
  rate_basis: 'all_in' | 'plus_fuel' | 'per_mile' | null;
  rate_per_mile: number | null;
  tentative_rate: number | null;
  confidence: number;
  /** The carrier still has to check it has a driver ("lemme ask my driver"). */
  checking: boolean;
  /** The price is on the condition that we raise ours ("if you can bump it to 2300"): it stands beside "no trucks". */
  onOurRaise: boolean;
}

/** A figure with where it stands and what it is said of. */
interface Placed extends Candidate {
  clause: Span;
  sentence: Span;
  ours: boolean;
  /** Said of this load by its number, place or day. */
  named: boolean;
  echo: boolean;
  /** Set when the figure is the start of a range or came as shorthand hundreds ("need 24"). */
  range: boolean;
  shorthand: boolean;
}

const ACCEPT_AFTER =
  /^\s*(?:\$|usd|dollars?|all[\s-]?in)?\s*(?:is\s+|are\s+|would\s+)?(?:fine|ok\b|okay|good|works|will work|might work|could work|should work|est[aá] bien|bet\b|aight|yes\b|s[ií]\b|confirm|👍)/;
const ACCEPT_BEFORE =
  /(?:\bok|\bokay|\byes|\byep|\bbet|\btake|\baccept|\baceptamos|\bdo it for(?: the)?|\bcan do|\bwe'?ll do|\bi'?ll do|\blive with|\bconfirm\w*|\bpues|\bva|\bs[ií]|\brate (?:for \S+ )?is|\blinehaul|\bline haul|\bhaul it for|\brun it for)[\s,:]*(?:los|the|a|\$)?\s*$/;
const NEGATED = /\b(?:can'?t|cannot|won'?t|not|no|never)\s+(?:\w+\s+)?$/;
const REJECT =
  /\?|😂|\b(?:no|not|nah|won'?t|can'?t|cannot|doesn'?t|isn'?t|too|cheap|light|lol|come on|low|lowball|pierdo|barato|bajo|poco|alcanza|alcanzan|alcanzo|sale|posted|you said|u said|your|you guys|were at|over|about|until|before|instead)\b/;
const ACCEPT_ANYWHERE =
  /\b(?:ok|okay|works|fine|accept|take|deal|bet|aight|yes|yep|confirm\w*|afirmativo|correcto|así es|est[aá] bien|quedamos)\b|👍/;
/** A charge named right before a condition: "$250 layover if they don't unload same day". */
const CHARGE_BEFORE = new RegExp(`${CHARGE_WORD.source}[\\s,]*$`);
const ARTICLE_BEFORE = /\ban? $/;
const NOUN_AFTER =
  /^ (?!(?:y|and|all|flat|usd|dlls|dollars|bucks|per|plus|for|if|si|o|or|firm|total|con|m[aá]s|pero|but)(?:\s|$))[a-z]/;
const PAST_BEFORE =
  /\b(?:i said|i was at|we were at|le dije|came down from|went from|i asked|pedí)\s*(?:\$)?\s*$/;
const CORRECTION =
  /\b(?:actually|no wait|wait|ah no|perd[oó]n|sorry,? i meant|i meant|typo|should have been|correction|mejor)\b/g;
const FINAL_BEFORE = /\b(?:call it|so|total(?: is)?|comes to|makes it|final(?:ly)?|now)\b[\s:$]*$/;
const FINAL_AFTER = /^\s*(?:\$|usd)?\s*(?:final|even|total|firm|flat)\b/;
const APPROX_BEFORE =
  /\b(?<!how )(?:around|about|approx(?:imately)?|ballpark|roughly|prob(?:ably)?|maybe|possibly|might|somewhere|i think|i'd say|estimated?|thinking|i guess|i figure|should be able to|could probably|como|alrededor de|aprox(?:imadamente)?|tal vez|quiz[aá]s?)\b[^.!?\n]{0,45}$/;
const APPROX_AFTER = /^\s*(?:ish|or so|m[aá]s o menos|give or take|maybe|probably|prob|might work)\b/;
const CHECKING =
  /\b(?:let me|lemme|need to|have to|want to|will|i'll|i will|d[ée]j[ea]me|tengo que)\s+(?:ask|check|checar|see|confirm|firm|get back|verify|verificar|preguntar)|\bi'?ll know\b|\bwaiting on\b|\bhas to (?:ok|okay|approve)|\bonce (?:my )?driver confirms|\bsqueeze it in\b/;
/** "Got a 26' box truck though, is that ok?": a doubt about the load, unsure of the price when asked apart from it. */
const DOUBT = /\b(?:is|would) that (?:be )?(?:ok|okay|alright|a problem|work)\b/;
const DRIVER_CHECK =
  /\b(?:ask|check with|checar con|waiting on|once) (?:my |el |mi )?(?:driver|chofer|operador)\b|\bdriver (?:to )?confirms?\b|\bsqueeze it in\b/;
const CONDITION =
  /\b(?:if|unless|as long as|provided|depending on|depends on|dependin|depende|si(?=\s+(?:lleva|carga|cargan|hay|es\b|no\b|me\b|nos\b|le\b|la\b|el\b|se\b|pesa|tiene|puede|sale|entrega|va\b|lo\b|est[aá])))\b[^.;!?\n]*/g;
/** Conditions that are terms of the deal, not facts of the load: the price still stands. */
const TERMS =
  /\b(?:yes|sí|pay|paid|payment|quick ?pay|qp|lumper|detention|layover|hold|advance|adelant\w*|anticipo|tonu|pallet exchange|free time|at cost|permits?|escorts?|bump|raise|go up|get (?:it |us |me )?to|meet|(?:you|u) (?:can |could )?do|so|still (?:open|available|good|there)|sigue|dan|pagan|paguen|rate con|set ?up|packet|cover|net \d+|you (?:still )?need|you want|works?|ok|okay|interested)\b/;
const RAISE = /\bif you (?:can |could )?(?:bump|raise|go up|get (?:it |us |me )?to|do|pay|meet)\b/;
const ASSENT =
  /^(?:[\s,.!]*(?:yes|yep|yeah|yup|ya|confirmed|confirm|correct|that'?s right|right|👍|s[ií]|afirmativo|correcto|confirmado|confirmo|as[ií] es|ok|okay|sure|de acuerdo|claro))+(?![a-z])/;

const agentAmounts = (c: ReadingContext) =>
  [c.posted_rate, c.our_counter, c.confirm_amount].filter((n): n is number => n !== null);

/** The mention a figure is said of: "for 4821" after it, else the nearest before it in its clause, else after it. */
function subjectOf(c: Candidate, clause: Span, mentions: Mention[], text: string): Mention | undefined {
  const inClause = mentions.filter(
    (m) => m.target !== null && m.start >= clause.start && m.end <= clause.end,
  );
  const after = inClause.find((m) => m.start >= c.end);
  if (after && /^[^\d]{0,20}\b(?:for|on|para|pa|to)\b[^\d]{0,12}$/.test(text.slice(c.end, after.start)))
    return after;
  return inClause.filter((m) => m.end <= c.start).at(-1) ?? after;
}

/** The load a clause without one is said of: the one named before it in its sentence, else in the sentence before. */
function carried(clause: Span, sentences: Span[], mentions: Mention[]): Mention[] {
  // "Para la del jueves son 2,100": a clause naming this load's day is about this load.
  if (mentions.some((m) => m.day === 'this' && m.start >= clause.start && m.end <= clause.end)) return [];
  const named = mentions.filter((m) => m.target !== null);
  const sentence = sentences.find((s) => s.start <= clause.start && clause.start < s.end);
  if (!sentence) return [];
  const earlier = named.filter((m) => m.start >= sentence.start && m.end <= clause.start);
  if (earlier.length > 0) return earlier.slice(-1);
  const previous = sentences.filter((s) => s.end <= sentence.start).at(-1);
  return previous ? named.filter((m) => m.start >= previous.start && m.end <= previous.end) : [];
}

/** Whether the figure is for this load on its pickup day ('named' when it names this load). */
function placeOf(
  c: Candidate,
  clause: Span,
  sentences: Span[],
  mentions: Mention[],
  text: string,
): 'named' | 'ours' | 'other' {
  const sentence = sentences.find((s) => s.start <= c.start && c.start < s.end) ?? clause;
  // "cover 00017 at $2,150 and 00021 at $1,900, if we get both": a package, whatever it names.
  if (mentions.some((m) => m.kind === 'package' && m.start >= sentence.start && m.end <= sentence.end))
    return 'other';
  const subject = subjectOf(c, clause, mentions, text);
  const targets = subject ? [subject] : carried(clause, sentences, mentions);
  if (targets.some((m) => m.target !== 'this')) return 'other';
  // A day in its clause, or said earlier in its sentence, is the day the figure is for.
  const days = mentions.filter(
    (m) =>
      m.day !== null &&
      m.start >= sentence.start &&
      m.end <= clause.end &&
      (m.start >= clause.start || m.end <= c.start),
  );
  if (days.some((m) => m.day === 'other')) return 'other';
  return targets.length > 0 ? 'named' : 'ours';
}

/** An echo of the agent's amount: the carrier's own only when it accepts it in words. */
function echoAccepted(c: Placed, text: string, sentences: Span[]): boolean | null {
  const before = text.slice(Math.max(c.clause.start, c.start - 30), c.start);
  const after = text.slice(c.end, c.clause.end);
  if (ACCEPT_AFTER.test(after)) return true;
  const accept = ACCEPT_BEFORE.exec(before);
  if (accept && !NEGATED.test(before.slice(0, accept.index))) return true;
  const clause = text.slice(c.clause.start, c.clause.end);
  // "2150 is low but ok": a yes after the complaint takes it.
  const rest = text.slice(c.clause.end, c.sentence.end);
  if (/^\s*(?:but|pero)\s+(?:ok|okay|fine|i'?ll take it|we'?ll take it|va|est[aá] bien)\b/.test(rest))
    return true;
  if (REJECT.test(clause) || text.slice(c.sentence.start, c.sentence.end).includes('?')) {
    // "2150 is what you said? ok fine": a yes right after the question takes it.
    const next = sentences.find((s) => s.start >= c.sentence.end);
    const yes =
      next &&
      next.end - next.start < 25 &&
      /^\W*(?:ok|okay|fine|deal|works|bet)\b/.test(text.slice(next.start, next.end));
    return Boolean(yes);
  }
  return ACCEPT_ANYWHERE.test(clause) ? true : null;
}

const NONE: Offer = {
  rate: null,
  rate_basis: null,
  rate_per_mile: null,
  tentative_rate: null,
  confidence: 1,
  checking: false,
  onOurRaise: false,
};

export function readOffer(text: string, context: ReadingContext): Offer {
  const mentions = mentionsIn(text, context);
  const masked = maskSpans(
    maskNonRates(text),
    mentions.filter((m) => /\d/.test(text.slice(m.start, m.end))),
  );
  const { clauses, sentences } = clausesOf(masked);
  const reference = context.our_counter ?? context.posted_rate;
  const found = markRanges(masked, [
    ...priceCandidates(masked),
    ...hundredsCandidates(masked, reference),
    ...roughThousands(masked, reference),
  ]);
  // A load named inside a condition ("if we also get the Baltimore one", "if we get both") is what
  // the price hangs on, not what it is for.
  const conditions = [...masked.matchAll(CONDITION)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
  }));
  const subjects = mentions.filter(
    (m) => m.kind === 'day' || !conditions.some((c) => c.start < m.start && m.end <= c.end),
  );
  const amounts = agentAmounts(context);
  // A figure far from the agent's amount ("under 42k", "a 1099 driver") is not this load's price.
  const plausible = found.filter(
    (c) =>
      c.kind !== 'amount' || reference === null || (c.value >= reference / 5 && c.value <= reference * 5),
  );
  const whole = { start: 0, end: masked.length };
  const placed: Placed[] = plausible.map((c) => {
    const clause = clauses.find((s) => s.start <= c.start && c.start < s.end) ?? whole;
    const sentence = sentences.find((s) => s.start <= c.start && c.start < s.end) ?? clause;
    const place = placeOf(c, clause, sentences, subjects, masked);
    return {
      ...c,
      clause,
      sentence,
      ours: place !== 'other',
      named: place === 'named',
      echo: c.kind === 'amount' && amounts.includes(c.value),
    };
  });
  return decide(placed, { masked, words: text }, sentences, context, mentions);
}

/** The carrier's own figures for this load: refused, past, quick-pay and superseded ones dropped. */
function ownFigures(placed: Placed[], text: string, words: string, sentences: Span[]) {
  // Our own amounts echoed back are weighed apart: the carrier's only when accepted in words.
  let own = placed.filter((c) => c.ours && (c.echo || !c.reference));
  const echoes = new Map(own.filter((c) => c.echo).map((c) => [c, echoAccepted(c, text, sentences)]));
  const refusedClauses = new Set(own.filter((c) => echoes.get(c) === false).map((c) => c.clause.start));
  own = own.filter((c) => echoes.get(c) !== false);
  // "5800 is about $2.83 a mile": a per-mile figure beside our refused amount restates it.
  own = own.filter((c) => !(c.kind === 'per_mile' && refusedClauses.has(c.clause.start)));
  const lastCorrection = Math.max(-1, ...[...text.matchAll(CORRECTION)].map((m) => m.index));
  // A correction supersedes what came before it, even when what follows is for another load.
  if (lastCorrection >= 0 && placed.some((c) => c.start > lastCorrection))
    own = own.filter((c) => c.start > lastCorrection);
  const standard = own.filter((c) => !c.quickPay);
  if (standard.length > 0) own = standard;
  const later = (c: Placed) => own.some((o) => o.start > c.start && o.value !== c.value);
  own = own.filter((c) => !(PAST_BEFORE.test(text.slice(Math.max(0, c.start - 20), c.start)) && later(c)));
  const finals = own.filter(
    (c) =>
      FINAL_BEFORE.test(text.slice(Math.max(0, c.start - 20), c.start)) ||
      FINAL_AFTER.test(text.slice(c.end, c.end + 10)),
  );
  if (finals.length > 0) own = finals.slice(-1);
  // A neutral echo beside a price of the carrier's own is what the carrier counters, unless it is
  // an alternative on a condition of its own ("2000 with our tarps, 1900 if the shipper supplies them").
  if (own.some((c) => !c.echo))
    own = own.filter((c) => !c.echo || echoes.get(c) === true || unsettled(c, text, words));
  // "a 1099 driver", "a 2022 truck": a bare figure after "a" names a thing, not a price.
  const named = own.filter(
    (c) =>
      c.kind === 'per_mile' ||
      /[$,k]/.test(text.slice(c.start, c.end)) ||
      !ARTICLE_BEFORE.test(text.slice(Math.max(0, c.start - 3), c.start)) ||
      !NOUN_AFTER.test(text.slice(c.end, c.end + 8)),
  );
  const dropped = named.length < own.length;
  return { own: named, accepted: (c: Placed) => !c.echo || echoes.get(c) === true, dropped };
}

function decide(
  placed: Placed[],
  { masked: text, words }: { masked: string; words: string },
  sentences: Span[],
  context: ReadingContext,
  mentions: Mention[],
): Offer {
  const { own, accepted, dropped } = ownFigures(placed, text, words, sentences);
  const first = own[0];
  if (first === undefined) return confirmation(text, context, mentions) ?? NONE;
  const values = own.map((c) => amountOf(c, context.distance));
  const firstValue = values[0] ?? null;
  const tentative =
    new Set(values.filter((v) => v !== null)).size > 1 ||
    first.range ||
    CHECKING.test(text) ||
    sentences.some(
      (s) => (s.end <= first.start || s.start > first.end) && DOUBT.test(text.slice(s.start, s.end)),
    ) ||
    APPROX_BEFORE.test(text.slice(first.sentence.start, first.start)) ||
    APPROX_AFTER.test(text.slice(first.end, first.end + 15)) ||
    unsettled(first, text, words);
  const perMile = first.kind === 'per_mile' ? first.value : null;
  const onOurRaise = RAISE.test(text.slice(first.sentence.start, first.sentence.end)) || first.named;
  if (tentative) {
    return {
      ...NONE,
      tentative_rate: firstValue,
      rate_per_mile: perMile,
      confidence: 0.5,
      checking: DRIVER_CHECK.test(text),
      onOurRaise,
    };
  }
  const plain = first.cued && !first.shorthand && !dropped && accepted(first);
  // A bare figure in the range of the load's price is how carriers text a quote ("2300"): sure
  // enough to negotiate on; far from it, or shorthand, it is confirmed first.
  const bare =
    !first.shorthand && !dropped && accepted(first) && inPriceRange(firstValue, context.posted_rate);
  return {
    rate: firstValue,
    rate_basis: first.kind === 'per_mile' ? 'per_mile' : first.plusFuel ? 'plus_fuel' : 'all_in',
    rate_per_mile: perMile,
    tentative_rate: null,
    confidence: plain ? 1 : bare ? 0.8 : 0.6,
    checking: false,
    onOurRaise,
  };
}

function amountOf(c: Candidate, distance: number | null): number | null {
  if (c.kind === 'amount') return Math.round(c.value);
  return distance != null && distance > 0 ? Math.round(c.value * distance) : null;
}

/** A condition on a fact of the load or the schedule in the figure's sentence ("2300 if it's under 40k"). */
function unsettled(c: Placed, text: string, words: string): boolean {
  const sentence = text.slice(c.sentence.start, c.sentence.end);
  for (const m of sentence.matchAll(CONDITION)) {
    const at = c.sentence.start + m.index;
    const end = at + m[0].length;
    // A condition on an accessorial charge is that charge's ("plus $150 for a second stop if there is one").
    if (at > c.end && CHARGE_WORD.test(words.slice(c.end, at))) continue;
    if (CHARGE_BEFORE.test(words.slice(Math.max(0, at - 24), at))) continue;
    // Terms of the deal (pay, lumper, detention, permits) said with it leave the price firm.
    const said = at > c.end ? words.slice(c.end, end) : words.slice(at, end);
    if (!TERMS.test(said)) return true;
  }
  return false;
}

/** "yes" / "confirmed" / "sí" to our "to confirm: <load> at $X all in?": the amount we asked about. */
function confirmation(text: string, context: ReadingContext, mentions: Mention[]): Offer | null {
  if (context.confirm_amount === null || !ASSENT.test(text)) return null;
  // "yes but pickup thursday not wednesday": a yes for another day.
  const otherLoad = mentions.some((m) => m.kind !== 'day' && m.target === 'other');
  if (!otherLoad && mentions.some((m) => m.day === 'other')) return null;
  return { ...NONE, rate: context.confirm_amount, rate_basis: 'all_in', confidence: 1 };
}

/** Within half to two and a half times the posted rate (any load-sized amount when none was said). */
function inPriceRange(value: number | null, posted: number | null): boolean {
  if (value === null) return false;
  return posted ? value >= posted * 0.5 && value <= posted * 2.5 : value >= 300 && value <= 20_000;
}
