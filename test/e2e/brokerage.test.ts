import { describe, expect, it } from 'vitest';
import { runBrokerage } from '../../bench/lib/brokerage.js';
import { fileDatabaseUrl } from '../helpers/app.js';

/**
 * A brokerage trying Envoy from outside, at a size CI runs (the benchmark `npm run bench --
 * brokerage` runs it at full size): a fresh server (`npm start`'s entry point) in its default
 * simulation at 120x, an organization made with the admin CLI, then the HTTP API only: 128
 * carriers on four lanes with tiers and a registry snapshot, 24 loads picked up 3 to 6 hours later
 * handed to the agent, six simulated hours (three minutes of wall time), and everything read back
 * through the API. No internal call, no database read. At 240x a busy CI machine (two test runs
 * and the benchmarks side by side) fell behind the simulated clock and booked 15 to 18 of 24.
 */
describe('a brokerage trying Envoy from outside, over HTTP only', () => {
  it('books most of the loads its carriers could take that day, never against the rules or over the ceiling', async () => {
    const f = await runBrokerage(await fileDatabaseUrl(), {
      carriers: 128,
      lanes: 4,
      loads: 24,
      hours: 6,
      speed: 120,
      seed: 45,
    });
    console.log(JSON.stringify(f));
    expect(f.forbidden).toEqual({
      stop_contact: 0,
      blocked_disabled_or_restricted: 0,
      quiet_hours: 0,
      daily_cap: 0,
      gap: 0,
      above_ceiling: 0,
    });
    expect(f.coverable).toBeGreaterThanOrEqual(20);
    expect(f.booked / f.coverable).toBeGreaterThanOrEqual(0.8);
    expect(f.rateToCeilingMax ?? 0).toBeLessThanOrEqual(1);
    expect(f.contactsPerCarrierMax).toBeLessThanOrEqual(3);
    // A server started through the TypeScript loader, the CLI twice, then a minute of simulation.
  }, 600_000);
});
