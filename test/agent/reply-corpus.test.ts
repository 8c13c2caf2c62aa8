import { describe, expect, it } from 'vitest';
import { understandReply } from '../../src/modules/agent/reply-understanding.js';
import { FIELDS, readCorpus, scoreCorpus, scoreTable } from '../helpers/reply-corpus.js';

// The reader against the hand-labelled corpus of carrier replies (test/fixtures/carrier-replies.json):
// each field at least 97% right, and not one reply read as an amount that is not the carrier's
// line-haul price (a missed price costs a question; a wrong one costs money).
describe('reply reading on the labelled corpus', () => {
  const corpus = readCorpus();
  const score = scoreCorpus(corpus, (text, distance) => understandReply(text, { distance }));

  it('holds at least 200 replies from both channels, with every label filled in', () => {
    expect(corpus.replies.length).toBeGreaterThanOrEqual(200);
    expect(corpus.replies.filter((r) => r.channel === 'email').length).toBeGreaterThanOrEqual(40);
    expect(corpus.replies.filter((r) => r.channel === 'whatsapp').length).toBeGreaterThanOrEqual(40);
    expect(new Set(corpus.replies.map((r) => r.id)).size).toBe(corpus.replies.length);
    for (const r of corpus.replies) {
      expect(['available', 'not_available', 'unknown']).toContain(r.availability);
      expect(r.reason === null).toBe(r.availability !== 'not_available');
      expect(typeof r.stop).toBe('boolean');
      expect(Array.isArray(r.questions)).toBe(true);
    }
  });

  it('reads each field at least 97% right and never a wrong amount', () => {
    console.log(`\nReply reading, ${score.total} labelled replies\n${scoreTable(score)}`);
    for (const miss of score.misses) {
      console.log(
        `  miss ${miss.id} ${miss.field}: ${JSON.stringify(miss.text).slice(0, 90)} expected ${JSON.stringify(miss.expected)}, read ${JSON.stringify(miss.got)}`,
      );
    }
    expect(score.wrongAmounts).toEqual([]);
    for (const field of FIELDS) expect(score.accuracy[field], field).toBeGreaterThanOrEqual(0.97);
  });

  it('scores a wrong amount as one (the check can fail)', () => {
    const misread = scoreCorpus(corpus, (text, distance) => {
      const read = understandReply(text, { distance });
      return text.startsWith('TONU $150') ? { ...read, rate: 150 } : read;
    });
    expect(misread.wrongAmounts.map((m) => m.got)).toEqual([150]);
    expect(misread.right.rate).toBe(score.right.rate - 1);
  });
});
