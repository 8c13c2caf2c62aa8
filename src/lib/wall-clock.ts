/**
 * The machine's time, as opposed to the product's (clock.ts): what credentials' expiry, token
 * lifetimes, invitations, retry schedules, rate-limit windows and circuit breakers are timed by. A
 * credential expires on real time even while the product runs a simulation. Injected (through
 * buildServices) so that a test can set it instead of waiting for something to come due.
 */
export interface WallClock {
  now(): Date;
  /** now() in milliseconds since the epoch. */
  ms(): number;
}

/** The machine's clock: the default everywhere. */
export const machineWallClock: WallClock = {
  now: () => new Date(),
  ms: () => Date.now(),
};

/**
 * A wall clock a test sets: the machine's until it is set, then standing where it was set until it
 * is set again (or told to follow the machine again). Rows the database stamps with its own now()
 * are behind it once it is set from the machine's time (`freeze`).
 */
export class SettableWallClock implements WallClock {
  private at: number | null = null;

  now(): Date {
    return new Date(this.ms());
  }

  ms(): number {
    return this.at ?? Date.now();
  }

  /** Stands at `at` from now on. */
  set(at: Date | number): void {
    this.at = typeof at === 'number' ? at : at.getTime();
  }

  /** Stands at the machine's time of this moment. */
  freeze(): void {
    this.set(Date.now());
  }

  /** Moves `ms` on from where it stands (from the machine's time when it was not set). */
  advance(ms: number): void {
    this.set(this.ms() + ms);
  }

  /** Follows the machine's clock again. */
  follow(): void {
    this.at = null;
  }
}
