import { describe, expect, it } from 'vitest';
import { runBrokerageOnManualClock } from '../../bench/lib/brokerage-manual.js';
import { fileDatabaseUrl } from '../helpers/app.js';

/**
 * A brokerage trying Envoy from outside, at a size CI runs (the benchmark `npm run bench --
 * brokerage` runs it at full size, on a server's simulated clock): the real app with its default
 * simulated carriers, an organization made with the admin CLI, then the HTTP API only: 128
 * carriers on four lanes with tiers and a registry snapshot, 24 loads picked up 3 to 6 hours later
 * handed to the agent, six simulated hours, and everything read back through the API. No internal
 * call, no database read. The product clock is a manual one the run moves (bench/lib/brokerage-
 * manual.ts), from a fixed Tuesday morning in Chicago: what the agent books depends on the
 * scenario, never on how busy the machine is (on a simulated clock at 120x a loaded CI machine fell
 * behind it and booked 19 of 24).
 */
describe('a brokerage trying Envoy from outside, over HTTP only', () => {
  it('books the loads its carriers could take that day, never against the rules or over the ceiling', async () => {
    const f = await runBrokerageOnManualClock(
      await fileDatabaseUrl(),
      { carriers: 128, lanes: 4, loads: 24, hours: 6, speed: 120, seed: 45 },
      // 07:00 CST on Tuesday 1 December 2026.
      new Date('2026-12-01T13:00:00Z'),
    );
    console.log(JSON.stringify(f));
    expect(f.forbidden).toEqual({
      stop_contact: 0,
      blocked_disabled_or_restricted: 0,
      quiet_hours: 0,
      daily_cap: 0,
      gap: 0,
      above_ceiling: 0,
    });
    // Every load has a carrier willing under what the policy lets the agent pay.
    expect(f.coverable).toBe(24);
    // 19 to 24 of 24 over twenty runs, idle or loaded, direct or behind PgBouncer: the clock no
    // longer sets the count, but a run is not yet a replay (a simulated call's ring time is drawn
    // from its random id, and one planning lane instead of two still varied), so a floor under the
    // least seen. A regression that stops carriers answering books none.
    expect(f.booked).toBeGreaterThanOrEqual(18);
    expect(f.rateToCeilingMax ?? 0).toBeLessThanOrEqual(1);
    expect(f.contactsPerCarrierMax).toBeLessThanOrEqual(3);
  }, 600_000);
});
