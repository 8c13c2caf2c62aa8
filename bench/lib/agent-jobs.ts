// The agent workload of bench/job-runner.ts: the queued first contacts of a planned wave, sent
// through the simulated e-mail channel by each side.
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { dueOutreaches } from '../../src/modules/agent/agent-repository.js';
import { updateAgentSettings } from '../../src/modules/agent/agent-settings.js';
import { insertOrganization } from '../../src/modules/auth/auth-repository.js';
import { activateOutreaches } from '../../src/modules/outreaches/outreach-channel-queries.js';
import { cancelAutomatedOutreaches } from '../../src/modules/outreaches/outreach-queries.js';
import { buildServices, type Services } from '../../src/services.js';
import { type BenchDatabase, benchConfig, sized } from './harness.js';
import { bossSide, compare, currentSide, measureSide, POLL_MS, silent } from './job-sides.js';
import { percentile } from './load-payloads.js';

const LOADS = sized('BENCH_JOBS_LOADS', 500, 50);
/** At most this many contacts sent (those over it cancelled with the refused ones); smoke: 60. */
const CONTACTS = sized('BENCH_JOBS_CONTACTS', Number.POSITIVE_INFINITY, 60);

const agentConfig = benchConfig({
  SIMULATION_SPEED: '1000',
  SIMULATION_PROFILE: 'silent',
  EMAIL_FROM: 'agent@bench.example',
  EMAIL_REPLY_DOMAIN: 'reply.bench.example',
  WORKERS_ENABLED: 'false',
  WORKER_POLL_MS: String(POLL_MS),
});

/** The services over a database, as the server builds them (simulated, silent channels). */
const servicesOf = (database: Database) => buildServices({ config: agentConfig, database, log: silent });

/** Plans the first wave of every load (no sending), until planDue leases nothing. */
async function planAll(services: Services) {
  let leased = 0;
  for (let idle = 0; ; ) {
    const n = await services.agent.planDue();
    // The first call may lease nothing: the states it inserts are due from its own clock reading.
    if (n === 0 && (leased > 0 || idle++ > 0)) return;
    leased += n;
  }
}

/**
 * bench/agent.ts's seed of lanes, carriers and loads, at this benchmark's size: its sizes are read
 * from the environment when it is first imported (in `npm run bench -- smoke` it already was, at
 * its smoke size).
 */
async function agentSeed() {
  const given = { loads: process.env.BENCH_AGENT_LOADS, carriers: process.env.BENCH_AGENT_CARRIERS };
  process.env.BENCH_AGENT_LOADS = given.loads ?? String(LOADS);
  process.env.BENCH_AGENT_CARRIERS = given.carriers ?? String(LOADS * 2);
  try {
    return await import('../agent.js');
  } finally {
    for (const [name, value] of [
      ['BENCH_AGENT_LOADS', given.loads],
      ['BENCH_AGENT_CARRIERS', given.carriers],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

export async function agentWorkload(db: BenchDatabase) {
  const { seed, lanes } = await agentSeed();
  const main = db.database.db;
  const org = await insertOrganization(main, 'Bench Brokerage');
  const client = await db.database.pool.connect();
  try {
    await client.query('SET statement_timeout = 0');
    await seed(client, org.id, lanes());
  } finally {
    client.release();
  }
  await updateAgentSettings(main, org.id, {
    quiet_hours_start: 0,
    quiet_hours_end: 0,
    channel_order: ['email'],
  });
  const planner = servicesOf(db.database);
  let held: string[] = [];
  let enqueuedAt = 0;

  /** A planned wave, every contact the guard lets through held back (send_after infinity) until enqueued. */
  const prepare = async () => {
    await main.execute(sql`TRUNCATE outreaches, agent_load_states, agent_messages CASCADE`);
    await planAll(planner);
    const due = await main.transaction(async (tx) => {
      const list = await dueOutreaches(tx, 1_000_000);
      const kept = list.filter((d) => !d.refusal && d.workable).slice(0, CONTACTS);
      const keptIds = new Set(kept.map((d) => d.id));
      const dropped = list.filter((d) => !keptIds.has(d.id)).map((d) => d.id);
      if (dropped.length) await cancelAutomatedOutreaches(tx, { ids: dropped }, 'not contacted');
      return kept.map((d) => d.id);
    });
    await main.execute(
      sql`UPDATE outreaches SET send_after = 'infinity' WHERE is_automated AND status = 'pending'`,
    );
    await main.execute(sql`ANALYZE outreaches`);
    held = due;
  };
  const release = async () => {
    const [row] = (
      await main.execute<{ at: number }>(sql`
        WITH released AS (
          UPDATE outreaches SET send_after = now() WHERE is_automated AND status = 'pending' RETURNING id)
        SELECT extract(epoch FROM now()) * 1000 AS at`)
    ).rows;
    enqueuedAt = Number(row?.at);
  };
  const done = async () => {
    const [row] = (
      await main.execute<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM agent_messages WHERE direction = 'outbound' AND intent = 'first_contact'`,
      )
    ).rows;
    return (row?.n ?? 0) >= held.length;
  };
  const outcome = async () => {
    const rows = (
      await main.execute<{ at: number; sent: number }>(sql`
        SELECT extract(epoch FROM max(m.created_at)) * 1000 AS at, count(*)::int AS sent
        FROM agent_messages m WHERE m.direction = 'outbound' AND m.intent = 'first_contact'
        GROUP BY m.outreach_id`)
    ).rows;
    const ms = rows.map((r) => Number(r.at) - enqueuedAt);
    return {
      jobs: rows.length,
      seconds: Math.max(...ms) / 1000,
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      doneTwice: rows.filter((r) => r.sent > 1).length,
    };
  };
  const built = new Map<Database, Services>();
  /** One Services per instance's database, built on first use. */
  const servicesFor = (database: Database) => {
    const services = built.get(database) ?? servicesOf(database);
    built.set(database, services);
    return services;
  };
  const runCurrent = async () => {
    await prepare();
    const side = currentSide(db.url, (database) => {
      const services = servicesFor(database);
      return { name: 'agent', intervalMs: POLL_MS, drain: () => services.agent.dispatchDue() };
    });
    return measureSide({ ...side, enqueue: release }, done, outcome);
  };
  const runBoss = async () => {
    await prepare();
    const side = bossSide<{ outreachId: string }>(db.url, 'agent-contact', async (database, jobs) => {
      const services = servicesFor(database);
      const claimed = await database.db.transaction((tx) =>
        activateOutreaches(
          tx,
          jobs.map((j) => j.data.outreachId),
        ),
      );
      for (const outreach of claimed) await services.agent.sendOrFail(outreach);
      return jobs.map((j) => ({ id: j.id, status: 'completed' }));
    });
    const enqueue = async () => {
      await release();
      await side.first()?.insert(
        'agent-contact',
        held.map((id) => ({ data: { outreachId: id } })),
      );
    };
    return measureSide({ ...side, enqueue }, done, outcome);
  };
  try {
    await compare('Agent first contacts of a planned wave', {
      current: runCurrent,
      boss: runBoss,
    });
  } finally {
    for (const services of [planner, ...built.values()]) await services.close();
  }
}
