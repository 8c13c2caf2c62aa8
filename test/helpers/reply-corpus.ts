import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { ReplyUnderstanding } from '../../src/modules/agent/reply-understanding.js';

/** One hand-labelled carrier reply of test/fixtures/carrier-replies.json. */
const corpusReply = z.object({
  id: z.string(),
  channel: z.enum(['email', 'whatsapp']),
  text: z.string(),
  /** The carrier's line-haul price for the load (a per-mile rate times the corpus distance), else null. */
  rate: z.number().nullable(),
  availability: z.enum(['available', 'not_available', 'unknown']),
  reason: z.string().nullable(),
  stop: z.boolean(),
  questions: z.array(z.string()),
});
export type CorpusReply = z.infer<typeof corpusReply>;

const corpusSchema = z.object({
  load: z.object({ distance: z.number(), posted_rate: z.number() }),
  replies: z.array(corpusReply),
});
export type Corpus = z.infer<typeof corpusSchema>;

const here = path.dirname(fileURLToPath(import.meta.url));

export function readCorpus(): Corpus {
  return corpusSchema.parse(
    JSON.parse(readFileSync(path.join(here, '../fixtures/carrier-replies.json'), 'utf8')),
  );
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
    const got = read(reply.text, corpus.load.distance);
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
