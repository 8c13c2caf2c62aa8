import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../src/http/rate-limit-store.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';

/** A breaker on a wall clock the test sets, and what it reported. */
function breaker(retryAfterMs: number) {
  const wall = new SettableWallClock();
  wall.set(Date.UTC(2026, 0, 1));
  const events: string[] = [];
  const b = new CircuitBreaker(
    retryAfterMs,
    {
      opened: (err) => events.push(`opened: ${err.message}`),
      closed: (ms) => events.push(`closed after ${ms}`),
    },
    wall,
  );
  return { b, wall, events };
}

describe("the rate limits' circuit breaker", () => {
  it('refuses calls until its retry time, then lets exactly one probe through', () => {
    const { b, wall, events } = breaker(200);
    expect(b.allow()).toBe(true);
    b.failed(new Error('down'));
    expect(b.isOpen).toBe(true);
    wall.advance(199);
    expect(b.allow()).toBe(false);
    wall.advance(1);
    expect(b.allow()).toBe(true);
    // While the probe is out, nothing else goes.
    expect(b.allow()).toBe(false);
    b.failed(new Error('still down'));
    // A failed probe opens it again from then, and is not a new outage.
    wall.advance(199);
    expect(b.allow()).toBe(false);
    expect(events).toEqual(['opened: down']);
  });

  it('closes on a successful probe and reports how long the outage lasted', () => {
    const { b, wall, events } = breaker(200);
    b.failed(new Error('down'));
    wall.advance(500);
    expect(b.allow()).toBe(true);
    b.succeeded();
    expect(b.isOpen).toBe(false);
    expect(b.allow()).toBe(true);
    expect(b.allow()).toBe(true);
    expect(events).toEqual(['opened: down', 'closed after 500']);
  });
});
