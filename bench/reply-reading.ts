// `npm run bench -- reply-reading`: the reply reader against the labelled corpus of carrier
// replies (test/fixtures/carrier-replies.json), each reply read in its own context: per-field and
// per-category accuracy, held out against tuned on, wrong amounts, and how many replies a second it
// reads. No database. BENCH_SMOKE=1 reads the corpus a few times only.
import { performance } from 'node:perf_hooks';
import { readReply } from '../src/modules/agent/reply-reading.js';
import {
  contextOf,
  FIELDS,
  readCorpus,
  scoreCorpus,
  scoreTable,
  type Tally,
} from '../test/helpers/reply-corpus.js';
import { sized, smoke } from './lib/harness.js';
import { type Figure, recordResults } from './lib/results.js';

export async function run() {
  const corpus = readCorpus();
  const score = scoreCorpus(corpus, readReply);
  console.log(
    `reply reading: ${score.total} labelled replies (${corpus.replies.filter((r) => r.channel === 'email').length} e-mail, ${corpus.replies.filter((r) => r.channel === 'whatsapp').length} WhatsApp)\n`,
  );
  console.log(scoreTable(score));
  for (const miss of score.misses) {
    console.log(
      `  miss ${miss.id}${miss.heldOut ? '*' : ''} ${miss.field}: ${JSON.stringify(miss.text).slice(0, 80)} expected ${JSON.stringify(miss.expected)}, read ${JSON.stringify(miss.got)}`,
    );
  }

  // Throughput: every reply of the corpus in its context, `passes` times over, after a warm-up pass.
  const passes = sized('BENCH_REPLY_PASSES', 200, 3);
  const replies = corpus.replies.map((r) => ({ text: r.text, context: contextOf(corpus, r) }));
  for (const { text, context } of replies) readReply(text, context);
  const started = performance.now();
  let read = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (const { text, context } of replies) {
      readReply(text, context);
      read += 1;
    }
  }
  const ms = performance.now() - started;
  const chars = replies.reduce((sum, r) => sum + r.text.length, 0) / replies.length;
  console.log(
    `\nthroughput: ${read} replies in ${ms.toFixed(0)} ms: ${Math.round((read / ms) * 1000).toLocaleString('en-US')} replies/s, ${((ms / read) * 1000).toFixed(0)} µs per reply (mean ${chars.toFixed(0)} characters)${smoke ? ' [smoke: figures mean nothing]' : ''}`,
  );
  const percent = (right: number, t: Tally): Figure['value'] => (100 * right) / t.total;
  await recordResults('reply-reading', [
    ...FIELDS.flatMap((f) => [
      { name: `${f}, all ${score.total}`, value: percent(score.right[f], score), unit: '%', target: '≥ 97' },
      { name: `${f}, held out`, value: percent(score.heldOut.right[f], score.heldOut), unit: '%' },
    ]),
    { name: `every field right, all ${score.total}`, value: percent(score.allRight, score), unit: '%' },
    { name: 'every field right, held out', value: percent(score.heldOut.allRight, score.heldOut), unit: '%' },
    { name: 'replies read as a wrong firm amount', value: score.wrongAmounts.length, unit: '', target: '0' },
    { name: 'throughput', value: Math.round((read / ms) * 1000), unit: 'replies/s' },
  ]);
  if (score.wrongAmounts.length > 0) {
    throw new Error(`${score.wrongAmounts.length} replies read as a wrong amount`);
  }
}
