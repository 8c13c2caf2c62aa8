import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What time it is for the product, and a way to run something later on that time. Three kinds:
 * - `real`: the machine's clock;
 * - `simulated`: a clock running `speed` times faster than the machine's, from an anchor (a
 *   working day in minutes on a live server);
 * - `manual`: a clock that moves only when its owner moves it (tests and the outcomes benchmark),
 *   firing what came due in time order.
 * Wall time (timeouts, leases, credentials' expiry) never goes through a Clock: it is a WallClock
 * (wall-clock.ts), which a simulation does not speed up.
 */
export interface Clock {
  readonly kind: 'real' | 'simulated' | 'manual';
  /** Product milliseconds per wall millisecond: 1 real, the speed simulated, 0 manual. */
  readonly speed: number;
  now(): Date;
  /** now() in milliseconds since the epoch. */
  ms(): number;
  /**
   * Runs `fn` once `delayMs` of this clock's time has passed; returns a function that cancels it.
   * On a manual clock the work `fn` starts counts as running until its promise settles.
   */
  after(delayMs: number, fn: () => unknown): () => void;
  /** Resolves once `delayMs` of this clock's time has passed, or at once when `signal` aborts. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout's longest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A clock whose timers are wall timers, `speed` product milliseconds to the wall millisecond. */
abstract class TimerClock implements Clock {
  abstract readonly kind: 'real' | 'simulated';
  abstract readonly speed: number;
  abstract ms(): number;

  now(): Date {
    return new Date(this.ms());
  }

  after(delayMs: number, fn: () => unknown): () => void {
    const timer = setTimeout(
      () =>
        void Promise.resolve()
          .then(fn)
          .catch(() => {}),
      Math.min(MAX_TIMER_MS, Math.max(0, delayMs / this.speed)),
    );
    timer.unref?.();
    return () => clearTimeout(timer);
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(MAX_TIMER_MS, Math.max(0, delayMs / this.speed)));
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}

export class RealClock extends TimerClock {
  readonly kind = 'real';
  readonly speed = 1;

  ms(): number {
    return Date.now();
  }
}

/** The machine's clock: the default everywhere but in a simulation. */
export const realClock: Clock = new RealClock();

/**
 * A clock `speed` times faster than the machine's: at wall time `anchorWall` it read `anchorAt`.
 * The database's envoy_now() is the same line (see db/product-clock.ts).
 */
export class SimulatedClock extends TimerClock {
  readonly kind = 'simulated';

  constructor(
    readonly anchorAt: number,
    readonly anchorWall: number,
    readonly speed: number,
  ) {
    super();
  }

  ms(): number {
    return this.anchorAt + (Date.now() - this.anchorWall) * this.speed;
  }
}

type Timer = { at: number; seq: number; fn: () => unknown; counted: boolean };

/**
 * A clock that stands still until `advanceTo` moves it. Timers fire in time order, each at its own
 * time: the clock is set to a timer's time, its work runs, and the next timer fires only once all
 * work started from timers has finished or is asleep on this clock (`sleep` inside such work parks
 * it until its time comes). Work therefore interleaves as it would on a real clock, but the outcome
 * depends on nothing but the order of times.
 */
export class ManualClock implements Clock {
  readonly kind = 'manual';
  readonly speed = 0;
  private at: number;
  private seq = 0;
  private readonly timers: Timer[] = [];
  private running = 0;
  private idle: (() => void)[] = [];
  private readonly work = new AsyncLocalStorage<true>();

  /** `onSet`: told of each new time before anything runs at it (the database's clock follows). */
  constructor(
    start: Date | number,
    private readonly onSet: (at: Date) => Promise<void> = async () => {},
  ) {
    this.at = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.at);
  }

  ms(): number {
    return this.at;
  }

  after(delayMs: number, fn: () => unknown): () => void {
    const timer = this.push(this.at + Math.max(0, delayMs), fn, true);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    const inWork = this.work.getStore() === true;
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      if (inWork) this.park();
      const wake = () => {
        signal?.removeEventListener('abort', abort);
        if (inWork) this.running++;
        resolve();
      };
      const timer = this.push(this.at + Math.max(0, delayMs), wake, false);
      // Aborted before its time: the timer goes, and the work wakes now, running again.
      const abort = () => {
        const i = this.timers.indexOf(timer);
        if (i < 0) return;
        this.timers.splice(i, 1);
        wake();
      };
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** When the next timer is due, if any. */
  nextAt(): number | undefined {
    return this.timers[0]?.at;
  }

  /**
   * Moves the clock to `until` (never back), firing every timer due by then in time order and
   * waiting, after each, for the work it started to finish or fall asleep.
   */
  async advanceTo(until: Date | number): Promise<void> {
    const target = typeof until === 'number' ? until : until.getTime();
    for (;;) {
      await this.settled();
      const next = this.timers[0];
      if (!next || next.at > target) break;
      this.timers.shift();
      await this.set(next.at);
      this.fire(next);
    }
    await this.set(target);
  }

  /** Waits until no work started from a timer is running (all done, or asleep on this clock). */
  settled(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async set(at: number) {
    if (at <= this.at) return;
    this.at = at;
    await this.onSet(new Date(at));
  }

  private fire(timer: Timer) {
    if (!timer.counted) {
      timer.fn();
      return;
    }
    this.running++;
    void this.work
      .run(true, () => Promise.resolve().then(timer.fn))
      .catch(() => {})
      .finally(() => this.park());
  }

  private park() {
    this.running--;
    if (this.running > 0) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }

  private push(at: number, fn: () => unknown, counted: boolean): Timer {
    const timer = { at, seq: this.seq++, fn, counted };
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1]?.at ?? at) > at) i--;
    this.timers.splice(i, 0, timer);
    return timer;
  }
}

/**
 * `base`'s time with timers `factor` times quicker: what a command-line tool uses to play the
 * simulated providers' calls and answers of a demo's history in moments, while every time it
 * records is still the product clock's.
 */
export class HurriedClock extends TimerClock {
  readonly kind: 'real' | 'simulated';
  readonly speed: number;

  constructor(
    private readonly base: Clock,
    factor: number,
  ) {
    super();
    this.kind = base.kind === 'simulated' ? 'simulated' : 'real';
    this.speed = Math.max(base.speed, 1) * factor;
  }

  ms(): number {
    return this.base.ms();
  }
}
