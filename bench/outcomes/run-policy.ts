import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/client.js';
import type { MarketEvent } from '../../src/integrations/simulation/market.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { defined } from '../../src/lib/defined.js';
import { workableSql } from '../../src/modules/read-side/index.js';
import { buildServices, type Services } from '../../src/services.js';
import { benchConfig, smoke } from '../lib/harness.js';
import type { Market, SimCarrier, SimLoad } from './market.js';

/** One policy: the agent settings it runs with, and what it changes on the carriers, if anything. */
export interface Policy {
  name: string;
  /** Run only when BENCH_OUTCOMES_POLICIES names it (a variant measured for a trade-off). */
  optional?: boolean;
  /** A PATCH /agent/settings body. */
  settings: Record<string, unknown>;
  /** Fields added to each carrier's POST /carriers/batch item (e.g. a channel preference). */
  carrierFields?: (c: SimCarrier) => Record<string, unknown>;
  /** Fields added to each lane preference of a carrier. */
  laneFields?: (c: SimCarrier, lane: number) => Record<string, unknown>;
}

export interface RunResult {
  database: Database;
  /** What the market's carriers said, and the answers the service refused. */
  events: MarketEvent[];
  /** The run's ids: carrier index to carrier id, load index to load id. */
  carrierIds: string[];
  loadIds: string[];
  settings: Record<string, unknown>;
  failures: string[];
  wallSeconds: number;
  agentRounds: number;
}

const STEP_MS = 60_000;
const MAX_STEP_MS = 30 * 60_000;

type Api = <T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: object,
) => Promise<T>;
type Ids = { results: { load_id: string; carrier_id: string }[] };

/**
 * Runs one policy over the scenario on a fresh database: the organization, its carriers and lanes
 * and its settings through the API, the loads handed to the agent through the API as they arrive,
 * the agent's worker round by round on the manual product clock, and the carriers answering as the
 * product's own simulated market plays them (the same code a server runs with no providers set),
 * through the handlers of the inbound webhooks and the voice tools. Returns the database (still
 * open) for the figures.
 */
export async function runPolicy(
  database: Database,
  clock: ManualClock,
  market: Market,
  policy: Policy,
): Promise<{ result: RunResult; close: () => Promise<void> }> {
  const started = performance.now();
  const config = benchConfig({
    WORKERS_ENABLED: 'false',
    SIMULATION_PROFILE: 'realistic',
    SIMULATION_SEED: String(market.seed),
    EMAIL_FROM: 'Envoy Dispatch <dispatch@broker.example>',
    EMAIL_REPLY_DOMAIN: 'reply.broker.example',
    COMPLIANCE_REGISTRY_FILE: registryOf(market),
  });
  const logger = pino({ level: 'silent' });
  const services = buildServices({ config, database, log: logger, clock });
  const events: MarketEvent[] = [];
  defined(services.market, 'the simulated market').observer = (e) => events.push(e);
  const app = await buildApp({ config, database, services }, { logger });
  await app.ready();
  const close = async () => {
    await app.close();
    await services.close();
  };
  const api = await apiOf(app, services, policy.name);
  const settings = await api('PATCH', '/api/v1/agent/settings', policy.settings);
  const carrierIds = await createCarriers(api, services, market, policy);

  const loadIds: string[] = new Array(market.loads.length);
  const pending = [...market.loads];
  const open = new Set<SimLoad>();
  const sweeper = defined(
    services.workers.find((w) => w.name === 'outreach-sweeper'),
    "services.workers.find((w) => w.name === 'outreach-sweeper')",
  );
  const lastPickup = Math.max(...market.loads.map((l) => l.pickupAt));
  let agentRounds = 0;
  const phase = { market: 0, api: 0, agent: 0, sweep: 0, next: 0, steps: 0 };
  let t = performance.now();
  const lap = (k: keyof typeof phase) => {
    const n = performance.now();
    phase[k] += n - t;
    t = n;
  };
  let day = Math.floor(clock.ms() / 86_400_000);
  for (let now = clock.ms(); now <= lastPickup + STEP_MS; ) {
    phase.steps++;
    if (!smoke && Math.floor(now / 86_400_000) > day) {
      day = Math.floor(now / 86_400_000);
      console.log(
        `    ${policy.name}: ${new Date(now).toISOString().slice(0, 10)}, ${market.loads.length - pending.length} loads handed, ${Math.round((performance.now() - started) / 1000)} s`,
      );
    }
    // The carriers' answers due by now, each at its own time.
    await clock.advanceTo(now);
    lap('market');
    const arriving: SimLoad[] = [];
    while (pending.length && defined(pending[0], 'pending[0]').arrivesAt <= now)
      arriving.push(defined(pending.shift(), 'pending.shift()'));
    if (arriving.length) {
      const ids = await handLoads(api, market, arriving);
      arriving.forEach((l, i) => {
        loadIds[l.index] = defined(ids[i], 'ids[i]');
        open.add(l);
      });
    }
    await expire(
      api,
      database,
      [...open].filter((l) => l.pickupAt <= now),
      loadIds,
      open,
    );
    lap('api');
    for (let round = 0; round < 20; round++) {
      const done = await services.agent.tick(clock.now());
      agentRounds++;
      // What the round sent reaches the carriers now (the market reads it at once).
      await clock.advanceTo(now);
      if (done.cancelled + done.planned + done.dispatched === 0) break;
    }
    lap('agent');
    await sweeper.drain();
    lap('sweep');
    now = await nextTime(database, clock, now, pending[0]?.arrivesAt, [...open]);
    lap('next');
  }
  if (process.env.BENCH_OUTCOMES_PHASES === '1') {
    console.log(
      `  ${policy.name} phases (s):`,
      Object.fromEntries(
        Object.entries(phase).map(([k, v]) => [k, k === 'steps' ? v : Math.round(v / 1000)]),
      ),
    );
  }
  return {
    result: {
      database,
      events,
      carrierIds,
      loadIds,
      settings,
      failures: events.flatMap((e) => (e.kind === 'refused' ? [e.detail] : [])),
      wallSeconds: (performance.now() - started) / 1000,
      agentRounds,
    },
    close,
  };
}

/**
 * The next moment anything happens: a carrier's answer, a load's arrival (to the minute it
 * arrives, so its market is the one the scenario priced), a planning or a queued contact coming
 * due, a pickup; at least a minute on for anything but an arrival, at most half an hour.
 */
async function nextTime(
  database: Database,
  clock: ManualClock,
  now: number,
  arrival: number | undefined,
  open: SimLoad[],
) {
  const l = sql.identifier('l');
  const due = await database.db.execute<{ t: Date | null }>(sql`
    SELECT least(
      (SELECT min(s.next_wave_at) FROM agent_load_states s JOIN loads l ON l.id = s.load_id WHERE ${workableSql(l)}),
      (SELECT min(send_after) FROM outreaches WHERE is_automated AND status = 'pending')) AS t`);
  const candidates = [
    clock.nextAt(),
    due.rows[0]?.t ? new Date(due.rows[0].t).getTime() : undefined,
    ...open.map((o) => o.pickupAt),
  ].filter((t): t is number => t !== undefined);
  const soonest = Math.max(now + STEP_MS, Math.min(now + MAX_STEP_MS, ...candidates));
  return arrival !== undefined && arrival > now ? Math.min(arrival, soonest) : soonest;
}

/** Loads whose pickup came without a booking: the TMS cancels them (nothing more to work). */
async function expire(api: Api, database: Database, due: SimLoad[], loadIds: string[], open: Set<SimLoad>) {
  if (!due.length) return;
  for (const l of due) open.delete(l);
  const booked = await database.pool.query<{ load_id: string }>(
    `SELECT load_id FROM offers WHERE status = 'accepted' AND load_id = ANY($1::text[])`,
    [due.map((l) => loadIds[l.index])],
  );
  const covered = new Set(booked.rows.map((r) => r.load_id));
  const cancel = due.filter((l) => !covered.has(defined(loadIds[l.index], 'loadIds[l.index]')));
  if (!cancel.length) return;
  await api('POST', '/api/v1/loads/batch', {
    loads: cancel.map((l) => ({
      load_number: l.number,
      equipment_type: l.equipment,
      tms_status: 'Cancelled',
    })),
  });
}

async function handLoads(api: Api, market: Market, loads: SimLoad[]): Promise<string[]> {
  const body = {
    loads: loads.map((l) => {
      const lane = defined(market.lanes[l.lane], 'market.lanes[l.lane]');
      return {
        load_number: l.number,
        equipment_type: l.equipment,
        tms_status: 'Open',
        assigned_to_ai_agent: true,
        posted_rate: l.posted,
        max_buy_rate: l.ceiling,
        customer_rate: l.customer,
        suggested_market_rate: l.suggested,
        distance: lane.miles,
        weight: l.weight,
        commodity: 'General freight',
        stops: [
          { type: 'Pickup', location: lane.origin, expected_date: new Date(l.pickupAt).toISOString() },
          {
            type: 'Dropoff',
            location: lane.destination,
            expected_date: new Date(l.pickupAt + (lane.miles / 50) * 3_600_000).toISOString(),
          },
        ],
      };
    }),
  };
  const res = await api<Ids>('POST', '/api/v1/loads/batch', body);
  return res.results.map((r) => r.load_id);
}

async function createCarriers(api: Api, services: Services, market: Market, policy: Policy) {
  const ids: string[] = [];
  for (let i = 0; i < market.carriers.length; i += 1000) {
    const chunk = market.carriers.slice(i, i + 1000);
    const res = await api<Ids>('POST', '/api/v1/carriers/batch', {
      carriers: chunk.map((c) => ({
        carrier: {
          name: c.name,
          mc_number: c.mc,
          email: c.email,
          phone: c.phone,
          home_state: c.homeState,
          equipment_types: c.equipment,
          insurance_expiration: '2030-01-01T00:00:00Z',
          is_active: c.active,
          ...policy.carrierFields?.(c),
        },
        lanes: c.lanes.map((m) => {
          const lane = defined(market.lanes[m.lane], 'market.lanes[m.lane]');
          return {
            origin: lane.origin,
            destination: lane.destination,
            equipment_type: lane.equipment,
            preference_type: m.preference,
            routing_guide_tier: m.tier,
            ...policy.laneFields?.(c, m.lane),
          };
        }),
      })),
    });
    ids.push(...res.results.map((r) => r.carrier_id));
  }
  for (const c of market.carriers.filter((x) => x.stopped)) {
    await api('POST', `/api/v1/carriers/${ids[c.index]}/stop-contact`);
  }
  const compliance = defined(
    services.workers.find((w) => w.name === 'compliance'),
    "services.workers.find((w) => w.name === 'compliance')",
  );
  while ((await compliance.drain()) > 0) {}
  return ids;
}

/** An organization with an owner and an API key; every call after this goes through the API. */
async function apiOf(app: FastifyInstance, services: Services, label: string): Promise<Api> {
  const org = await services.auth.createOrganization(`Outcomes ${label}`);
  const email = `owner-${label}@broker.example`.toLowerCase();
  const password = 'outcomes-bench-password-1';
  await services.auth.createUser({
    organizationId: org.id,
    email,
    password,
    role: 'OWNER',
    phone: null,
    name: null,
  });
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
  if (login.statusCode !== 200) throw new Error(`login: ${login.statusCode} ${login.body}`);
  const bearer = { authorization: `Bearer ${login.json().access_token}` };
  const key = await app.inject({
    method: 'POST',
    url: '/api/v1/api-keys',
    headers: bearer,
    payload: { name: 'outcomes' },
  });
  if (key.statusCode !== 201) throw new Error(`api key: ${key.statusCode} ${key.body}`);
  const headers = { 'x-api-key': key.json<{ key: string }>().key };
  return async (method, url, payload) => {
    const res = await app.inject({
      method,
      url,
      headers,
      ...(payload === undefined ? {} : { payload }),
    });
    if (res.statusCode >= 300)
      throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 500)}`);
    return res.json<never>();
  };
}

/** The census snapshot the compliance check reads: good standing, or out of service (blocked). */
function registryOf(market: Market): string {
  const file = path.join(os.tmpdir(), `envoy-outcomes-registry-${process.pid}-${market.seed}.json`);
  const records = market.carriers
    .filter((c) => c.compliance !== 'unverified')
    .map((c) => ({
      mc_number: c.mc,
      dot_number: String(Number(c.mc) + 1_000_000),
      legal_name: c.name,
      allowed_to_operate: true,
      out_of_service: c.compliance === 'blocked',
      authorized_for_hire: true,
      insurance_on_file: true,
      authority_granted_at: '2015-01-01',
    }));
  writeFileSync(file, JSON.stringify(records));
  return file;
}
