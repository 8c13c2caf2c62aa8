// `npm run bench -- reply-reading`: the reply reader against the labelled corpus of carrier
// replies (test/fixtures/carrier-replies.json): per-field accuracy, wrong amounts, and how many
// replies a second it reads. No database. BENCH_SMOKE=1 reads the corpus a few times only.
import { performance } from 'node:perf_hooks';
import { understandReply } from '../src/modules/agent/reply-understanding.js';
import { readCorpus, scoreCorpus, scoreTable } from '../test/helpers/reply-corpus.js';
import { sized, smoke } from './lib/harness.js';

export async function run() {
  const corpus = readCorpus();
  const score = scoreCorpus(corpus, (text, distance) => understandReply(text, { distance }));
  console.log(
    `reply reading: ${score.total} labelled replies (${corpus.replies.filter((r) => r.channel === 'email').length} e-mail, ${corpus.replies.filter((r) => r.channel === 'whatsapp').length} WhatsApp)\n`,
  );
  console.log(scoreTable(score));
  for (const miss of score.misses) {
    console.log(
      `  miss ${miss.id} ${miss.field}: ${JSON.stringify(miss.text).slice(0, 80)} expected ${JSON.stringify(miss.expected)}, read ${JSON.stringify(miss.got)}`,
    );
  }

  // Throughput: every reply of the corpus, `passes` times over, after a warm-up pass.
  const passes = sized('BENCH_REPLY_PASSES', 200, 3);
  const texts = corpus.replies.map((r) => r.text);
  for (const text of texts) understandReply(text, { distance: corpus.load.distance });
  const started = performance.now();
  let read = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (const text of texts) {
      understandReply(text, { distance: corpus.load.distance });
      read += 1;
    }
  }
  const ms = performance.now() - started;
  const chars = texts.reduce((sum, t) => sum + t.length, 0) / texts.length;
  console.log(
    `\nthroughput: ${read} replies in ${ms.toFixed(0)} ms: ${Math.round((read / ms) * 1000).toLocaleString('en-US')} replies/s, ${((ms / read) * 1000).toFixed(0)} µs per reply (mean ${chars.toFixed(0)} characters)${smoke ? ' [smoke: figures mean nothing]' : ''}`,
  );
  if (score.wrongAmounts.length > 0) {
    throw new Error(`${score.wrongAmounts.length} replies read as a wrong amount`);
  }
}
