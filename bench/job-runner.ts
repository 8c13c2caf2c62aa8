import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Config } from '../src/config.js';
import type { Database } from '../src/db/client.js';
import { systemScope } from '../src/domain/scope.js';
import { emitEvents } from '../src/modules/webhooks/event-emitting.js';
import type { ClaimedDelivery } from '../src/modules/webhooks/index.js';
import { WebhooksWorker } from '../src/workers/webhooks-worker.js';
import { portOf } from '../test/helpers/listening.js';
import { agentWorkload } from './lib/agent-jobs.js';
import { type BenchDatabase, benchConfig, benchDatabase, listenApp, sized } from './lib/harness.js';
import {
  bossSide,
  compare,
  currentSide,
  measureSide,
  POLL_MS,
  RETRY_SCALE,
  silent,
} from './lib/job-sides.js';
import { percentile } from './lib/load-payloads.js';

/**
 * The background job runner against pg-boss, on the same workloads in the same run and database:
 *
 *   webhooks  EVENTS events (default 1000) to 4 endpoints on a local receiver (127.0.0.1) that
 *             answers 200, and 500 to the first attempt of one delivery in ten, so a tenth is
 *             retried. Current: the WebhooksWorker claiming due rows with SKIP LOCKED, driven by
 *             WorkerRunner. pg-boss: one job per delivery (inserted after the events commit), a
 *             batch handler sending the batch through the same WebhooksWorker code, retried by
 *             pg-boss after the schedule's first step. Twice: as a backlog (chunks of 100 events
 *             as fast as they commit), and arriving steadily (STEADY_EVENTS events, 2 every 50 ms),
 *             where pg-boss runs with LISTEN/NOTIFY so a new job wakes a worker at once.
 *   agent     the agent's queued first contacts of a planned wave, sent through the simulated
 *             e-mail channel. Current: AgentService.dispatchDue driven by WorkerRunner. pg-boss:
 *             one job per contact, a batch handler claiming (pending -> active) and sending.
 *
 * Each side runs as two instances, each with its own connection pool, polling every 500 ms (the
 * smallest interval pg-boss allows), fetching continuously while a batch comes back full, from
 * the moment the work is enqueued until every job is done. Reported per side, median of RUNS runs
 * (sides alternate which goes first): jobs/s (first enqueue to last done), latency from enqueue
 * to done p50/p99, database round trips per job (every query of the runners' pools, BEGIN and
 * COMMIT included; pg-boss's own maintenance too), this process's CPU ms per job, and jobs done
 * twice (a 2xx answered twice for one delivery, a contact sent twice). Ratios are pg-boss over
 * current.
 *
 * BENCH_JOBS_EVENTS, BENCH_JOBS_STEADY_EVENTS, BENCH_JOBS_LOADS (agent: loads planned, ~4 contacts each),
 * BENCH_JOBS_CONTACTS (agent: at most this many sent), BENCH_JOBS_RUNS,
 * BENCH_JOBS_WORKLOADS ("webhooks,agent"); BENCH_DATABASE_URL a server of your own.
 */

const EVENTS = sized('BENCH_JOBS_EVENTS', 1000, 20);
/** Steady arrival: STEADY_EVENTS events, 2 every 50 ms (160 deliveries/s, below either side's capacity). */
const STEADY_EVENTS = sized('BENCH_JOBS_STEADY_EVENTS', 400, 20);
const ENDPOINTS = 4;
const WORKLOADS = (process.env.BENCH_JOBS_WORKLOADS ?? 'webhooks,agent').split(',');

/** Deliveries answered by the receiver: 500 to the first attempt of one in ten, else 200. */
function receiver() {
  const attempts = new Map<string, number>();
  const successes = new Map<string, number>();
  const server = createServer((req, res) => {
    const key = `${req.headers['webhook-id']}|${req.url}`;
    req.resume();
    req.on('end', () => {
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      const fails = n === 1 && hash(key) % 10 === 0;
      if (!fails) successes.set(key, (successes.get(key) ?? 0) + 1);
      res.writeHead(fails ? 500 : 200).end(fails ? 'try again' : 'ok');
    });
  });
  return {
    server,
    reset() {
      attempts.clear();
      successes.clear();
    },
    doneTwice: () => [...successes.values()].filter((n) => n > 1).length,
  };
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return Math.abs(h);
}

async function webhooks(db: BenchDatabase) {
  const config = benchConfig({
    WORKERS_ENABLED: 'false',
    WORKER_POLL_MS: String(POLL_MS),
    WEBHOOK_RETRY_SCALE: String(RETRY_SCALE),
  });
  const { app, services } = await listenApp(db.database, config);
  const hooks = receiver();
  await new Promise<void>((r) => hooks.server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${portOf(hooks.server)}/hook`;
  try {
    const org = await services.auth.createOrganization('Bench');
    const service = services.webhooks;
    for (let i = 0; i < ENDPOINTS; i++) {
      await service.create(systemScope(org.id), { url: `${url}?n=${i}`, event_types: ['load.updated'] });
    }
    const modes: Mode[] = [
      { events: EVENTS, chunk: 100, pauseMs: 0, queue: 'webhook-delivery', notify: false },
      { events: STEADY_EVENTS, chunk: 2, pauseMs: 50, queue: 'webhook-delivery-steady', notify: true },
    ];
    for (const mode of modes) {
      const title =
        mode.pauseMs === 0
          ? `Webhook deliveries, a backlog: ${mode.events} events x ${ENDPOINTS} endpoints, 1 in 10 retried once`
          : `Webhook deliveries, steady arrival (pg-boss woken by NOTIFY): ${mode.events} events x ${ENDPOINTS} endpoints, ${mode.chunk} events every ${mode.pauseMs} ms`;
      await compare(title, sidesOf({ db, config, orgId: org.id, hooks, mode }));
    }
  } finally {
    hooks.server.closeAllConnections();
    hooks.server.close();
    await app.close();
  }
}

interface Mode {
  events: number;
  /** Events per transaction, and the pause after each. */
  chunk: number;
  pauseMs: number;
  queue: string;
  notify: boolean;
}

/** Both sides of one mode of the webhook workload, each run from empty tables. */
function sidesOf({
  db,
  config,
  orgId,
  hooks,
  mode,
}: {
  db: BenchDatabase;
  config: Config;
  orgId: string;
  hooks: ReturnType<typeof receiver>;
  mode: Mode;
}) {
  const main = db.database.db;
  /** Emits the events `mode.chunk` at a time, each chunk in its own transaction. */
  const emitAll = async (after: (eventIds: string[]) => Promise<void>) => {
    for (let done = 0; done < mode.events; done += mode.chunk) {
      const ids = await main.transaction((tx) =>
        emitEvents(
          tx,
          orgId,
          Array.from({ length: Math.min(mode.chunk, mode.events - done) }, (_, i) => ({
            type: 'load.updated',
            data: { load_id: `load_${done + i}`, load_status: 'Dispatched' },
          })),
        ),
      );
      await after(ids);
      if (mode.pauseMs) await sleep(mode.pauseMs);
    }
  };
  const total = mode.events * ENDPOINTS;
  const done = async () => {
    const [row] = (
      await main.execute<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'succeeded'`,
      )
    ).rows;
    return (row?.n ?? 0) >= total;
  };
  const outcome = async () => {
    const rows = (
      await main.execute<{ ms: number; from_first: number; twice: number }>(sql`
        SELECT extract(epoch FROM d.updated_at - d.created_at) * 1000 AS ms,
          extract(epoch FROM d.updated_at - min(d.created_at) OVER ()) AS from_first,
          (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.succeeded)::int AS twice
        FROM webhook_deliveries d WHERE d.status = 'succeeded'`)
    ).rows;
    const ms = rows.map((r) => Number(r.ms));
    return {
      jobs: rows.length,
      seconds: Math.max(...rows.map((r) => Number(r.from_first))),
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      doneTwice: Math.max(hooks.doneTwice(), rows.filter((r) => r.twice > 1).length),
    };
  };
  const reset = async () => {
    hooks.reset();
    await main.execute(sql`TRUNCATE webhook_attempts, webhook_deliveries, events CASCADE`);
    await main.execute(sql`VACUUM ANALYZE webhook_deliveries`);
  };
  const current = async () => {
    await reset();
    const side = currentSide(db.url, (database) => new WebhooksWorker(database.db, config, silent));
    return measureSide({ ...side, enqueue: () => emitAll(async () => {}) }, done, outcome);
  };
  const boss = async () => {
    await reset();
    const side = bossSide<{ deliveryId: string }>(
      db.url,
      mode.queue,
      async (database, jobs) => {
        const rows = await claimedByIds(
          database,
          jobs.map((j) => j.data.deliveryId),
        );
        const worker = new WebhooksWorker(database.db, config, silent);
        const delivered = new Set(await worker.deliverClaimed(rows));
        return jobs.map((j) => ({
          id: j.id,
          status: delivered.has(j.data.deliveryId) ? 'completed' : 'failed',
        }));
      },
      { notify: mode.notify },
    );
    const enqueue = () =>
      emitAll(async (eventIds) => {
        const ids = (
          await main.execute<{ id: string }>(
            sql`SELECT id FROM webhook_deliveries WHERE event_id IN (${sql.join(
              eventIds.map((id) => sql`${id}`),
              sql`, `,
            )})`,
          )
        ).rows;
        await side.first()?.insert(
          mode.queue,
          ids.map((r) => ({ data: { deliveryId: r.id } })),
        );
      });
    return measureSide({ ...side, enqueue }, done, outcome);
  };
  return { current, boss };
}

/** The deliveries of a pg-boss batch with their endpoint and event, as a claiming round returns them. */
async function claimedByIds(database: Database, ids: string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const result = await database.db.execute<ClaimedDelivery>(sql`
    SELECT d.id, d.attempt_count, d.endpoint_id, d.event_id, d.organization_id, e.url, e.headers,
      ev.type, ev.data, ev.created_at AS event_created_at
    FROM webhook_deliveries d
    JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.status = 'ACTIVE'
    JOIN events ev ON ev.id = d.event_id
    WHERE d.status = 'pending' AND d.id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  return result.rows;
}

export async function run() {
  const db = await benchDatabase();
  console.log(`database: ${process.env.BENCH_DATABASE_URL ? 'BENCH_DATABASE_URL' : 'embedded PostgreSQL'}`);
  const started = performance.now();
  try {
    if (WORKLOADS.includes('webhooks')) await webhooks(db);
    if (WORKLOADS.includes('agent')) await agentWorkload(db);
  } finally {
    await db.close();
  }
  console.log(`\njob-runner: both workloads in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
