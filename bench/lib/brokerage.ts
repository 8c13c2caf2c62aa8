import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { type NegotiationPolicy, scheduleTop } from '../../src/domain/negotiation-policy.js';
import {
  CarrierModel,
  carrierKeyOf,
  type MarketLoad,
  marketRateOf,
} from '../../src/integrations/simulation/carrier-model.js';
import { defined } from '../../src/lib/defined.js';
import { localMinutes, timeZoneOfState } from '../../src/lib/time-zones.js';
import { negotiationPolicySchema } from '../../src/modules/agent/negotiation-settings.js';
import { freePort } from '../../test/helpers/ports.js';

/**
 * A brokerage trying Envoy from outside, as one evaluating it would: a fresh server in its default
 * simulation (`npm start`'s entry point, SIMULATION_SPEED set), an organization made with the
 * admin CLI, then only the HTTP API: carriers on a few lanes with tiers, a registry snapshot of
 * their census, loads handed to the agent, and, once the server's clock has run the hours asked
 * for, everything read back through the API. No internal call and no database read: what a broker
 * sees is what is measured. The test (test/e2e) runs it at a small size, the benchmark
 * (bench/brokerage.ts) at full size.
 */

const run = promisify(execFile);
const HOUR = 3_600_000;

export interface BrokerageSize {
  carriers: number;
  lanes: number;
  loads: number;
  /** Simulated hours the agent works before the results are read. */
  hours: number;
  /** The server's SIMULATION_SPEED. */
  speed: number;
  seed: number;
}

const LANES: [string, string, string, string, number, string][] = [
  ['Chicago', 'IL', 'Dallas', 'TX', 925, 'VAN'],
  ['Dallas', 'TX', 'Atlanta', 'GA', 780, 'VAN'],
  ['Atlanta', 'GA', 'Chicago', 'IL', 715, 'VAN'],
  ['Los Angeles', 'CA', 'Phoenix', 'AZ', 370, 'VAN'],
  ['Phoenix', 'AZ', 'Denver', 'CO', 820, 'FLATBED'],
  ['Newark', 'NJ', 'Charlotte', 'NC', 530, 'VAN'],
  ['Charlotte', 'NC', 'Jacksonville', 'FL', 380, 'REEFER'],
  ['Memphis', 'TN', 'Columbus', 'OH', 575, 'VAN'],
];

/** A deterministic stream for the scenario (mulberry32). */
function stream(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

export interface ScenarioCarrier {
  mc: string;
  body: Record<string, unknown>;
  lanes: { lane: number; tier: number | null; restricted: boolean }[];
  homeState: string;
  blocked: boolean;
  stopped: boolean;
  active: boolean;
  email: string | null;
  phone: string | null;
}

export interface ScenarioLoad {
  number: string;
  lane: number;
  pickupAt: number;
  posted: number;
  ceiling: number;
  miles: number;
  equipment: string;
}

export interface Scenario {
  start: Date;
  carriers: ScenarioCarrier[];
  loads: ScenarioLoad[];
  census: Record<string, unknown>[];
}

const round25 = (n: number) => Math.round(n / 25) * 25;

/**
 * The brokerage's carriers and loads: `lanes` lanes, carriers spread over them with routing-guide
 * tiers (a few restricted on a lane, one disabled, one that asked not to be contacted, a few out of
 * service in the census), loads picked up from 3 hours after the start to the end of the simulated hours (8 at most) at rates around the lane's
 * market (the one the simulated carriers price against).
 */
export function scenario(size: BrokerageSize, start: Date): Scenario {
  const r = stream(size.seed);
  const lanes = LANES.slice(0, size.lanes);
  const carriers: ScenarioCarrier[] = [];
  for (let i = 0; i < size.carriers; i++) {
    const first = i % lanes.length;
    const second = r.next() < 0.3 ? (first + 1) % lanes.length : null;
    const memberships = [first, ...(second !== null && second !== first ? [second] : [])].map((lane) => ({
      lane,
      tier: [1, 2, 2, 3, 3, null][r.int(0, 5)] ?? null,
      restricted: r.next() < 0.05,
    }));
    const homeState = laneAt(first)[1];
    const mc = String(710_000 + i);
    const email = r.next() < 0.8 ? `dispatch${i}@bb-carrier${i}.example` : null;
    const phone = !email || r.next() < 0.85 ? `+1469${String(5_550_000 + i).padStart(7, '0')}` : null;
    const blocked = r.next() < 0.04;
    carriers.push({
      mc,
      homeState,
      lanes: memberships,
      blocked,
      stopped: i === 1,
      active: i !== 2,
      email,
      phone,
      body: {
        name: `Blackbox Carrier ${i}`,
        mc_number: mc,
        dot_number: String(3_710_000 + i),
        email,
        phone,
        home_state: homeState,
        equipment_types: [...new Set(memberships.map((m) => laneAt(m.lane)[5]))],
        insurance_expiration: '2035-01-01T00:00:00Z',
        is_active: i !== 2,
      },
    });
  }
  const census = carriers.map((c) => ({
    mc_number: c.mc,
    dot_number: String(3_710_000 + Number(c.mc) - 710_000),
    legal_name: String(c.body.name),
    allowed_to_operate: true,
    out_of_service: c.blocked,
    authorized_for_hire: true,
    insurance_on_file: true,
    authority_granted_at: '2016-03-01',
  }));
  const loads: ScenarioLoad[] = [];
  for (let i = 0; i < size.loads; i++) {
    const lane = i % lanes.length;
    const [, , , , miles, equipment] = laneAt(lane);
    const number = `BB-${size.seed}-${String(i + 1).padStart(4, '0')}`;
    const pickupAt = start.getTime() + (3 + r.next() * (Math.min(8, size.hours) - 3)) * HOUR;
    const market = marketRateOf(
      size.seed,
      marketLoadOf(
        { number, lane, pickupAt, posted: 0, ceiling: 0, miles, equipment },
        start.getTime(),
        null,
      ),
    );
    loads.push({
      number,
      lane,
      pickupAt,
      posted: round25(market * (0.9 + r.next() * 0.07)),
      ceiling: round25(market * (1.04 + r.next() * 0.08)),
      miles,
      equipment,
    });
  }
  return { start, carriers, loads, census };
}

/** A load as the simulated market knows it. */
export const marketLoadOf = (l: ScenarioLoad, handedAt: number, tier: number | null): MarketLoad => ({
  number: l.number,
  postedRate: l.posted || null,
  suggestedMarketRate: null,
  distance: l.miles,
  equipment: l.equipment,
  pickupAt: l.pickupAt,
  handedAt,
  tier,
});

/** `npm start`'s entry point (through the TypeScript loader), ready to answer. */
export async function startServer(
  env: Record<string, string>,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors = `${errors}${String(chunk)}`.slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${errors}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`the server was not ready within 120 s: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** The admin CLI, as an operator runs it: one JSON object on stdout. */
export async function admin(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
    env: { ...process.env, ...env },
  });
  return z.record(z.string(), z.union([z.string(), z.boolean()])).parse(JSON.parse(stdout));
}

type Json = Record<string, unknown>;

const jsonObject = z.record(z.string(), z.unknown());
const pageOf = z.object({ data: z.array(jsonObject), pagination: z.object({ total_pages: z.number() }) });
const idsOf = z.object({
  results: z.array(z.object({ carrier_id: z.string().nullish(), load_id: z.string().nullish() })),
});
const readiness = z.object({ clock: z.object({ now: z.string() }) });
/** What the brokerage reads of the agent's settings. */
const settingsSchema = z.object({
  quiet_hours_start: z.number(),
  quiet_hours_end: z.number(),
  daily_cap_per_carrier: z.number(),
  carrier_min_gap_minutes: z.number(),
  negotiation: z.unknown(),
});
type Settings = z.infer<typeof settingsSchema>;
const loadSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  booked_offer: z.object({ amount: z.number(), booked_at: z.string() }).nullable(),
});
const outreachSchema = z.object({
  carrier_id: z.string(),
  load_id: z.string(),
  sent_at: z.string().nullable(),
  status: z.string(),
  is_automated: z.boolean(),
  call_id: z.string().nullable(),
  conversation_id: z.string().nullable(),
});
const carrierStopSchema = z.object({ id: z.string(), stop_contact_requested_at: z.string().nullable() });

/** One of the lanes, by its index. */
const laneAt = (i: number) => defined(LANES[i], 'lane');

export function client(url: string, headers: Record<string, string>) {
  const call = async (method: string, route: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${url}/api/v1${route}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 400)}`);
    return text ? jsonObject.parse(JSON.parse(text)) : {};
  };
  /** Every item of a paginated list. */
  const all = async (route: string): Promise<Json[]> => {
    const items: Json[] = [];
    for (let page = 1; ; page++) {
      const res = await call('GET', `${route}${route.includes('?') ? '&' : '?'}page_size=100&page=${page}`);
      const { data, pagination } = pageOf.parse(res);
      items.push(...data);
      if (!data.length || page >= pagination.total_pages) return items;
    }
  };
  return { call, all, url };
}

export type Api = ReturnType<typeof client>;

/**
 * How time passes for the brokerage: it waits for its carriers' first compliance checks, then for
 * the server's clock to reach an instant. On a server's own clock (`wallPace`) it polls the API;
 * on a manual clock the runner moves the clock and runs the server's work itself.
 */
export interface Pace {
  vetted(api: Api, count: number): Promise<void>;
  until(api: Api, at: number, size: BrokerageSize): Promise<void>;
}

/** Waits (a minute at most) until every carrier of the organization has had its first compliance check. */
async function vetted(api: ReturnType<typeof client>, count: number) {
  const until = Date.now() + 60_000;
  for (;;) {
    const carriers = await api.all('/carriers');
    const checked = carriers.filter((c) => c.last_verified_at !== null && c.last_verified_at !== undefined);
    if (checked.length >= count || Date.now() > until) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface BrokerageFigures {
  loads: number;
  /** Loads with a carrier willing at or under the ceiling (eligible, reachable, with a truck). */
  willing: number;
  /**
   * Loads that could be covered at once: carriers willing at or under what the organization's
   * negotiation policy lets the agent pay (never over the ceiling), each carrier's trucks of a day
   * taking one load each (a largest matching).
   */
  coverable: number;
  booked: number;
  /** Bookings of loads the matching covers. */
  bookedCoverable: number;
  /** Booked loads over coverable loads (at most 1). */
  coverageOfCoverable: number;
  ttcP50Min: number | null;
  ttcP90Min: number | null;
  rateToCeilingP50: number | null;
  rateToCeilingMax: number | null;
  contacts: number;
  contactsPerCarrierMax: number;
  contactsPerBooking: number | null;
  forbidden: Record<string, number>;
  examples: string[];
  simulatedHours: number;
  wallSeconds: number;
}

const pct = (values: number[], p: number) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? null;
};

/**
 * Runs the brokerage on a fresh server against `databaseUrl` (a database of its own) and returns
 * what the API shows after `size.hours` simulated hours.
 */
export async function runBrokerage(databaseUrl: string, size: BrokerageSize): Promise<BrokerageFigures> {
  // Tomorrow 13:00 UTC: 07:00 or 08:00 in Chicago, a working day ahead of the carriers.
  const start = new Date(Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR + 13 * HOUR);
  return inScenario(databaseUrl, size, start, async (env) => {
    const server = await startServer({
      ...env,
      SIMULATION_SPEED: String(size.speed),
      SIMULATION_START: start.toISOString(),
      WORKER_POLL_MS: '250',
    });
    return { url: server.url, pace: wallPace, stop: server.stop };
  });
}

/** A server for the brokerage, on `env` (its database, data folder, registry, seed), and how its time passes. */
export type Serve = (
  env: Record<string, string>,
) => Promise<{ url: string; pace: Pace; stop: () => Promise<void> }>;

/**
 * The brokerage's scenario from `start` on a server `serve` starts against `databaseUrl`: an
 * organization made with the admin CLI, then the HTTP API only.
 */
export async function inScenario(
  databaseUrl: string,
  size: BrokerageSize,
  start: Date,
  serve: Serve,
): Promise<BrokerageFigures> {
  const started = Date.now();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-brokerage-'));
  const s = scenario(size, start);
  const registry = path.join(dir, 'registry.json');
  writeFileSync(registry, JSON.stringify(s.census));
  const env = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dir,
    JWT_SECRET: 'b'.repeat(40),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    COMPLIANCE_REGISTRY_FILE: registry,
    SIMULATION_SEED: String(size.seed),
  };
  const server = await serve(env);
  try {
    const org = await admin(env, 'create-org', '--name', `Blackbox Brokerage ${size.seed}`);
    const email = `owner-${size.seed}-${Date.now()}@blackbox.example`;
    const password = 'blackbox-owner-password-1';
    await admin(
      env,
      'create-user',
      '--org',
      String(org.organization_id ?? ''),
      '--email',
      email,
      '--password',
      password,
      '--role',
      'OWNER',
    );
    const login = await client(server.url, {}).call('POST', '/auth/login', { email, password });
    const bearer = client(server.url, { authorization: `Bearer ${String(login.access_token)}` });
    const key = await bearer.call('POST', '/api-keys', { name: 'blackbox' });
    const api = client(server.url, { 'x-api-key': String(key.key) });
    return await work(api, s, size, started, server.pace);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function work(api: Api, s: Scenario, size: BrokerageSize, started: number, pace: Pace) {
  const settings = settingsSchema.parse(
    await api.call('PATCH', '/agent/settings', {
      auto_accept_at_or_under_posted_rate: true,
      negotiation: { auto_accept_at_or_under_ask: true },
    }),
  );
  const batch = await api.call('POST', '/carriers/batch', {
    carriers: s.carriers.map((c) => ({
      carrier: c.body,
      lanes: c.lanes.map((m) => {
        const [oc, os_, dc, ds, , equipment] = laneAt(m.lane);
        return {
          origin: { city: oc, state: os_ },
          destination: { city: dc, state: ds },
          equipment_type: equipment,
          preference_type: m.restricted ? 'restricted' : 'primary',
          routing_guide_tier: m.tier,
        };
      }),
    })),
  });
  const carrierIds = idsOf.parse(batch).results.map((r) => defined(r.carrier_id, 'carrier_id'));
  for (const [i, c] of s.carriers.entries()) {
    if (c.stopped) await api.call('POST', `/carriers/${carrierIds[i]}/stop-contact`);
  }
  // As a brokerage would, it hands its loads once its carriers have been vetted (the carriers page
  // shows each one's first check): one out of service is then known BLOCKED before any contact.
  await pace.vetted(api, carrierIds.length);
  const handed = await api.call('POST', '/loads/batch', {
    loads: s.loads.map((l) => {
      const [oc, os_, dc, ds] = laneAt(l.lane);
      return {
        load_number: l.number,
        equipment_type: l.equipment,
        tms_status: 'Open',
        assigned_to_ai_agent: true,
        posted_rate: l.posted,
        max_buy_rate: l.ceiling,
        distance: l.miles,
        weight: 30_000,
        commodity: 'General freight',
        stops: [
          {
            type: 'Pickup',
            location: { city: oc, state: os_ },
            expected_date: new Date(l.pickupAt).toISOString(),
          },
          {
            type: 'Dropoff',
            location: { city: dc, state: ds },
            expected_date: new Date(l.pickupAt + (l.miles / 50) * HOUR).toISOString(),
          },
        ],
      };
    }),
  });
  const loadIds = idsOf.parse(handed).results.map((r) => defined(r.load_id, 'load_id'));
  await pace.until(api, s.start.getTime() + size.hours * HOUR, size);
  return figuresOf(api, s, settings, carrierIds, loadIds, size, started);
}

/** A server's own clock: the brokerage checks the time the API says until it is there. */
const wallPace: Pace = {
  vetted,
  async until(api, until, size) {
    for (;;) {
      const ready = readiness.parse(await fetch(`${api.url}/readyz`).then((r) => r.json()));
      const now = Date.parse(ready.clock.now);
      if (now >= until) return;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(2000, Math.max(100, (until - now) / size.speed))),
      );
    }
  },
};

/** The organization's negotiation policy as GET/PATCH /agent/settings shows it. */
const policyOf = (settings: Settings): NegotiationPolicy =>
  negotiationPolicySchema.parse(settings.negotiation);

/**
 * Who could cover what: a load is willing when an eligible (primary on the lane, active, not
 * stopped or blocked, not about to ask to stop) and reachable carrier has a truck for it at or under
 * its ceiling; the coverable loads are a largest matching of loads to carriers' trucks of the
 * pickup day, each priced at or under the most the agent may pay (the policy's top, never over the
 * ceiling).
 */
function whoCouldCover(s: Scenario, model: CarrierModel, handedAt: number[], policy: NegotiationPolicy) {
  const willing = new Set<number>();
  const edges: number[][] = s.loads.map(() => []);
  const slots: { carrier: number; day: number }[] = [];
  const slotOf = new Map<string, number[]>();
  s.loads.forEach((l, i) => {
    const top = Math.min(
      l.ceiling,
      scheduleTop(policy, {
        posted: l.posted,
        ceiling: l.ceiling,
        market: null,
        pickupAt: new Date(l.pickupAt),
      }) ?? l.ceiling,
    );
    s.carriers.forEach((c, k) => {
      const m = c.lanes.find((x) => x.lane === l.lane);
      if (!m || m.restricted || c.blocked || c.stopped || !c.active) return;
      const p = model.persona(carrierKeyOf(c.mc, null, null));
      if (p.asksToStop || ((!c.email || p.badEmail) && (!c.phone || p.deadPhone))) return;
      const facts = marketLoadOf(l, handedAt[i] ?? s.start.getTime(), m.tier);
      if (!model.hasTruck(p, facts)) return;
      const least = model.reservation(p, facts);
      if (least <= l.ceiling) willing.add(i);
      if (least > top) return;
      const day = Math.floor(l.pickupAt / (24 * HOUR));
      const key = `${k}|${day}`;
      if (!slotOf.has(key)) {
        slotOf.set(
          key,
          Array.from({ length: p.trucksPerDay }, () => slots.push({ carrier: k, day }) - 1),
        );
      }
      defined(edges[i], 'edges[i]').push(...(slotOf.get(key) ?? []));
    });
  });
  // Augmenting paths (Kuhn's algorithm): a few dozen loads and a few hundred trucks.
  const owner = new Map<number, number>();
  const assign = (load: number, seen: Set<number>): boolean => {
    for (const slot of edges[load] ?? []) {
      if (seen.has(slot)) continue;
      seen.add(slot);
      const held = owner.get(slot);
      if (held === undefined || assign(held, seen)) {
        owner.set(slot, load);
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < s.loads.length; i++) assign(i, new Set());
  return { willing, coverable: new Set(owner.values()) };
}

/**
 * What the API shows: bookings (before pickup, at or under the ceiling), time to cover, contacts
 * per carrier, and every contact the policy forbids: to a carrier that asked to stop, is blocked,
 * disabled or restricted on the lane; in its quiet hours; over its daily cap; closer than the gap
 * to its previous contact.
 */
async function figuresOf(
  api: ReturnType<typeof client>,
  s: Scenario,
  settings: Settings,
  carrierIds: string[],
  loadIds: string[],
  size: BrokerageSize,
  started: number,
): Promise<BrokerageFigures> {
  const model = new CarrierModel(size.seed, 'realistic');
  const carrierOf = new Map(carrierIds.map((id, i) => [id, defined(s.carriers[i], 'carrier')]));
  const loadOf = new Map(loadIds.map((id, i) => [id, defined(s.loads[i], 'load')]));
  const loads = await Promise.all(
    loadIds.map(async (id) => loadSchema.parse(await api.call('GET', `/loads/${id}`))),
  );
  const outreaches = z.array(outreachSchema).parse(await api.all('/outreaches'));
  const sent = outreaches.filter((o) => o.is_automated && o.sent_at !== null);
  const carriers = new Map(
    z
      .array(carrierStopSchema)
      .parse(await api.all('/carriers'))
      .map((c) => [c.id, c]),
  );
  const forbidden: Record<string, number> = {
    stop_contact: 0,
    blocked_disabled_or_restricted: 0,
    quiet_hours: 0,
    daily_cap: 0,
    gap: 0,
    above_ceiling: 0,
  };
  const examples: string[] = [];
  const breach = (kind: string, detail: string) => {
    forbidden[kind] = (forbidden[kind] ?? 0) + 1;
    if (examples.length < 10) examples.push(`${kind}: ${detail}`);
  };
  // Bookings.
  const ttc: number[] = [];
  const toCeiling: number[] = [];
  const handedAt = loads.map((load) => Date.parse(String(load.created_at)));
  const { willing, coverable } = whoCouldCover(s, model, handedAt, policyOf(settings));
  let booked = 0;
  let bookedCoverable = 0;
  for (const [i, load] of loads.entries()) {
    const l = defined(s.loads[i], 'load');
    const booking = load.booked_offer;
    if (!booking || Date.parse(booking.booked_at) > l.pickupAt) continue;
    booked++;
    if (coverable.has(i)) bookedCoverable++;
    ttc.push((Date.parse(booking.booked_at) - (handedAt[i] ?? 0)) / 60_000);
    toCeiling.push(booking.amount / l.ceiling);
    if (booking.amount > l.ceiling) breach('above_ceiling', `${l.number} booked at ${booking.amount}`);
  }
  // Contacts.
  const quietStart = settings.quiet_hours_start;
  const quietEnd = settings.quiet_hours_end;
  const cap = settings.daily_cap_per_carrier;
  const gapMs = settings.carrier_min_gap_minutes * 60_000;
  const byCarrier = new Map<string, { at: number; key: string }[]>();
  for (const o of sent) {
    const c = carrierOf.get(o.carrier_id);
    const l = loadOf.get(o.load_id);
    if (!c || !l) continue;
    const at = Date.parse(String(o.sent_at));
    const row = carriers.get(o.carrier_id);
    const stoppedAt = row?.stop_contact_requested_at
      ? Date.parse(String(row.stop_contact_requested_at))
      : null;
    if (stoppedAt !== null && stoppedAt < at) breach('stop_contact', `${o.carrier_id} on ${l.number}`);
    if (c.blocked || !c.active || c.lanes.find((m) => m.lane === l.lane)?.restricted) {
      breach('blocked_disabled_or_restricted', `${o.carrier_id} on ${l.number}`);
    }
    const minute = localMinutes(new Date(at), timeZoneOfState(c.homeState) ?? 'America/Chicago');
    const quiet =
      quietStart !== quietEnd &&
      (quietStart < quietEnd
        ? minute >= quietStart * 60 && minute < quietEnd * 60
        : minute >= quietStart * 60 || minute < quietEnd * 60);
    if (quiet) breach('quiet_hours', `${o.carrier_id} at ${String(o.sent_at)}`);
    const list = byCarrier.get(o.carrier_id) ?? [];
    // One message or call naming several loads is one contact.
    const key = o.call_id ?? o.conversation_id ?? `${o.load_id}|${o.sent_at}`;
    if (!list.some((x) => x.key === key)) list.push({ at, key });
    byCarrier.set(o.carrier_id, list);
  }
  for (const [id, list] of byCarrier) {
    list.sort((a, b) => a.at - b.at);
    list.forEach((x, i) => {
      const inDay = list.filter((y) => y.at <= x.at && x.at - y.at < 24 * HOUR).length;
      if (inDay > cap) breach('daily_cap', `${id}: ${inDay} contacts in 24 hours`);
      const previous = list[i - 1];
      if (previous && x.at - previous.at < gapMs)
        breach('gap', `${id}: ${(x.at - previous.at) / 60_000} min apart`);
    });
  }
  const contacts = [...byCarrier.values()].reduce((n, l) => n + l.length, 0);
  return {
    loads: loads.length,
    willing: willing.size,
    coverable: coverable.size,
    booked,
    bookedCoverable,
    coverageOfCoverable: coverable.size ? Math.min(1, booked / coverable.size) : 0,
    ttcP50Min: pct(ttc, 50),
    ttcP90Min: pct(ttc, 90),
    rateToCeilingP50: pct(toCeiling, 50),
    rateToCeilingMax: pct(toCeiling, 100),
    contacts,
    contactsPerCarrierMax: Math.max(0, ...[...byCarrier.values()].map((l) => l.length)),
    contactsPerBooking: booked ? contacts / booked : null,
    forbidden,
    examples,
    simulatedHours: size.hours,
    wallSeconds: (Date.now() - started) / 1000,
  };
}
