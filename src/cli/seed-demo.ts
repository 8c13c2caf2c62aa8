import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { type Config, loadConfig } from '../config.js';
import type { Database, Db } from '../db/client.js';
import { joinProductClock } from '../db/product-clock.js';
import type { OrgScope } from '../domain/scope.js';
import { type Clock, HurriedClock } from '../lib/clock.js';
import { updateAgentSettings } from '../modules/agent/agent-settings.js';
import { buildServices, type Services } from '../services.js';
import { seedElpTests, seedOutreaches } from './seed-demo/demo-calls.js';
import { seedCarriers } from './seed-demo/demo-carriers.js';
import { prng } from './seed-demo/demo-data.js';
import { handToAgent, seedLoads } from './seed-demo/demo-loads.js';
import { seedOffers } from './seed-demo/demo-offers.js';
import type { DemoRun } from './seed-demo/demo-run.js';

export interface DemoResult {
  organization_id: string;
  organization_name: string;
  owner: { user_id: string; email: string; password: string };
  api_key: { id: string; key: string };
  counts: Record<string, number>;
}

/**
 * A demo organization a newcomer can explore: an owner and an API key, 200 loads in every status
 * on real US lanes, the open ones handed to the agent, 100 carriers with tiers and lane
 * preferences (some BLOCKED by the registry, some disabled or restricted, one that asked not to be
 * contacted), offers in every state, calls and outreaches on every channel, ELP tests scored and
 * not. Everything goes through the services the API uses, on the database's product clock (a
 * simulation's, when a server runs one); the demo's own calls and carriers' answers play out in
 * moments. The carriers' census records go into the registry snapshot the server reads, so its
 * compliance checks keep the demo's verdicts. The agent's work is the running server's: with
 * SIMULATION_SPEED set, it books the handed loads within minutes.
 */
export async function seedDemo(
  database: Database,
  /** The environment the admin CLI runs in; the demo overrides the providers (see demoConfig). */
  env: Record<string, string | undefined>,
  /** Told about each step as it finishes (the admin CLI prints it on stderr). */
  progress: (step: string) => void = () => {},
): Promise<DemoResult> {
  const { db } = database;
  const rnd = prng(20_260_301);
  const tag = randomBytes(3).toString('hex');
  const config = demoConfig(env);
  const joined = await joinProductClock(database.pool);
  // The demo's history (its calls, the carriers' answers to its outreaches) plays 500 times faster
  // than the product clock, so seeding takes seconds; what it records is on the product clock.
  const clock = new HurriedClock(joined.clock, 500);
  const services = buildServices({ config, database, log: pino({ level: 'silent' }), clock });
  try {
    return await seedWith(
      services,
      db,
      { rnd, tag, clock, registryFile: config.compliance.registryFile },
      progress,
    );
  } finally {
    await services.close();
    await joined.stop();
  }
}

/**
 * The demo's configuration: the registry snapshot the environment names (the server's, by
 * default DATA_DIR/carrier-registry.json), every channel simulated with realistic carriers, and no
 * workers: a running server's agent works the demo organization.
 */
function demoConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(
    {
      ...env,
      COMPLIANCE_PROVIDER: 'registry',
      VOICE_PROVIDER: 'simulated',
      SIMULATION_SPEED: undefined,
      SIMULATION_PROFILE: 'realistic',
      EMAIL_TRANSPORT: 'simulated',
      WHATSAPP_PROVIDER: 'simulated',
      EMAIL_FROM: 'Envoy Demo <dispatch@envoy.local>',
      EMAIL_REPLY_DOMAIN: 'reply.envoy.local',
      WORKERS_ENABLED: 'false',
      LLM_BASE_URL: undefined,
    },
    () => {},
  );
}

async function seedWith(
  services: Services,
  db: Db,
  run: { rnd: ReturnType<typeof prng>; tag: string; clock: Clock; registryFile: string },
  progress: (step: string) => void,
): Promise<DemoResult> {
  const { org, orgName, user, email, password, scope, apiKey } = await seedOrganization(
    services,
    db,
    run.tag,
  );
  progress(`organization ${org.id}, its owner and an API key`);
  const demo: DemoRun = {
    services,
    db,
    rnd: run.rnd,
    tag: run.tag,
    registryFile: run.registryFile,
    clock: run.clock,
    progress,
    org,
    user,
    email,
    scope,
  };
  const carrierIds = await seedCarriers(demo);
  const loads = await seedLoads(demo, carrierIds);
  const offerCount = await seedOffers(demo, carrierIds, loads);
  const counts = await seedOutreaches(demo, carrierIds, loads.idsOf);
  await seedElpTests(demo, carrierIds, counts);
  const handed = await handToAgent(demo, loads);

  return {
    organization_id: org.id,
    organization_name: orgName,
    owner: { user_id: user.id, email, password },
    api_key: { id: apiKey.id, key: apiKey.key },
    counts: {
      loads: loads.loadIds.length,
      carriers: carrierIds.length,
      offers: offerCount,
      handed_to_agent: handed,
      ...counts,
    },
  };
}

/** The demo organization with agent settings that suit a demo, its owner and an API key. */
async function seedOrganization(services: Services, db: Db, tag: string) {
  const auth = services.auth;
  const orgName = `Envoy Demo Freight ${tag}`;
  const org = await auth.createOrganization(orgName);
  // The agent's rules as they come (quiet hours, waves, caps, the gap between contacts); the
  // demo only lets the agent book without a rep an offer at or under the posted rate or its own ask.
  await updateAgentSettings(db, org.id, {
    auto_accept_at_or_under_posted_rate: true,
    negotiation: { auto_accept_at_or_under_ask: true },
  });
  const email = `owner-${tag}@demo.envoy.dev`;
  const password = `demo-${randomBytes(9).toString('base64url')}`;
  const { user } = await auth.createUser({
    organizationId: org.id,
    email,
    password,
    role: 'OWNER',
    phone: '+14155550100',
    name: 'Demo Owner',
  });
  const scope: OrgScope = {
    organizationId: org.id,
    principal: {
      kind: 'bearer',
      userId: user.id,
      sessionId: null,
      organizationId: org.id,
      role: 'OWNER',
    },
  };
  const apiKey = await services.apiKeys.create(scope, {
    name: 'Demo TMS integration',
  });
  return { org, orgName, user, email, password, scope, apiKey };
}
