import type { FastifyRateLimitOptions, FastifyRateLimitStore } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { Redis } from 'ioredis';
import type { WallClock } from '../lib/wall-clock.js';

type Result = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Result) => void;
type RouteOptions = Parameters<FastifyRateLimitStore['child']>[0];

/**
 * Remembers that a backend is failing so that callers stop waiting on it. Closed: every call goes
 * through. Open: calls are refused until `retryAfterMs` has passed, then one call probes; its
 * success closes the breaker, its failure opens it again. Each outage is reported once.
 */
export class CircuitBreaker {
  private failing = false;
  private openUntil = 0;
  private probing = false;

  constructor(
    private readonly retryAfterMs: number,
    private readonly events: { opened(err: Error): void; closed(downMs: number): void },
    private readonly wall: WallClock,
  ) {}

  private since = 0;

  /** Whether a call may go to the backend now. */
  allow(): boolean {
    if (!this.failing) return true;
    if (this.probing || this.wall.ms() < this.openUntil) return false;
    this.probing = true;
    return true;
  }

  succeeded(): void {
    this.probing = false;
    if (!this.failing) return;
    this.failing = false;
    this.events.closed(this.wall.ms() - this.since);
  }

  failed(err: Error): void {
    this.probing = false;
    this.openUntil = this.wall.ms() + this.retryAfterMs;
    if (this.failing) return;
    this.failing = true;
    this.since = this.wall.ms();
    this.events.opened(err);
  }

  get isOpen(): boolean {
    return this.failing;
  }
}

export interface ResilientStoreDeps {
  redis: Redis;
  keyPrefix: string;
  breaker: CircuitBreaker;
  /** Called when a call failed, so a connection stuck on an unanswering server can be replaced. */
  onFailure(err: Error): void;
}

/**
 * Rate-limit counters in Redis, shared by every instance, that never make a request wait on a
 * failing Redis: while the breaker is open each instance counts in its own memory (the limit then
 * holds per instance), and shared counting resumes on the first successful probe.
 */
export function resilientStoreClass(deps: ResilientStoreDeps) {
  class ResilientStore implements FastifyRateLimitStore {
    constructor(
      _options: FastifyRateLimitOptions,
      private readonly shared: FastifyRateLimitStore = new RedisStore(
        false,
        false,
        deps.redis,
        deps.keyPrefix,
      ),
      private readonly local: FastifyRateLimitStore = new LocalStore(false, false),
    ) {}

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      if (!deps.breaker.allow()) {
        this.local.incr(key, callback, timeWindow, max);
        return;
      }
      this.shared.incr(
        key,
        (err, result) => {
          if (err) {
            deps.breaker.failed(err);
            deps.onFailure(err);
            this.local.incr(key, callback, timeWindow, max);
            return;
          }
          deps.breaker.succeeded();
          callback(null, result);
        },
        timeWindow,
        max,
      );
    }

    child(routeOptions: RouteOptions): FastifyRateLimitStore {
      return new ResilientStore({}, this.shared.child(routeOptions), this.local.child(routeOptions));
    }
  }
  return ResilientStore;
}
