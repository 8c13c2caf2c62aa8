import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { WallClock } from '../lib/wall-clock.js';
import { rateLimitExceeded } from './http-errors.js';
import { CircuitBreaker, resilientStoreClass } from './rate-limit-store.js';

export type RateCategory = 'auth' | 'apiKeys' | 'uploads' | 'general';

const WINDOW_MS = 60_000;
const RESET = 'x-ratelimit-reset';

const isCsv = (contentType: string | undefined) => !!contentType && /^text\/csv\b/i.test(contentType);

/** Which limit of the spec's table a request counts against. */
export function categoryOf(request: FastifyRequest, prefix: string): RateCategory {
  const path = request.routeOptions.url ?? request.url;
  if (path.startsWith(`${prefix}/auth/`)) return 'auth';
  if (path.startsWith(`${prefix}/api-keys`)) return 'apiKeys';
  if (isCsv(request.headers['content-type'])) return 'uploads';
  return 'general';
}

/** The public routes that trade a secret for tokens: counted per client IP, whatever is sent. */
const PER_IP = ['/auth/login', '/auth/refresh', '/auth/accept-invitation'];

/**
 * Who a request is counted as. Login, refresh and accepting an invitation are counted by client
 * IP before any secret is checked (so the limit also shields argon2, and a stray bearer header
 * cannot move the count elsewhere); everything else by credential (API key, else user, else IP).
 */
function subjectOf(request: FastifyRequest, prefix: string): string {
  const path = request.routeOptions.url ?? request.url;
  if (PER_IP.some((p) => path === `${prefix}${p}`)) return `ip:${request.ip}`;
  const p = request.principal;
  if (p?.kind === 'api_key') return `key:${p.apiKeyId}`;
  if (p?.kind === 'bearer') return `user:${p.userId}`;
  return `ip:${request.ip}`;
}

export interface RateLimitOptions {
  prefix: string;
  limits: Record<RateCategory, number>;
  redisUrl: string | undefined;
  /** Prefix of the counters' keys in Redis, so environments can share one server. */
  redisKeyPrefix: string;
  redisTimeouts: RedisTimeouts;
  /** The breaker's retry time and the reset header's Unix time are read from it. */
  wallClock: WallClock;
}

export interface RedisTimeouts {
  /** A counter update that takes longer fails, and the request is counted in memory instead. */
  commandMs: number;
  connectMs: number;
  /** How long to count in memory after a failure before Redis is tried again. */
  retryMs: number;
}

/**
 * Per-category, per-credential limits over @fastify/rate-limit. Its per-route hook would run after
 * app-wide hooks; this plugin calls the limiter from one app-wide onRequest hook instead, placed
 * between identifying the caller and enforcing the route's access, so 401s, 403s and unknown
 * routes are counted and carry the headers too. With a Redis URL the counters are shared by all
 * instances (falling back to this process's memory while Redis fails); without one they live in
 * this process.
 */
async function rateLimitPlugin(app: FastifyInstance, opts: RateLimitOptions) {
  let store: ReturnType<typeof resilientStoreClass> | undefined;
  if (opts.redisUrl) {
    const timeouts = opts.redisTimeouts;
    // No offline queue and a short command timeout: a Redis that is down or hangs costs a request
    // at most one timeout, and then the breaker keeps requests away from it altogether.
    const redis = new Redis(opts.redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: timeouts.commandMs,
      connectTimeout: timeouts.connectMs,
      retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 5000),
    });
    // ioredis reports every failed reconnect; the breaker logs once per outage instead.
    redis.on('error', () => {});
    const breaker = new CircuitBreaker(
      timeouts.retryMs,
      {
        opened: (err) =>
          app.log.warn(
            { err: { message: err.message } },
            'Redis is unavailable: rate limits are counted per instance until it answers again',
          ),
        closed: (downMs) => app.log.info({ downMs }, 'Redis answers again: rate limits are shared again'),
      },
      opts.wallClock,
    );
    // A server that accepted the connection and then went silent keeps it open forever; start a
    // new one so that a Redis back at the same address is found.
    const onStuck = () => {
      if (redis.status === 'ready' || redis.status === 'connect') redis.disconnect(true);
    };
    store = resilientStoreClass({
      redis,
      keyPrefix: opts.redisKeyPrefix,
      breaker,
      onFailure: onStuck,
    });
    // Startup waits for Redis at most one connect timeout; a Redis that is not there yet is
    // found later by the breaker's probes.
    let timer: NodeJS.Timeout | undefined;
    const connecting = redis.connect();
    connecting.catch(() => {});
    try {
      await Promise.race([
        connecting,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('Redis did not answer in time')), timeouts.connectMs);
        }),
      ]);
    } catch (err) {
      breaker.failed(err instanceof Error ? err : new Error(String(err)));
      onStuck();
    } finally {
      clearTimeout(timer);
    }
    app.addHook('onClose', async () => {
      redis.disconnect(false);
    });
  }
  await app.register(rateLimit, {
    global: false,
    timeWindow: WINDOW_MS,
    // Counters are keyed `category:subject` here: the library's groupId would not share one
    // counter across the routes of a category.
    keyGenerator: (request) => `${categoryOf(request, opts.prefix)}:${subjectOf(request, opts.prefix)}`,
    max: (request) => opts.limits[categoryOf(request, opts.prefix)],
    ...(store ? { store } : {}),
    // The store never fails (it falls back to memory); should anything else, let requests through.
    skipOnError: true,
    errorResponseBuilder: (_request, context) =>
      rateLimitExceeded(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  const limiter = app.rateLimit();

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config?.rateLimit === false) return;
    if (!request.url.startsWith(opts.prefix)) return;
    try {
      await limiter.call(app, request, reply);
    } finally {
      // The library reports seconds until the reset; the spec promises the Unix time of it.
      const seconds = Number(reply.getHeader(RESET));
      if (Number.isFinite(seconds)) reply.header(RESET, Math.ceil(opts.wallClock.ms() / 1000) + seconds);
    }
  });
}

export const rateLimits = fp(rateLimitPlugin, { name: 'rate-limits', dependencies: ['authentication'] });
