import { describe, expect, it } from 'vitest';
import { readReply } from '../../src/modules/agent/reply-reading.js';
import {
  FIELDS,
  type Field,
  isHeldOut,
  readCorpus,
  scoreCorpus,
  scoreTable,
} from '../helpers/reply-corpus.js';

const PRICE_FIELDS: readonly Field[] = ['rate', 'tentative_rate'];

// The reader against the hand-labelled corpus of carrier replies (test/fixtures/carrier-replies.json),
// each reply read in its own context: each field at least 97% right, and not one reply read as a
// firm amount that is not the carrier's price for the load (a missed price costs a question; a
// wrong one costs money). Replies whose id number is divisible by 5 are held out from tuning; the
// price fields must meet the bar on them as well.
describe('reply reading on the labelled corpus', () => {
  const corpus = readCorpus();
  const score = scoreCorpus(corpus, readReply);

  it('holds at least 200 replies from both channels, with every label filled in', () => {
    expect(corpus.replies.length).toBeGreaterThanOrEqual(200);
    expect(corpus.replies.filter((r) => r.channel === 'email').length).toBeGreaterThanOrEqual(40);
    expect(corpus.replies.filter((r) => r.channel === 'whatsapp').length).toBeGreaterThanOrEqual(40);
    expect(corpus.replies.filter(isHeldOut).length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.replies.map((r) => r.id)).size).toBe(corpus.replies.length);
    for (const r of corpus.replies) {
      expect(['available', 'not_available', 'unknown']).toContain(r.availability);
      expect(r.reason === null).toBe(r.availability !== 'not_available');
      expect(typeof r.stop).toBe('boolean');
      expect(Array.isArray(r.questions)).toBe(true);
    }
  });

  it('never reads a wrong amount, nor a wrong rate it is sure of', () => {
    console.log(`\nReply reading, ${score.total} labelled replies\n${scoreTable(score)}`);
    expect(score.wrongAmounts).toEqual([]);
    expect(score.sureButWrong).toEqual([]);
  });

  it('reads the price fields at least 97% right, on the held-out replies too', () => {
    for (const miss of score.misses) {
      console.log(
        `  miss ${miss.id}${miss.heldOut ? '*' : ''} ${miss.field}: ${JSON.stringify(miss.text).slice(0, 90)} expected ${JSON.stringify(miss.expected)}, read ${JSON.stringify(miss.got)}`,
      );
    }
    for (const field of PRICE_FIELDS) {
      expect(score.accuracy[field], field).toBeGreaterThanOrEqual(0.97);
      expect(score.heldOut.right[field] / score.heldOut.total, `${field}, held out`).toBeGreaterThanOrEqual(
        0.97,
      );
    }
  });

  it('reads availability, reason, stop and questions at least 97% right', () => {
    for (const field of FIELDS.filter((f) => !PRICE_FIELDS.includes(f))) {
      expect(score.accuracy[field], field).toBeGreaterThanOrEqual(0.97);
    }
  });

  it('scores a wrong amount as one (the check can fail)', () => {
    const misread = scoreCorpus(corpus, (text, context) => {
      const read = readReply(text, context);
      return text.startsWith('TONU $150') ? { ...read, rate: 150, confidence: 1 } : read;
    });
    expect(misread.wrongAmounts.map((m) => m.got)).toEqual([150]);
    expect(misread.sureButWrong.map((m) => m.got)).toEqual([150]);
    expect(misread.right.rate).toBe(score.right.rate - 1);
  });
});
