import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase } from '../../src/db/client.js';
import { manualProductClock } from '../../src/db/product-clock.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { buildServices, type Services } from '../../src/services.js';
import { type BrokerageFigures, type BrokerageSize, inScenario, type Pace } from './brokerage.js';

/**
 * Product time between two runs of the server's work: a server polling every 250 ms at 120x (what
 * the brokerage benchmark runs) looks for due work every 30 simulated seconds.
 */
const STEP_MS = 30_000;
/** Most rounds of every worker at one step. */
const ROUNDS = 20;

/**
 * What a server's worker loops do at one instant of a manual clock: every worker, round after
 * round, until a round finds nothing (the carriers' answers it led to included), at most ROUNDS
 * rounds (the loops would take the rest at the next instant).
 */
export async function workUntilIdle(services: Services, clock: ManualClock): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    let done = 0;
    for (const worker of services.workers) done += await worker.drain();
    await clock.advanceTo(clock.ms());
    if (done === 0) return;
  }
}

/**
 * The brokerage (brokerage.ts) on a manual product clock, for a test whose outcome must not depend
 * on how busy the machine is. The server is the real app in this process (its HTTP API on a
 * loopback port, the services a server builds, the simulated carriers of its default simulation)
 * with no worker loop: the runner moves the clock STEP_MS at a time (the carriers' answers come
 * at their own times in between) and, at each step, runs every worker until none finds work. The
 * brokerage itself still sees only the admin CLI and the HTTP API. `size.speed` plays no part.
 */
export function runBrokerageOnManualClock(
  databaseUrl: string,
  size: BrokerageSize,
  start: Date,
): Promise<BrokerageFigures> {
  return inScenario(databaseUrl, size, start, async (env) => {
    const config = loadConfig(
      { ...env, WORKERS_ENABLED: 'false', SIMULATION_PROFILE: 'realistic' },
      () => {},
    );
    const database = createDatabase(databaseUrl, {
      poolMax: 10,
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 120_000,
    });
    const clock = await manualProductClock(database.pool, start);
    const logger = pino({ level: 'silent' });
    const services = buildServices({ config, database, log: logger, clock });
    const app = await buildApp({ config, database, services }, { logger });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const drain = () => workUntilIdle(services, clock);
    const pace: Pace = {
      vetted: drain,
      async until(_api, at) {
        await drain();
        while (clock.ms() < at) {
          await clock.advanceTo(Math.min(at, clock.ms() + STEP_MS));
          await drain();
        }
      },
    };
    return {
      url,
      pace,
      async stop() {
        await app.close();
        await services.close();
        await database.close();
      },
    };
  });
}
