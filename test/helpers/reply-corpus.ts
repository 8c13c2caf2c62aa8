import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ReplyUnderstanding } from '../../src/modules/agent/reply-understanding.js';

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
export type Corpus = z.infer<typeof corpusSchema> & {
  /**
   * @deprecated The first fixture's single load (context `legacy`), kept so that older callers compile.
   * Each reply has its own context now: read it with `contextOf(corpus, reply)`.
   */
  load: { distance: number; posted_rate: number };
};

/** The context a reply is read for (the schema checks that it exists). */
export function contextOf(corpus: Corpus, reply: CorpusReply): CorpusContext {
  const context = corpus.contexts[reply.context];
  if (context === undefined) throw new Error(`${reply.id}: unknown context ${reply.context}`);
  return context;
}

const here = path.dirname(fileURLToPath(import.meta.url));

export function readCorpus(): Corpus {
  const corpus = corpusSchema.parse(
    JSON.parse(readFileSync(path.join(here, '../fixtures/carrier-replies.json'), 'utf8')),
  );
  const legacy = corpus.contexts.legacy;
  if (legacy === undefined) throw new Error('carrier-replies.json: no context "legacy"');
  return { ...corpus, load: { distance: legacy.distance, posted_rate: legacy.posted_rate } };
}

export const FIELDS = ['rate', 'availability', 'reason', 'stop', 'question'] as const;
export type Field = (typeof FIELDS)[number];

export interface Miss {
  id: string;
  field: Field;
  text: string;
  expected: unknown;
  got: unknown;
}

export interface Score {
  total: number;
  right: Record<Field, number>;
  accuracy: Record<Field, number>;
  /** Replies read as an amount that is not the carrier's line-haul price: must be none. */
  wrongAmounts: Miss[];
  misses: Miss[];
  /** Replies with every field right. */
  allRight: number;
}

const availabilityOf = (r: ReplyUnderstanding) =>
  r.available === true ? 'available' : r.available === false ? 'not_available' : 'unknown';
const sameTopics = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** Reads every reply of the corpus with `read` and compares each field with its label. */
export function scoreCorpus(
  corpus: Corpus,
  read: (text: string, distance: number) => ReplyUnderstanding,
): Score {
  const right = { rate: 0, availability: 0, reason: 0, stop: 0, question: 0 };
  const misses: Miss[] = [];
  const wrongAmounts: Miss[] = [];
  let allRight = 0;
  for (const reply of corpus.replies) {
    const got = read(reply.text, contextOf(corpus, reply).distance);
    const checks: Record<Field, [unknown, unknown, boolean]> = {
      rate: [reply.rate, got.rate, got.rate === reply.rate],
      availability: [reply.availability, availabilityOf(got), availabilityOf(got) === reply.availability],
      reason: [reply.reason, got.unavailable_reason, (got.unavailable_reason ?? null) === reply.reason],
      stop: [reply.stop, got.stop_contact, got.stop_contact === reply.stop],
      question: [reply.questions, got.questions, sameTopics(got.questions, reply.questions)],
    };
    let every = true;
    for (const field of FIELDS) {
      const [expected, value, ok] = checks[field];
      if (ok) right[field] += 1;
      else {
        every = false;
        misses.push({ id: reply.id, field, text: reply.text, expected, got: value });
      }
    }
    if (every) allRight += 1;
    if (got.rate !== null && got.rate !== reply.rate) {
      wrongAmounts.push({
        id: reply.id,
        field: 'rate',
        text: reply.text,
        expected: reply.rate,
        got: got.rate,
      });
    }
  }
  const total = corpus.replies.length;
  // Object.fromEntries over FIELDS: the record has each field.
  const accuracy = Object.fromEntries(FIELDS.map((f) => [f, right[f] / total])) as Record<Field, number>;
  return { total, right, accuracy, wrongAmounts, misses, allRight };
}

/** The per-field table, as the test and the benchmark print it. */
export function scoreTable(score: Score): string {
  const rows = FIELDS.map(
    (f) =>
      `| ${f.padEnd(12)} | ${String(score.right[f]).padStart(3)} / ${score.total} | ${(score.accuracy[f] * 100).toFixed(1).padStart(5)}% |`,
  );
  return [
    '| field        | right     | accuracy |',
    '|--------------|-----------|----------|',
    ...rows,
    `| all fields   | ${String(score.allRight).padStart(3)} / ${score.total} | ${((score.allRight / score.total) * 100).toFixed(1).padStart(5)}% |`,
    '',
    `wrong amounts (read as a price that is not the line haul): ${score.wrongAmounts.length}`,
  ].join('\n');
}
