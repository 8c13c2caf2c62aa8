import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  amountOf,
  type CarrierSaid,
  type Conversation,
  type Decision,
  decide,
  NEW_CONVERSATION,
  type NegotiationInput,
  replyText,
} from '../../src/domain/negotiation.js';
import {
  boundsOf,
  DEFAULT_NEGOTIATION_POLICY,
  type LoadNumbers,
  type NegotiationPolicy,
  scheduleTop,
} from '../../src/domain/negotiation-policy.js';
import { defined } from '../../src/lib/defined.js';

// Properties of the one negotiation decision, over random loads, policies and carriers' replies
// (fast-check, 1,000 runs each). Each run plays one conversation from the start.

const RUNS = { numRuns: 1000 };
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T12:00:00Z');

const scheduleArb = fc.uniqueArray(fc.integer({ min: 1, max: 240 }), { maxLength: 4 }).chain((hours) =>
  fc
    .array(fc.double({ min: 0, max: 12, noNaN: true }), {
      minLength: hours.length + 1,
      maxLength: hours.length + 1,
    })
    .map((increments) => {
      // Most hours first; the allowance only grows as pickup nears.
      const sorted = [...hours, 0].sort((a, b) => b - a);
      let pct = 0;
      return sorted.map((h, i) => {
        pct = Math.min(100, pct + defined(increments[i], 'increments[i]'));
        return { min_hours_to_pickup: h, max_concession_pct: pct };
      });
    }),
);

const policyArb: fc.Arbitrary<NegotiationPolicy> = fc.record({
  strategy: fc.constant('concede' as const),
  target_basis: fc.constantFrom('posted_rate' as const, 'suggested_market_rate' as const),
  opening_ask_pct: fc.integer({ min: 50, max: 100 }),
  max_rounds: fc.integer({ min: 1, max: 6 }),
  concession_schedule: scheduleArb,
  best_and_final: fc.boolean(),
  auto_accept_at_or_under_ask: fc.boolean(),
  round_to: fc.constantFrom(1, 5, 25, 50, 100),
});

interface Scenario {
  policy: NegotiationPolicy;
  autoPosted: boolean;
  passed: boolean;
  load: LoadNumbers;
  /** Each reply with the minutes since the previous one. */
  replies: { said: CarrierSaid; after: number }[];
}

/** A reply: an offer somewhere around the load's numbers, a repeat of the last one, a no, or no rate. */
const saidArb = (base: number): fc.Arbitrary<CarrierSaid | 'repeat'> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          amount: fc.integer({ min: Math.floor(base * 0.6), max: Math.ceil(base * 2.2) }),
          confirmed: fc.boolean(),
        })
        .map(({ amount, confirmed }) => ({
          kind: 'offer' as const,
          amount,
          ...(confirmed ? { confirmed } : {}),
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: Math.floor(base * 0.6), max: Math.ceil(base * 2.2) })
        .map((amount) => ({ kind: 'tentative' as const, amount })),
    },
    { weight: 2, arbitrary: fc.constant('repeat' as const) },
    { weight: 1, arbitrary: fc.constant({ kind: 'declined' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'no_rate' as const }) },
  );

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    policy: policyArb,
    autoPosted: fc.boolean(),
    passed: fc.boolean(),
    posted: fc.option(fc.integer({ min: 400, max: 8000 }), { freq: 12 }),
    ceilingPct: fc.option(fc.integer({ min: 70, max: 180 }), { freq: 12 }),
    marketPct: fc.option(fc.integer({ min: 70, max: 150 }), { freq: 2 }),
    pickupHours: fc.option(fc.integer({ min: -48, max: 400 }), { freq: 8 }),
  })
  .chain((r) => {
    const base = r.posted ?? 2000;
    const load: LoadNumbers = {
      posted: r.posted,
      ceiling: r.ceilingPct === null ? null : Math.round((base * r.ceilingPct) / 100),
      market: r.marketPct === null ? null : Math.round((base * r.marketPct) / 100),
      pickupAt: r.pickupHours === null ? null : new Date(T0 + r.pickupHours * HOUR),
    };
    return fc
      .array(fc.record({ said: saidArb(base), after: fc.integer({ min: 0, max: 600 }) }), {
        minLength: 1,
        maxLength: 14,
      })
      .map((raw) => {
        let last: CarrierSaid = { kind: 'offer', amount: base };
        const replies = raw.map(({ said, after }) => {
          const s = said === 'repeat' ? last : said;
          if (s.kind === 'offer') last = s;
          return { said: s, after };
        });
        return { policy: r.policy, autoPosted: r.autoPosted, passed: r.passed, load, replies };
      });
  });

interface Played {
  input: NegotiationInput;
  decision: Decision;
  after: Conversation;
}

/** Plays the conversation: each reply decided from the state the last one left. */
function play(s: Scenario, load: LoadNumbers = s.load): Played[] {
  let conversation = NEW_CONVERSATION;
  let now = T0;
  const out: Played[] = [];
  for (const r of s.replies) {
    now += r.after * 60_000;
    const input: NegotiationInput = {
      policy: s.policy,
      autoAcceptAtOrUnderPostedRate: s.autoPosted,
      load,
      carrierCompliancePassed: s.passed,
      now: new Date(now),
      conversation,
      said: r.said,
    };
    const step = decide(input);
    out.push({ input, decision: step.decision, after: step.conversation });
    conversation = step.conversation;
  }
  return out;
}

const SUMMARY = {
  load_number: 'LN-1',
  equipment_type: 'VAN',
  origin: 'Chicago, IL',
  destination: 'Dallas, TX',
  pickup_date: null,
  posted_rate: 2000,
};
const wording = (d: Decision) => replyText(d.kind, SUMMARY, 'there', amountOf(d));
const stated = (d: Decision) => (d.kind === 'counter' || d.kind === 'final' ? d.amount : null);

describe('the negotiation decision (property tests)', () => {
  it('never books, accepts or counters above the ceiling', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        for (const p of play(s)) {
          const { ceiling } = s.load;
          if (p.decision.kind === 'accept' && ceiling !== null)
            expect(p.decision.amount).toBeLessThanOrEqual(ceiling);
          const said = stated(p.decision);
          if (said !== null && ceiling !== null) expect(said).toBeLessThanOrEqual(ceiling);
          expect(p.decision.kind).not.toBe('decline');
        }
      }),
      RUNS,
    );
  });

  it('books only an amount the carrier confirmed, and never counters or takes one that is not firm', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        for (const p of play(s)) {
          const said = p.input.said;
          // Confirmed, or the agent's own number (its posted rate, its last counter) said back.
          const own =
            said.kind === 'offer' &&
            (said.amount === s.load.posted || said.amount === p.input.conversation.lastCounter);
          if (p.decision.kind === 'accept')
            expect(said.kind === 'offer' && (said.confirmed || own)).toBe(true);
          if (said.kind === 'tentative') {
            expect(p.decision).toEqual({ kind: 'confirm', amount: said.amount });
            expect(p.after.lastOffer).toBe(p.input.conversation.lastOffer);
          }
        }
      }),
      RUNS,
    );
  });

  it('books automatically only a PASSED carrier, and only where the organization allows it', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        for (const p of play(s)) {
          if (p.decision.kind !== 'accept') continue;
          expect(s.passed).toBe(true);
          expect(s.autoPosted || s.policy.auto_accept_at_or_under_ask).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('never counters above an amount the carrier offered, and counters only move toward the carrier', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let lowest = Number.POSITIVE_INFINITY;
        let lastCounter = Number.NEGATIVE_INFINITY;
        for (const p of play(s)) {
          if (p.input.said.kind === 'offer') lowest = Math.min(lowest, p.input.said.amount);
          const said = stated(p.decision);
          if (said === null) continue;
          expect(said).toBeLessThan(lowest);
          expect(said).toBeGreaterThanOrEqual(lastCounter);
          lastCounter = said;
        }
      }),
      RUNS,
    );
  });

  it('gives a repeated offer the same answer, however long the carrier took', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 0, max: 72 * 60 }), (s, later) => {
        for (const p of play(s)) {
          if (p.input.said.kind !== 'offer') continue;
          const again = decide({
            ...p.input,
            conversation: p.after,
            now: new Date(p.input.now.getTime() + later * 60_000),
          });
          expect(again.decision).toEqual(p.decision);
        }
      }),
      RUNS,
    );
  });

  it('asks for a rate only before any was quoted, and never after the carrier declined', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        let quotedOrDeclined = false;
        for (const p of play(s)) {
          if (quotedOrDeclined) expect(p.decision.kind).not.toBe('ask_rate');
          // A price that is not firm is no quote: it is asked to be confirmed.
          const kind = p.input.said.kind;
          if (kind === 'offer' || kind === 'declined') quotedOrDeclined = true;
        }
      }),
      RUNS,
    );
  });

  it('reveals nothing of the ceiling: two ceilings above the schedule hear the same answers, word for word', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        (s, lift, gap) => {
          const top = scheduleTop(s.policy, s.load);
          fc.pre(top !== null);
          const low = { ...s.load, ceiling: defined(top, 'top') + lift };
          const high = { ...s.load, ceiling: defined(top, 'top') + lift + gap };
          const a = play(s, low).map((p) => [p.decision, wording(p.decision)]);
          const b = play(s, high).map((p) => [p.decision, wording(p.decision)]);
          expect(b).toEqual(a);
        },
      ),
      RUNS,
    );
  });

  it('reveals nothing of the ceiling: while it stands above the current ask and the next step, any ceiling gets the same answers', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 1, max: 5000 }), (s, gap) => {
        fc.pre(s.load.ceiling !== null);
        const ceiling = defined(s.load.ceiling, 's.load.ceiling');
        const higher = { ...s.load, ceiling: ceiling + gap };
        const a = play(s);
        const b = play(s, higher);
        for (let i = 0; i < a.length; i++) {
          // Under the higher ceiling: where the agent stood and what it said. Once either reaches the
          // lower ceiling, that ceiling binds the agent's own ask, and the runs may part.
          const p = defined(b[i], 'b[i]');
          const opening = boundsOf(s.policy, higher, p.input.now)?.opening ?? null;
          const standing = p.input.conversation.ask ?? opening;
          if (standing !== null && standing >= ceiling) break;
          const amount = amountOf(p.decision);
          if (amount !== null && amount >= ceiling) break;
          expect(p.decision).toEqual(defined(a[i], 'a[i]').decision);
          expect(wording(p.decision)).toBe(wording(defined(a[i], 'a[i]').decision));
        }
      }),
      RUNS,
    );
  });

  it('answers an offer over the ceiling as it answers one over the current ask under it', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 1, max: 10_000 }), (s, over) => {
        fc.pre(s.load.ceiling !== null);
        const ceiling = defined(s.load.ceiling, 's.load.ceiling');
        for (const p of play(s)) {
          // At the state this reply found, an offer over the ceiling and one exactly at it.
          const at = (amount: number) =>
            decide({ ...p.input, said: { kind: 'offer', amount, confirmed: true } }).decision;
          const lowest = p.input.conversation.lowestOffer;
          const hi = ceiling + over;
          const dHi = at(hi);
          expect(['counter', 'final', 'pass', 'review']).toContain(dHi.kind);
          if (dHi.kind === 'review' && dHi.amount === hi) {
            // A load with no target: every offer waits for a rep, at the carrier's own amount.
            expect(at(ceiling)).toEqual({ kind: 'review', amount: ceiling });
            continue;
          }
          if (dHi.kind === 'review') expect(dHi.amount).toBe(lowest);
          const said = stated(dHi);
          // Under the ceiling there is room over the agent's answer, and both offers stand on the
          // same side of the carrier's lowest so far: the answers are the same, word for word.
          if (said === ceiling) continue;
          const sameSide = lowest === null || hi < lowest === ceiling < lowest;
          if (!sameSide) continue;
          const dMid = at(ceiling);
          // The ceiling itself within what the agent would pay now: it binds the agent's own ask.
          if ((dMid.kind === 'review' || dMid.kind === 'accept') && dMid.amount === ceiling) continue;
          expect(dMid).toEqual(dHi);
          expect(wording(dMid)).toBe(wording(dHi));
          if (dHi.kind !== 'review')
            expect(wording(dHi)).not.toContain(`$${ceiling.toLocaleString('en-US')}`);
        }
      }),
      RUNS,
    );
  });
});

describe('the negotiation decision (examples)', () => {
  const base: Omit<NegotiationInput, 'said' | 'conversation'> = {
    policy: DEFAULT_NEGOTIATION_POLICY,
    autoAcceptAtOrUnderPostedRate: false,
    load: { posted: 2000, ceiling: 2600, market: null, pickupAt: new Date(T0 + 2 * HOUR) },
    carrierCompliancePassed: true,
    now: new Date(T0),
  };
  /** Each amount said firm; `confirmed`: as the carrier's yes to "to confirm: ...?". */
  const run = (amounts: number[], extra: Partial<NegotiationInput> = {}, confirmed = true) => {
    let conversation = NEW_CONVERSATION;
    return amounts.map((amount) => {
      const said = { kind: 'offer' as const, amount, ...(confirmed ? { confirmed } : {}) };
      const step = decide({ ...base, ...extra, conversation, said });
      conversation = step.conversation;
      return step.decision;
    });
  };

  it('counters at the posted rate, concedes by the schedule, says its best and final, then passes', () => {
    // Pickup in two hours: up to 10% of the target (200) over the opening ask of 2,000.
    expect(run([3000, 2800, 2600, 2500, 2450])).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'counter', amount: 2100 },
      { kind: 'final', amount: 2200 },
      { kind: 'pass' },
      { kind: 'pass' },
    ]);
    // Three days out the same carrier hears smaller steps (2%: 40, rounded down to $25).
    const far = { load: { ...base.load, pickupAt: new Date(T0 + 80 * HOUR) } };
    expect(run([3000, 2800, 2600], far)).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'counter', amount: 2000 },
      { kind: 'final', amount: 2025 },
    ]);
  });

  it('takes an offer within its next step, and books it only where allowed for a PASSED carrier', () => {
    expect(run([2400, 2100])).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'review', amount: 2100 },
    ]);
    const policy = { ...DEFAULT_NEGOTIATION_POLICY, auto_accept_at_or_under_ask: true };
    expect(run([2400, 2100], { policy })).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'accept', amount: 2100 },
    ]);
    expect(run([2400, 2100], { policy, carrierCompliancePassed: false })).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'review', amount: 2100 },
    ]);
  });

  it('asks the carrier to confirm an amount it would book, and books only the confirmed amount', () => {
    const policy = { ...DEFAULT_NEGOTIATION_POLICY, auto_accept_at_or_under_ask: true };
    const asked = decide({
      ...base,
      policy,
      conversation: NEW_CONVERSATION,
      said: { kind: 'offer', amount: 1950 },
    });
    expect(asked.decision).toEqual({ kind: 'confirm', amount: 1950 });
    expect(asked.conversation.confirming).toBe(1950);
    const yes = decide({
      ...base,
      policy,
      conversation: asked.conversation,
      said: { kind: 'offer', amount: 1950, confirmed: true },
    });
    expect(yes.decision).toEqual({ kind: 'accept', amount: 1950 });
    expect(yes.conversation.confirming).toBeNull();
    // Without automatic booking a rep decides: nothing to confirm.
    expect(run([1950], {}, false)).toEqual([{ kind: 'review', amount: 1950 }]);
  });

  it('never records, books or counters an amount that is not firm: it asks to confirm it', () => {
    const policy = { ...DEFAULT_NEGOTIATION_POLICY, auto_accept_at_or_under_ask: true };
    for (const amount of [1500, 2000, 2400, 9000]) {
      const step = decide({
        ...base,
        policy,
        conversation: NEW_CONVERSATION,
        said: { kind: 'tentative', amount },
      });
      expect(step.decision).toEqual({ kind: 'confirm', amount });
      expect(step.conversation).toEqual({ ...NEW_CONVERSATION, confirming: amount });
    }
  });

  it('aims at the market rate where configured, never asking under the posted rate', () => {
    const policy = { ...DEFAULT_NEGOTIATION_POLICY, target_basis: 'suggested_market_rate' as const };
    const load = { ...base.load, market: 2400, ceiling: 3000 };
    // 95% of 2,400 is 2,280: over the posted rate, so the agent opens there.
    expect(run([3500], { policy, load })).toEqual([{ kind: 'counter', amount: 2275 }]);
    // A market rate under the posted rate: the opening ask is the posted rate.
    expect(run([3500], { policy, load: { ...load, market: 1500 } })).toEqual([
      { kind: 'counter', amount: 2000 },
    ]);
  });

  it('keeps the earlier rule as a named strategy: one counter at the posted rate, a decline over the ceiling', () => {
    const policy = { ...DEFAULT_NEGOTIATION_POLICY, strategy: 'posted_rate_once' as const };
    expect(run([2200, 2300, 2700, 1900], { policy })).toEqual([
      { kind: 'counter', amount: 2000 },
      { kind: 'review', amount: 2300 },
      { kind: 'decline', amount: 2700 },
      { kind: 'review', amount: 1900 },
    ]);
    expect(run([1900], { policy, autoAcceptAtOrUnderPostedRate: true })).toEqual([
      { kind: 'accept', amount: 1900 },
    ]);
    expect(
      run([1900], { policy, autoAcceptAtOrUnderPostedRate: true, carrierCompliancePassed: false }),
    ).toEqual([{ kind: 'review', amount: 1900 }]);
  });
});
