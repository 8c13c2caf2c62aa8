import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CONFIRM_BELOW, type Reading, type ReadingContext } from '../../src/modules/agent/reply-reading.js';

/** What our last message to the carrier said: the load a reply is read for, and the other loads offered with it. */
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const corpusContext = z.object({
  load_number: z.string().min(1),
  pickup_date: isoDate,
  /** The rate our message said. */
  posted_rate: z.number().positive(),
  /** Our last counter-offer to this carrier, if any. */
  our_counter: z.number().positive().nullable(),
  /** Set when our last message was "to confirm: <load> at $X all in?". */
  confirm_amount: z.number().positive().nullable(),
  /** Miles, for per-mile quotes. */
  distance: z.number().positive(),
  other_loads: z.array(
    z.object({ load_number: z.string().min(1), pickup_date: isoDate, posted_rate: z.number().positive() }),
  ),
});
export type CorpusContext = z.infer<typeof corpusContext>;

export const CATEGORIES = [
  'quote_plain',
  'shorthand',
  'per_mile',
  'texting',
  'echo_ours',
  'other_load_or_date',
  'range_or_conditional',
  'multi_price',
  'accessorials',
  'quoted_thread',
  'confirmation',
  'decline',
  'question',
  'stop_request',
  'spanish',
  'no_price',
] as const;
export type Category = (typeof CATEGORIES)[number];

const REASONS = [
  'no_capacity',
  'lane',
  'hours',
  'rate',
  'declined',
  'timing',
  'equipment',
  'opt_out',
  'wrong_contact',
] as const;
const TOPICS = [
  'weight',
  'commodity',
  'stops',
  'drop_and_hook',
  'pickup_time',
  'delivery_time',
  'appointment',
  'rate',
  'payment_terms',
  'tarps',
  'still_open',
  'hazmat',
  'unloading',
  'temperature',
  'equipment',
  'location',
  'miles',
  'details',
  'shipper',
] as const;

/** One hand-labelled carrier reply of test/fixtures/carrier-replies.json (the labelling rules are its description). */
const corpusReply = z.object({
  id: z.string().regex(/^r\d{3,}$/),
  channel: z.enum(['email', 'whatsapp']),
  language: z.enum(['en', 'es']),
  /** A key of the corpus's contexts: the load this reply is read for. */
  context: z.string(),
  categories: z.array(z.enum(CATEGORIES)).min(1),
  text: z.string().min(1),
  /** The carrier's firm line-haul price for the context's load (a per-mile rate times its distance), else null. */
  rate: z.number().positive().nullable(),
  /** A price for the context's load that is not firm (a range, a condition, two alternatives): the amount to confirm. */
  tentative_rate: z.number().positive().nullable(),
  availability: z.enum(['available', 'not_available', 'unknown']),
  reason: z.enum(REASONS).nullable(),
  stop: z.boolean(),
  questions: z.array(z.enum(TOPICS)),
  /** Written and labelled after the first rules were tuned on the rest (the first fixture's last 60). */
  held_out: z.boolean().optional(),
});
export type CorpusReply = z.infer<typeof corpusReply>;

const corpusSchema = z
  .object({
    description: z.array(z.string()),
    contexts: z.record(z.string(), corpusContext),
    replies: z.array(corpusReply),
  })
  .superRefine((corpus, ctx) => {
    const ids = new Set<string>();
    corpus.replies.forEach((r, i) => {
      const issue = (message: string) =>
        ctx.addIssue({ code: 'custom', path: ['replies', i], message: `${r.id}: ${message}` });
      if (ids.has(r.id)) issue('duplicate id');
      ids.add(r.id);
      if (!(r.context in corpus.contexts)) issue(`unknown context ${r.context}`);
      if (r.rate !== null && r.tentative_rate !== null) issue('both rate and tentative_rate');
      if ((r.reason === null) !== (r.availability !== 'not_available'))
        issue('reason set exactly when not_available');
      if (r.stop && r.availability !== 'not_available') issue('a stop request is not_available');
    });
  });
export type Corpus = z.infer<typeof corpusSchema>;

/** The context a reply is read for, as the fixture gives it (the schema checks that it exists). */
export function contextOf(corpus: Corpus, reply: CorpusReply): CorpusContext {
  const context = corpus.contexts[reply.context];
  if (context === undefined) throw new Error(`${reply.id}: unknown context ${reply.context}`);
  return context;
}

type Lane = { origin: string | null; destination: string | null };
const PLACE = String.raw`([A-Z][\p{L} .'-]*?, [A-Z]{2})`;

/**
 * Each load's lane, as our messages named it: the fixture's contexts leave it out, but the quoted
 * threads of the corpus show our messages ("PL-4821: Elk Grove Village, IL to Dallas, TX", "77120
 * to Nashville, TN"), and the agent knows its loads' lanes when it reads a reply.
 */
export function lanesOf(corpus: Corpus): Map<string, Lane> {
  const lanes = new Map<string, Lane>();
  const numbers = new Set(
    Object.values(corpus.contexts).flatMap((c) => [
      c.load_number,
      ...c.other_loads.map((o) => o.load_number),
    ]),
  );
  for (const number of numbers) {
    const at = String.raw`(?<![\w-])${number}\)?:?\s*\(?`;
    const full = new RegExp(`${at}${PLACE}\\s*(?:to|>)\\s*${PLACE}`, 'u');
    const toOnly = new RegExp(`${at}to ${PLACE}`, 'u');
    for (const reply of corpus.replies) {
      const lane = full.exec(reply.text);
      const dest = lane ? null : toOnly.exec(reply.text);
      if (lane) lanes.set(number, { origin: lane[1] ?? null, destination: lane[2] ?? null });
      else if (dest && !lanes.has(number)) lanes.set(number, { origin: null, destination: dest[1] ?? null });
      if (lane) break;
    }
  }
  return lanes;
}

/** The context a reply is read in: the fixture's, with each load's lane as our messages named it. */
export function readingContextOf(
  corpus: Corpus,
  reply: CorpusReply,
  lanes = lanesOf(corpus),
): ReadingContext {
  const context = contextOf(corpus, reply);
  const lane = (n: string): Lane => lanes.get(n) ?? { origin: null, destination: null };
  return {
    ...context,
    ...lane(context.load_number),
    other_loads: context.other_loads.map((o) => ({ ...o, ...lane(o.load_number) })),
  };
}

/** Held out from tuning: the replies whose id number is divisible by 5. */
export const isHeldOut = (reply: Pick<CorpusReply, 'id'>) => Number(reply.id.slice(1)) % 5 === 0;

const here = path.dirname(fileURLToPath(import.meta.url));

export function readCorpus(): Corpus {
  return corpusSchema.parse(
    JSON.parse(readFileSync(path.join(here, '../fixtures/carrier-replies.json'), 'utf8')),
  );
}

export const FIELDS = ['rate', 'tentative_rate', 'availability', 'reason', 'stop', 'question'] as const;
export type Field = (typeof FIELDS)[number];

export interface Miss {
  id: string;
  field: Field;
  text: string;
  expected: unknown;
  got: unknown;
  heldOut: boolean;
}

/** Right answers per field over a set of replies. */
export interface Tally {
  total: number;
  right: Record<Field, number>;
  /** Replies with every field right. */
  allRight: number;
}

export interface Score extends Tally {
  accuracy: Record<Field, number>;
  /** Replies read as a firm amount that is not the carrier's price for the load: must be none. */
  wrongAmounts: Miss[];
  /** Rates read with confidence at or above CONFIRM_BELOW that are wrong: must be none. */
  sureButWrong: Miss[];
  /** Rates read with confidence at or above CONFIRM_BELOW. */
  sure: number;
  misses: Miss[];
  heldOut: Tally;
  tuned: Tally;
  byCategory: Record<Category, Tally>;
}

const availabilityOf = (r: Reading) =>
  r.available === true ? 'available' : r.available === false ? 'not_available' : 'unknown';
const sameTopics = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
const emptyTally = (): Tally => ({
  total: 0,
  right: { rate: 0, tentative_rate: 0, availability: 0, reason: 0, stop: 0, question: 0 },
  allRight: 0,
});

/**
 * Reads every reply of the corpus with `read`, in its context (with the loads' lanes unless
 * `withLanes` is false), and compares each field with its label.
 */
export function scoreCorpus(
  corpus: Corpus,
  read: (text: string, context: ReadingContext) => Reading,
  { withLanes = true } = {},
): Score {
  const lanes = withLanes ? lanesOf(corpus) : new Map<string, Lane>();
  const all = emptyTally();
  const heldOut = emptyTally();
  const tuned = emptyTally();
  // Filled for every category below.
  const byCategory = Object.fromEntries(CATEGORIES.map((c) => [c, emptyTally()])) as Record<Category, Tally>;
  const misses: Miss[] = [];
  const wrongAmounts: Miss[] = [];
  const sureButWrong: Miss[] = [];
  let sure = 0;
  for (const reply of corpus.replies) {
    const got = read(reply.text, readingContextOf(corpus, reply, lanes));
    const held = isHeldOut(reply);
    const checks: Record<Field, [unknown, unknown, boolean]> = {
      rate: [reply.rate, got.rate, got.rate === reply.rate],
      tentative_rate: [reply.tentative_rate, got.tentative_rate, got.tentative_rate === reply.tentative_rate],
      availability: [reply.availability, availabilityOf(got), availabilityOf(got) === reply.availability],
      reason: [reply.reason, got.unavailable_reason, (got.unavailable_reason ?? null) === reply.reason],
      stop: [reply.stop, got.stop_contact, got.stop_contact === reply.stop],
      question: [reply.questions, got.questions, sameTopics(got.questions, reply.questions)],
    };
    const tallies = [all, held ? heldOut : tuned, ...reply.categories.map((c) => byCategory[c])];
    let every = true;
    for (const field of FIELDS) {
      const [expected, value, ok] = checks[field];
      if (ok) for (const t of tallies) t.right[field] += 1;
      else {
        every = false;
        misses.push({ id: reply.id, field, text: reply.text, expected, got: value, heldOut: held });
      }
    }
    for (const t of tallies) {
      t.total += 1;
      if (every) t.allRight += 1;
    }
    const wrong = {
      id: reply.id,
      field: 'rate' as const,
      text: reply.text,
      expected: reply.rate,
      got: got.rate,
      heldOut: held,
    };
    if (got.rate !== null && got.rate !== reply.rate) wrongAmounts.push(wrong);
    if (got.rate !== null && got.confidence >= CONFIRM_BELOW) {
      sure += 1;
      if (got.rate !== reply.rate) sureButWrong.push(wrong);
    }
  }
  // Object.fromEntries over FIELDS: the record has each field.
  const accuracy = Object.fromEntries(FIELDS.map((f) => [f, all.right[f] / all.total])) as Record<
    Field,
    number
  >;
  return { ...all, accuracy, wrongAmounts, sureButWrong, sure, misses, heldOut, tuned, byCategory };
}

const pct = (right: number, total: number) =>
  total === 0 ? '    -' : `${((right / total) * 100).toFixed(1).padStart(5)}%`;

/** The per-field table (all, tuned on, held out) and the per-category one, as the test and the benchmark print them. */
export function scoreTable(score: Score): string {
  const parts: Array<[string, Tally]> = [
    ['all', score],
    ['tuned on', score.tuned],
    ['held out', score.heldOut],
  ];
  const fieldRows = FIELDS.map(
    (f) =>
      `| ${f.padEnd(14)} | ${parts.map(([, t]) => `${String(t.right[f]).padStart(3)}/${t.total} ${pct(t.right[f], t.total)}`).join(' | ')} |`,
  );
  const categoryRows = CATEGORIES.map((c) => {
    const t = score.byCategory[c];
    const cells = (['rate', 'tentative_rate', 'availability'] as const).map((f) => pct(t.right[f], t.total));
    return `| ${c.padEnd(20)} | ${String(t.total).padStart(3)} | ${cells.join(' | ')} | ${pct(t.allRight, t.total)} |`;
  });
  return [
    `| field          | ${parts.map(([name]) => name.padEnd(14)).join(' | ')} |`,
    ...fieldRows,
    `| all fields     | ${parts.map(([, t]) => `${String(t.allRight).padStart(3)}/${t.total} ${pct(t.allRight, t.total)}`).join(' | ')} |`,
    '',
    '| category             |   n |   rate | tentat | avail. | all    |',
    ...categoryRows,
    '',
    `wrong amounts (a firm rate that is not the carrier's price for the load): ${score.wrongAmounts.length}`,
    ...score.wrongAmounts.map(
      (m) =>
        `  ${m.id}${m.heldOut ? ' (held out)' : ''}: read ${m.got}, label ${m.expected}: ${JSON.stringify(m.text).slice(0, 100)}`,
    ),
    `rates read with confidence >= ${CONFIRM_BELOW}: ${score.sure}, of them wrong: ${score.sureButWrong.length}`,
  ].join('\n');
}
