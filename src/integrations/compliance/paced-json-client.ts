/**
 * GET requests to a public JSON API that is rate-limited and has no SLA (FMCSA QCMobile, the DOT
 * open-data portal): requests are paced, transient failures retried with backoff, concurrent
 * requests for the same URL share one call, and good answers are cached for a while.
 */

import { LRUCache } from 'lru-cache';
import pRetry from 'p-retry';
import { errorMessage, errorName } from '../../lib/error-text.js';
import { objectOf } from '../../lib/json-object.js';

export interface PacedJsonClientOptions {
  /** Names the service in failure messages, e.g. `FMCSA QCMobile`. */
  name: string;
  /** At least this long between the starts of two requests (every caller of this client). */
  minIntervalMs: number;
  /** Further attempts after a timeout, a connection failure, a 429 or a 5xx. */
  maxRetries: number;
  /** First backoff; each retry doubles it (with jitter, p-retry's), up to `MAX_BACKOFF_MS`. */
  retryBaseMs: number;
  /** Per attempt. */
  timeoutMs: number;
  /** How long a well-formed answer is reused; 0 turns the cache off. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
  headers?: Record<string, string>;
  /**
   * The machine's milliseconds by default: pacing waits on real timers, so it measures real time
   * (a wall clock a test has set would make every wait look longer or shorter than it is).
   */
  now?: () => number;
  /** Waits `ms` of `now`'s time: a timer by default. */
  sleep?: (ms: number) => Promise<void>;
}

/** A 2xx answer with a JSON body, or why there is none (never the URL: it may hold a key). */
export type JsonAnswer = { ok: true; body: unknown } | { ok: false; error: string };

const MAX_BACKOFF_MS = 8_000;

/** A failure worth another attempt (what it was, and how long the service asked us to wait). */
class PassingFailure extends Error {
  constructor(
    message: string,
    readonly retryAfterMs: number | null,
  ) {
    super(message);
  }
}
/** A Retry-After longer than this is not waited for: the attempt fails and the check is retried later. */
const MAX_RETRY_AFTER_MS = 30_000;

export class PacedJsonClient {
  private nextStartAt = 0;
  private readonly inflight = new Map<string, Promise<JsonAnswer>>();
  private readonly cache: LRUCache<string, { until: number; answer: JsonAnswer }>;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: PacedJsonClientOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleep;
    this.cache = new LRUCache({ max: options.cacheMaxEntries ?? 10_000 });
  }

  /**
   * The answer for `url`: from the cache, from a request already under way, or from a new one.
   * `signal` only stops this caller waiting; a shared request runs on (bounded by its own
   * timeouts), so its answer is cached for the next caller, e.g. the background re-check.
   */
  async get(url: URL, signal: AbortSignal): Promise<JsonAnswer> {
    const key = url.toString();
    const cached = this.cache.get(key);
    if (cached) {
      if (cached.until > this.now()) return cached.answer;
      this.cache.delete(key);
    }
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.fetchWithRetries(url).then((answer) => {
        this.inflight.delete(key);
        if (answer.ok && this.options.cacheTtlMs > 0) this.remember(key, answer);
        return answer;
      });
      this.inflight.set(key, pending);
    }
    return untilAborted(pending, signal);
  }

  private remember(key: string, answer: JsonAnswer) {
    this.cache.set(key, { until: this.now() + this.options.cacheTtlMs, answer });
  }

  /**
   * Attempts until an answer, retried with exponential backoff and jitter (p-retry) after a
   * timeout, a connection failure, a 429 or a 5xx; a 429's Retry-After holds every request of this
   * client (through `pace`), and one longer than `MAX_RETRY_AFTER_MS` is not waited for.
   */
  private async fetchWithRetries(url: URL): Promise<JsonAnswer> {
    const what = `${this.options.name} GET ${url.pathname}`;
    try {
      return await pRetry(
        async () => {
          await this.pace();
          const outcome = await this.attempt(url, what);
          if (outcome.kind === 'answer') return outcome.answer;
          throw new PassingFailure(outcome.error, outcome.retryAfterMs);
        },
        {
          retries: this.options.maxRetries,
          minTimeout: this.options.retryBaseMs,
          maxTimeout: MAX_BACKOFF_MS,
          factor: 2,
          randomize: true,
          onFailedAttempt: ({ error }) => {
            // The retried function's only throw is PassingFailure; p-retry hands back what it threw.
            const retryAfter = (error as PassingFailure).retryAfterMs;
            // The service asked everyone to wait: hold every request of this client, not just this one.
            if (retryAfter !== null && retryAfter <= MAX_RETRY_AFTER_MS) {
              this.nextStartAt = Math.max(this.nextStartAt, this.now() + retryAfter);
            }
          },
          shouldRetry: ({ error }) => {
            // The retried function's only throw is PassingFailure; p-retry hands back what it threw.
            const retryAfter = (error as PassingFailure).retryAfterMs;
            return retryAfter === null || retryAfter <= MAX_RETRY_AFTER_MS;
          },
        },
      );
    } catch (err) {
      return { ok: false, error: errorMessage(err) };
    }
  }

  private async attempt(
    url: URL,
    what: string,
  ): Promise<
    { kind: 'answer'; answer: JsonAnswer } | { kind: 'retry'; error: string; retryAfterMs: number | null }
  > {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json', ...this.options.headers },
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      return { kind: 'retry', error: `${what} failed: ${failureName(err)}`, retryAfterMs: null };
    }
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel().catch(() => {});
      return {
        kind: 'retry',
        error: `${what} answered ${response.status}`,
        retryAfterMs:
          response.status === 429 ? retryAfterMs(response.headers.get('retry-after'), this.now()) : null,
      };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const hint =
        response.status === 401 || response.status === 403
          ? ' (check the key)'
          : response.status === 404
            ? ' (check the base URL)'
            : '';
      return { kind: 'answer', answer: { ok: false, error: `${what} answered ${response.status}${hint}` } };
    }
    try {
      return { kind: 'answer', answer: { ok: true, body: await response.json() } };
    } catch (err) {
      if (errorName(err) === 'TimeoutError' || errorName(err) === 'AbortError') {
        return { kind: 'retry', error: `${what} failed: timed out`, retryAfterMs: null };
      }
      return {
        kind: 'answer',
        answer: { ok: false, error: `${what} answered with a body that is not JSON` },
      };
    }
  }

  private async pace() {
    const now = this.now();
    const start = Math.max(now, this.nextStartAt);
    this.nextStartAt = start + this.options.minIntervalMs;
    if (start > now) await this.sleep(start - now);
  }
}

/** `timed out`, `ECONNREFUSED`, ...: the kind of failure, never anything that could quote the URL. */
function failureName(err: unknown): string {
  const e = objectOf(err);
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  const cause = objectOf(e?.cause);
  const code = cause?.code;
  if (typeof code === 'string') return code;
  const message = cause?.message;
  // undici's own wording ("bad port", "redirect mode is set to error"), cut before any query string.
  return typeof message === 'string' && message
    ? (message.split('?', 1)[0] ?? message).slice(0, 100)
    : 'network error';
}

/** Retry-After as seconds or an HTTP date (from `now`); a missing or unreadable one means one second. */
function retryAfterMs(value: string | null, now: number): number {
  if (!value) return 1000;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - now);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
