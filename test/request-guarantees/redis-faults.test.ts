import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { buildTestApp, fileDatabaseUrl, type TestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { portOf } from '../helpers/listening.js';
import { waitFor } from '../helpers/wait.js';

const realRedis = process.env.REDIS_URL;

/**
 * A TCP endpoint standing where Redis should be. `blackhole` accepts connections and never answers
 * (a hung Redis, a dropped route); `forward` relays to the real Redis; `closed` refuses.
 */
class RedisStandIn {
  mode: 'blackhole' | 'forward' = 'blackhole';
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(port = 0): Promise<void> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
      if (this.mode === 'blackhole' || !realRedis) return;
      const target = new URL(realRedis);
      const upstream = connect(Number(target.port || 6379), target.hostname);
      upstream.on('error', () => socket.destroy());
      socket.pipe(upstream).pipe(socket);
      socket.on('close', () => upstream.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = portOf(server);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
}

async function closedPort(): Promise<number> {
  const probe = new RedisStandIn();
  await probe.open();
  const { port } = probe;
  await probe.close();
  return port;
}

const REDIS_RETRY_MS = '200';
const redisEnv = (url: string) => ({
  REDIS_URL: url,
  REDIS_KEY_PREFIX: `envoy-test-${randomBytes(6).toString('hex')}:`,
  REDIS_RETRY_MS,
  RATE_LIMIT_GENERAL_PER_MINUTE: '1000',
});

/** Sends `n` requests one after another and returns their statuses and the remaining counts told. */
async function requests(t: TestApp, headers: Record<string, string>, n: number) {
  const statuses: number[] = [];
  const remaining: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers });
    statuses.push(res.statusCode);
    remaining.push(Number(res.headers['x-ratelimit-remaining']));
  }
  return { statuses, remaining };
}

/** Each count one less than the one before: every request counted, here, in this instance's memory. */
const countedDown = (remaining: number[]) => remaining.map((_, i) => (remaining[0] ?? 0) - i);

/**
 * While the breaker is open and the wall clock stands before its retry time, no request goes to
 * Redis (one waiting on it for good would fail the test by its timeout); at the retry time one
 * request probes it, fails, and is counted in memory too; the outage is reported once.
 */
async function expectBreakerHolds(t: TestApp, wall: SettableWallClock, headers: Record<string, string>) {
  wall.freeze();
  const { statuses, remaining } = await requests(t, headers, 20);
  expect(statuses.every((s) => s === 200)).toBe(true);
  expect(remaining).toEqual(countedDown(remaining));
  wall.advance(Number(REDIS_RETRY_MS));
  const probe = await requests(t, headers, 1);
  expect(probe).toEqual({ statuses: [200], remaining: [(remaining.at(-1) ?? 0) - 1] });
  expect(outageLines(t)).toHaveLength(1);
}

const outageLines = (t: TestApp) =>
  t.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('Redis is unavailable'));

describe('a Redis that fails', () => {
  const opened: TestApp[] = [];
  const standIns: RedisStandIn[] = [];
  afterAll(async () => {
    for (const t of opened) await t.close();
    for (const s of standIns) await s.close();
  });

  const app = async (env: Record<string, string>, wallClock = new SettableWallClock()) => {
    const t = await buildTestApp({ env, captureLogs: true, databaseUrl: await fileDatabaseUrl(), wallClock });
    opened.push(t);
    return t;
  };

  it('lets requests through, counted per instance, when Redis accepts and never answers', async () => {
    const hole = new RedisStandIn();
    standIns.push(hole);
    await hole.open();
    const wall = new SettableWallClock();
    const t = await app(redisEnv(hole.url), wall);
    const { user } = await createTenant(t);
    // Counted in memory meanwhile: the headers still tell the truth about this instance.
    await expectBreakerHolds(t, wall, user.headers);
  });

  it('lets requests through, counted per instance, when nothing listens at the Redis address', async () => {
    const wall = new SettableWallClock();
    const t = await app(redisEnv(`redis://127.0.0.1:${await closedPort()}`), wall);
    const { user } = await createTenant(t);
    await expectBreakerHolds(t, wall, user.headers);
  });

  it.skipIf(!realRedis)('shares the counters again once Redis answers', async () => {
    const standIn = new RedisStandIn();
    standIns.push(standIn);
    await standIn.open();
    const env = redisEnv(standIn.url);
    const a = await app(env);
    const b = await app(env);
    const { user } = await createTenant(a);
    // While Redis hangs, each instance counts on its own.
    await requests(a, user.headers, 3);
    await requests(b, user.headers, 3);

    standIn.mode = 'forward';
    // Within a few probe intervals both instances count in Redis again: alternate requests see
    // one counter going down by one each time.
    await waitFor(
      async () => {
        const first = await requests(a, user.headers, 1);
        const second = await requests(b, user.headers, 1);
        const third = await requests(a, user.headers, 1);
        return [first.remaining[0], second.remaining[0], third.remaining[0]];
      },
      ([x, y, z]) => y === (x ?? 0) - 1 && z === (x ?? 0) - 2,
      10_000,
    );
    expect(a.logs.some((l) => l.msg === 'Redis answers again: rate limits are shared again')).toBe(true);
  });
});
