import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type Config, loadConfig } from '../config.js';
import type { Database, Db } from '../db/client.js';
import type { OrgScope } from '../domain/scope.js';
import { updateAgentSettings } from '../modules/agent/agent-settings.js';
import { buildServices, type Services } from '../services.js';
import { seedAgentWork } from './seed-demo/demo-agent.js';
import { seedElpTests, seedOutreaches } from './seed-demo/demo-calls.js';
import { seedCarriers } from './seed-demo/demo-carriers.js';
import { prng } from './seed-demo/demo-data.js';
import { seedLoads } from './seed-demo/demo-loads.js';
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
 * on real US lanes, 100 carriers with tiers and lane preferences (some BLOCKED by the registry,
 * some disabled or restricted, one that asked not to be contacted), offers in every state, calls
 * and outreaches on every channel, ELP tests scored and not. Everything goes through the services
 * the API uses; calls run on the simulated voice platform at high speed. The organization's agent
 * settings suit a demo (no quiet hours, 2-minute waves, automatic booking at the posted rate), so a
 * running server's agent covers the open loads within minutes.
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
  // The demo's carriers come with a census snapshot of their own, written below before any check.
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'envoy-demo-'));
  const registryFile = path.join(workDir, 'census.json');
  const services = buildServices({
    config: demoConfig(env, registryFile),
    database,
    log: pino({ level: 'silent' }),
  });
  try {
    return await seedWith(services, db, { rnd, tag, workDir, registryFile }, progress);
  } finally {
    await services.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * The demo's configuration: the census snapshot it writes, every channel simulated and fast
 * (a 30 s call takes 60 ms), carriers that never reply on their own, and no workers: a running
 * server's agent works the demo organization.
 */
function demoConfig(env: Record<string, string | undefined>, registryFile: string): Config {
  return loadConfig(
    {
      ...env,
      COMPLIANCE_PROVIDER: 'registry',
      COMPLIANCE_REGISTRY_FILE: registryFile,
      VOICE_PROVIDER: 'simulated',
      SIMULATION_SPEED: '500',
      SIMULATION_PROFILE: 'silent',
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
  run: { rnd: ReturnType<typeof prng>; tag: string; workDir: string; registryFile: string },
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
  await seedAgentWork(demo, loads);
  await seedElpTests(demo, carrierIds, counts);

  return {
    organization_id: org.id,
    organization_name: orgName,
    owner: { user_id: user.id, email, password },
    api_key: { id: apiKey.id, key: apiKey.key },
    counts: {
      loads: loads.loadIds.length,
      carriers: carrierIds.length,
      offers: offerCount,
      ...counts,
    },
  };
}

/** The demo organization with agent settings that suit a demo, its owner and an API key. */
async function seedOrganization(services: Services, db: Db, tag: string) {
  const auth = services.auth;
  const orgName = `Envoy Demo Freight ${tag}`;
  const org = await auth.createOrganization(orgName);
  // A demo shows the agent at work within minutes: no quiet hours, short waits between waves, and
  // offers at or under the posted rate book the load without a rep.
  await updateAgentSettings(db, org.id, {
    quiet_hours_start: 0,
    quiet_hours_end: 0,
    wave_wait_minutes: 2,
    auto_accept_at_or_under_posted_rate: true,
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
