import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';

describe('ManualClock', () => {
  it('fires timers in time order, each at its own time, as advanceTo passes them', async () => {
    const clock = new ManualClock(1_000);
    const seen: [string, number][] = [];
    clock.after(300, () => seen.push(['b', clock.ms()]));
    clock.after(100, () => seen.push(['a', clock.ms()]));
    await clock.advanceTo(1_250);
    expect(seen).toEqual([['a', 1_100]]);
    await clock.advanceTo(2_000);
    expect(seen).toEqual([
      ['a', 1_100],
      ['b', 1_300],
    ]);
    expect(clock.ms()).toBe(2_000);
  });

  it('parks work asleep on it, and an aborted sleep wakes that work without the clock moving', async () => {
    const clock = new ManualClock(0);
    const stop = new AbortController();
    const steps: string[] = [];
    clock.after(10, async () => {
      steps.push(`slept at ${clock.ms()}`);
      await clock.sleep(60_000, stop.signal);
      steps.push(`woke at ${clock.ms()}`);
    });
    await clock.advanceTo(10);
    expect(steps).toEqual(['slept at 10']);
    stop.abort();
    await clock.settled();
    expect(steps).toEqual(['slept at 10', 'woke at 10']);
    // The aborted sleep's timer is gone: nothing is due any more.
    expect(clock.nextAt()).toBeUndefined();
  });
});
