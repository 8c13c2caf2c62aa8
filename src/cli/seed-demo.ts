import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Db } from '../db/client.js';
import type { OrgScope } from '../http/authentication.js';
import { RegistryProvider } from '../integrations/compliance/registry-provider.js';
import { SimulatedEmailSender } from '../integrations/email/simulated-email-sender.js';
import { SimulatedVoiceProvider } from '../integrations/voice/simulated-provider.js';
import { SimulatedWhatsAppSender } from '../integrations/whatsapp/simulated-whatsapp-sender.js';
import { AgentService } from '../modules/agent/agent-service.js';
import { agentOfferPolicy, updateAgentSettings } from '../modules/agent/agent-settings.js';
import { ApiKeyCredentials } from '../modules/api-keys/api-key-credentials.js';
import { ApiKeysService } from '../modules/api-keys/api-keys-service.js';
import { AuthService } from '../modules/auth/auth-service.js';
import type { TokenService } from '../modules/auth/tokens.js';
import { CallsService } from '../modules/calls/calls-service.js';
import { calls } from '../modules/calls/calls-tables.js';
import { CarriersService } from '../modules/carriers/carriers-service.js';
import { lanePreferences } from '../modules/carriers/carriers-tables.js';
import { ComplianceService } from '../modules/carriers/compliance-service.js';
import { StopContactRequests } from '../modules/carriers/stop-contact.js';
import { LoadsService } from '../modules/loads/loads-service.js';
import { OffersService } from '../modules/offers/offers-service.js';
import { contactRefusals } from '../modules/outreaches/contact-guard.js';
import {
  queuedOutreaches,
  recordDeliveryFailure,
  recordReply,
  sweepUnanswered,
} from '../modules/outreaches/outreaches-repository.js';
import { OutreachesService } from '../modules/outreaches/outreaches-service.js';

/** A small seeded generator: the same demo every run, apart from ids and names made unique. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
  };
}

const CITIES = [
  { city: 'Chicago', state: 'IL', lat: 41.88, lon: -87.63, zip: '60607' },
  { city: 'Dallas', state: 'TX', lat: 32.78, lon: -96.8, zip: '75207' },
  { city: 'Atlanta', state: 'GA', lat: 33.75, lon: -84.39, zip: '30336' },
  { city: 'Los Angeles', state: 'CA', lat: 34.05, lon: -118.24, zip: '90058' },
  { city: 'Phoenix', state: 'AZ', lat: 33.45, lon: -112.07, zip: '85043' },
  { city: 'Denver', state: 'CO', lat: 39.74, lon: -104.99, zip: '80216' },
  { city: 'Memphis', state: 'TN', lat: 35.15, lon: -90.05, zip: '38118' },
  { city: 'Columbus', state: 'OH', lat: 39.96, lon: -83.0, zip: '43217' },
  { city: 'Indianapolis', state: 'IN', lat: 39.77, lon: -86.16, zip: '46241' },
  { city: 'Kansas City', state: 'MO', lat: 39.1, lon: -94.58, zip: '64120' },
  { city: 'Houston', state: 'TX', lat: 29.76, lon: -95.37, zip: '77029' },
  { city: 'Laredo', state: 'TX', lat: 27.53, lon: -99.49, zip: '78045' },
  { city: 'Savannah', state: 'GA', lat: 32.08, lon: -81.09, zip: '31408' },
  { city: 'Charlotte', state: 'NC', lat: 35.23, lon: -80.84, zip: '28208' },
  { city: 'Nashville', state: 'TN', lat: 36.16, lon: -86.78, zip: '37210' },
  { city: 'Salt Lake City', state: 'UT', lat: 40.76, lon: -111.89, zip: '84104' },
  { city: 'Seattle', state: 'WA', lat: 47.61, lon: -122.33, zip: '98108' },
  { city: 'Harrisburg', state: 'PA', lat: 40.27, lon: -76.88, zip: '17111' },
  { city: 'Newark', state: 'NJ', lat: 40.74, lon: -74.17, zip: '07114' },
  { city: 'Jacksonville', state: 'FL', lat: 30.33, lon: -81.66, zip: '32254' },
  { city: 'Minneapolis', state: 'MN', lat: 44.98, lon: -93.27, zip: '55413' },
  { city: 'Detroit', state: 'MI', lat: 42.33, lon: -83.05, zip: '48209' },
  { city: 'Louisville', state: 'KY', lat: 38.25, lon: -85.76, zip: '40213' },
  { city: 'Fresno', state: 'CA', lat: 36.74, lon: -119.79, zip: '93725' },
] as const;
type City = (typeof CITIES)[number];

/** Busy lanes most carriers run and most loads move on (origin index, destination index). */
const LANES: [number, number][] = [
  [0, 1],
  [1, 0],
  [0, 2],
  [2, 0],
  [3, 4],
  [4, 3],
  [11, 1],
  [10, 2],
  [12, 13],
  [6, 14],
  [7, 8],
  [18, 17],
  [16, 3],
  [5, 15],
  [9, 0],
  [19, 2],
  [20, 0],
  [21, 7],
  [22, 6],
  [23, 3],
];
const EQUIPMENT = ['VAN', 'VAN', 'VAN', 'REEFER', 'REEFER', 'FLATBED', 'STEPDECK', 'POWER_ONLY'] as const;
const COMMODITIES = {
  VAN: ['Paper products', 'Canned goods', 'Auto parts', 'Consumer electronics', 'Beverages'],
  REEFER: ['Fresh produce', 'Frozen poultry', 'Dairy', 'Ice cream'],
  FLATBED: ['Steel coils', 'Lumber', 'Rebar', 'Precast concrete'],
  STEPDECK: ['Construction equipment', 'HVAC units'],
  POWER_ONLY: ['Loaded trailer (drop and hook)'],
} as Record<string, string[]>;
const CUSTOMERS = ['Acme Foods', 'Great Lakes Paper', 'Sunbelt Steel', 'Prairie Produce', 'Northwind Retail'];
const CARRIER_WORDS = [
  [
    'Blue',
    'Lone Star',
    'Great Plains',
    'Red Rock',
    'Iron',
    'Eagle',
    'Summit',
    'Delta',
    'Pioneer',
    'Keystone',
  ],
  [
    'Freight',
    'Transport',
    'Logistics',
    'Carriers',
    'Trucking',
    'Express',
    'Hauling',
    'Lines',
    'Cartage',
    'Motor Lines',
  ],
];
const FIRST = ['Maria', 'James', 'Luis', 'Ashley', 'Darnell', 'Priya', 'Tom', 'Keisha', 'Ivan', 'Rosa'];
const LAST = [
  'Garcia',
  'Johnson',
  'Nguyen',
  'Smith',
  'Okafor',
  'Patel',
  'Kowalski',
  'Brown',
  'Ivanova',
  'Lopez',
];

/** TMS statuses and how many loads carry each: every load_status of the spec appears. */
const STATUS_PLAN: [string | null, number][] = [
  [null, 15], // Created
  ['Open', 50], // Unassigned
  ['Quoted', 35], // Quotes Received
  ['Dispatched', 30],
  ['In Transit', 25], // En Route
  ['Delivered', 25],
  ['Cancelled', 10],
  ['Exception', 10],
];

const miles = (a: City, b: City) => {
  const rad = Math.PI / 180;
  const h =
    Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 +
    Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return Math.round(3959 * 2 * Math.asin(Math.sqrt(h)) * 1.18);
};

async function inChunks<T>(items: T[], size: number, work: (item: T, index: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map((item, j) => work(item, i + j)));
  }
}

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
  db: Db,
  tokens: TokenService,
  /** Told about each step as it finishes (the admin CLI prints it on stderr). */
  progress: (step: string) => void = () => {},
): Promise<DemoResult> {
  const rnd = prng(20_260_301);
  const tag = randomBytes(3).toString('hex');
  const auth = new AuthService(db, tokens);
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
    principal: { kind: 'bearer', userId: user.id, organizationId: org.id, role: 'OWNER' },
  };
  const apiKey = await new ApiKeysService(db, new ApiKeyCredentials(db)).create(scope, {
    name: 'Demo TMS integration',
  });
  progress(`organization ${org.id}, its owner and an API key`);

  // Carriers, with a census snapshot of their own: most in good standing, a few BLOCKED.
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'envoy-demo-'));
  const census: Record<string, unknown>[] = [];
  const carrierItems = Array.from({ length: 100 }, (_, i) => {
    const mc = String(810_000 + i * 7);
    const dot = String(3_100_000 + i * 13);
    const blocked = i % 16 === 5; // 6 carriers
    if (i % 25 !== 24) {
      census.push({
        mc_number: mc,
        dot_number: dot,
        legal_name: `${CARRIER_WORDS[0]![i % 10]} ${CARRIER_WORDS[1]![Math.floor(i / 10)]}`,
        allowed_to_operate: true,
        out_of_service: blocked && i % 2 === 1,
        authorized_for_hire: true,
        insurance_on_file: !(blocked && i % 2 === 0),
        authority_granted_at: `20${10 + (i % 12)}-0${1 + (i % 9)}-15`,
      });
    }
    const equipment = [EQUIPMENT[i % EQUIPMENT.length]!, ...(i % 3 === 0 ? ['VAN' as const] : [])];
    const lanes = [0, 1, 2].slice(0, 1 + (i % 3)).map((k) => {
      const [o, d] = LANES[(i + k * 7) % LANES.length]!;
      return {
        origin: { city: k === 2 ? CITIES[o]!.city : null, state: CITIES[o]!.state },
        destination: { state: CITIES[d]!.state },
        routing_guide_tier: 1 + ((i + k) % 4),
      };
    });
    const first = FIRST[i % 10]!;
    const last = LAST[(i * 3) % 10]!;
    return {
      carrier: {
        name: `${CARRIER_WORDS[0]![i % 10]} ${CARRIER_WORDS[1]![Math.floor(i / 10)]}`,
        tms_carrier_id: `TMS-CAR-${1000 + i}`,
        mc_number: mc,
        dot_number: dot,
        phone: `+1${['312', '214', '404', '602', '901'][i % 5]}555${String(1000 + i)}`,
        email: `dispatch${i}@carrier${i}.example`,
        dispatcher_name: `${first} ${last}`,
        dispatcher_phone: `+1${['312', '214', '404', '602', '901'][i % 5]}555${String(2000 + i)}`,
        equipment_types: [...new Set(equipment)],
        routing_guide_tier: i % 5 === 4 ? null : 1 + (i % 4),
        on_time_pickup_pct: 80 + (i % 20),
        on_time_delivery_pct: 78 + ((i * 7) % 22),
        total_loads_hauled: 5 + ((i * 37) % 400),
        is_onboarded: i % 4 !== 3,
        carrier_rep_name: 'Demo Owner',
        carrier_rep_email: email,
        contacts: [
          {
            contact_type: 'DISPATCHER',
            name: `${first} ${last}`,
            phone: `+1${['312', '214', '404', '602', '901'][i % 5]}555${String(3000 + i)}`,
            email: `${first.toLowerCase()}.${last.toLowerCase()}@carrier${i}.example`,
          },
        ],
      },
      lanes,
    };
  });
  const registryFile = path.join(workDir, 'census.json');
  writeFileSync(registryFile, JSON.stringify(census));
  const compliance = new ComplianceService(db, new RegistryProvider(registryFile), 90);
  const carriersService = new CarriersService(
    db,
    compliance,
    { inlineBudgetMs: 2000 },
    new StopContactRequests(db, queuedOutreaches),
  );
  const batch = await carriersService.batch(scope, { carriers: carrierItems });
  if (batch.status !== 200)
    throw new Error(`demo carriers not applied: ${JSON.stringify(batch.body.errors)}`);
  const carrierIds = batch.body.results.map((r) => r.carrier_id!);
  progress(`${carrierIds.length} carriers with lane preferences`);
  await inChunks(carrierIds, 10, async (id) => {
    await compliance.check(org.id, id, AbortSignal.timeout(10_000));
  });
  rmSync(workDir, { recursive: true, force: true });
  progress('compliance checks against the demo census');

  // Disabled carriers, a stop-contact request, restricted lane preferences.
  for (const i of [11, 37, 63, 89]) {
    await carriersService.setActive(scope, carrierIds[i]!, false, {
      reason: i === 37 ? 'other' : 'service_quality',
      reason_note: i === 37 ? 'Double-brokered a load in March' : 'Late on three pickups',
    });
  }
  await carriersService.requestStopContact(scope, carrierIds[42]!);
  const toRestrict = await db
    .select({ id: lanePreferences.id, carrier_id: lanePreferences.carrier_id })
    .from(lanePreferences)
    .where(
      and(
        eq(lanePreferences.organization_id, org.id),
        inArray(lanePreferences.carrier_id, [
          carrierIds[3]!,
          carrierIds[18]!,
          carrierIds[29]!,
          carrierIds[74]!,
        ]),
      ),
    );
  for (const p of toRestrict.slice(0, 5)) {
    await carriersService.setRestricted(scope, p.carrier_id, p.id, true, { reason: 'rate_disagreement' });
  }

  // Loads: every status, on the lanes above, picked up from two weeks ago to two weeks ahead.
  const loadsService = new LoadsService(db);
  const day = 86_400_000;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const statuses = STATUS_PLAN.flatMap(([s, n]) => Array.from({ length: n }, () => s));
  const loadItems = statuses.map((tmsStatus, i) => {
    const [o, d] =
      rnd.next() < 0.8 ? rnd.pick(LANES) : [rnd.int(0, CITIES.length - 1), rnd.int(0, CITIES.length - 1)];
    const origin = CITIES[o]!;
    const destination = CITIES[d === o ? (d + 1) % CITIES.length : d]!;
    const equipment = rnd.pick(EQUIPMENT);
    const distance = miles(origin, destination);
    const moving = ['Dispatched', 'In Transit', 'Delivered', 'Exception'].includes(tmsStatus ?? '');
    const shift = moving ? -rnd.int(1, 14) : rnd.int(0, 14);
    const pickup = today + shift * day + rnd.int(6, 16) * 3_600_000;
    const transitDays = Math.max(1, Math.ceil(distance / 550));
    const rate =
      Math.round(
        (distance * (equipment === 'REEFER' ? 2.9 : equipment === 'FLATBED' ? 3.1 : 2.5) + 250) / 25,
      ) * 25;
    const customerRate = Math.round(rate * 1.17);
    const stop = (city: City, type: 'Pickup' | 'Dropoff', at: number, n: number) => ({
      stop_number: n,
      type,
      location: {
        city: city.city,
        state: city.state,
        postal_code: city.zip,
        company_name: type === 'Pickup' ? `${rnd.pick(CUSTOMERS)} DC` : `${city.city} Receiving`,
        latitude: city.lat,
        longitude: city.lon,
      },
      expected_date: new Date(at).toISOString(),
      planned: { start: new Date(at).toISOString(), end: new Date(at + 2 * 3_600_000).toISOString() },
      pickup_delivery_number: `${type === 'Pickup' ? 'PU' : 'DEL'}-${40_000 + i * 3 + n}`,
      special_instructions: type === 'Pickup' ? ['Check in at the guard shack with the PU number'] : [],
    });
    const stops = [stop(origin, 'Pickup', pickup, 1)];
    if (i % 9 === 0) {
      const mid = CITIES[(o + 5) % CITIES.length]!;
      stops.push({ ...stop(mid, 'Dropoff', pickup + day, 2) });
    }
    stops.push(stop(destination, 'Dropoff', pickup + transitDays * day, stops.length + 1));
    return {
      load_number: `DEMO-${10_001 + i}`,
      tms_load_id: `TMS-${tag}-${10_001 + i}`,
      equipment_type: equipment,
      mode: 'FTL' as const,
      ...(tmsStatus ? { tms_status: tmsStatus === 'Delivered' ? 'Dispatched' : tmsStatus } : {}),
      weight: rnd.int(8, 44) * 1000,
      distance,
      commodity: rnd.pick(COMMODITIES[equipment] ?? COMMODITIES.VAN!),
      handling_unit_count: rnd.int(10, 26),
      handling_unit_type: 'pallet',
      po_numbers: [`PO-${700_000 + i}`],
      posted_rate: rate,
      max_buy_rate: Math.round(rate * 1.08),
      suggested_market_rate: Math.round(rate * 1.02),
      length_feet: equipment === 'FLATBED' || equipment === 'STEPDECK' ? 48 : 53,
      is_posted: tmsStatus === 'Open' || tmsStatus === 'Quoted',
      ...(equipment === 'REEFER'
        ? {
            temperature_setting_minimum: 33,
            temperature_setting_maximum: 38,
            temperature_run_type: 'continuous',
          }
        : {}),
      customer_rate: customerRate,
      margin: customerRate - rate,
      customer_name: rnd.pick(CUSTOMERS),
      tms_sales_rep_names: rnd.pick(['Dana Whitfield', 'Marco Silva', 'Demo Owner']),
      carrier_rep_user_id: user.id,
      carrier_rep_user_name: 'Demo Owner',
      carrier_rep_user_email: email,
      assigned_to_ai_agent: tmsStatus === 'Open' || tmsStatus === 'Quoted' || tmsStatus === null,
      special_instructions: equipment === 'FLATBED' ? ['Tarps required', '8 straps minimum'] : [],
      stops,
    };
  });
  const ingested = await loadsService.upsertBatch(scope, loadItems);
  if (!ingested.success) throw new Error(`demo loads not applied: ${JSON.stringify(ingested.errors)}`);
  const loadIds = ingested.results.map((r) => r.load_id!);
  progress(`${loadIds.length} loads in every status`);
  const loadsByStatus = new Map<string | null, string[]>();
  statuses.forEach((s, i) => {
    const list = loadsByStatus.get(s) ?? [];
    list.push(loadIds[i]!);
    loadsByStatus.set(s, list);
  });
  const idsOf = (s: string | null) => loadsByStatus.get(s) ?? [];

  // An admin_disabled preference from a load (disable-for-load) for three carriers.
  for (const [k, loadId] of idsOf('Open').slice(0, 3).entries()) {
    await carriersService.disableForLoad(scope, carrierIds[7 + k * 20]!, {
      load_id: loadId,
      reason: 'pause_on_lane',
    });
  }

  // Offers: from carriers the contact guard allows on the load.
  const offers = new OffersService(db);
  const allowedFor = async (loadId: string, count: number) => {
    const start = rnd.int(0, carrierIds.length - 1);
    const candidates = Array.from({ length: 12 }, (_, k) => carrierIds[(start + k * 7) % carrierIds.length]!);
    const refused = await contactRefusals(db, scope, candidates, loadId);
    return candidates.filter((c) => !refused.has(c)).slice(0, count);
  };
  const postedRate = new Map(loadItems.map((l, i) => [loadIds[i]!, l.posted_rate]));
  const makeOffer = async (
    loadId: string,
    carrierId: string,
    status: 'pending' | 'accepted' | 'rejected',
    k: number,
  ) => {
    const driver = `${FIRST[(k + 3) % 10]} ${LAST[(k + 5) % 10]}`;
    const offer = await offers.create(scope, {
      load_id: loadId,
      carrier_id: carrierId,
      offer_amount: Math.round(((postedRate.get(loadId) ?? 2000) * (0.92 + rnd.next() * 0.2)) / 25) * 25,
      notes: rnd.pick(['Truck empty nearby', 'Can load tomorrow morning', 'Team drivers available', null]),
      ...(status === 'accepted'
        ? {
            driver_name: driver,
            driver_phone: `+1773555${String(4000 + (k % 5000)).padStart(4, '0')}`,
            truck_number: `T-${100 + k}`,
            trailer_number: `TR-${500 + k}`,
          }
        : {}),
    });
    if (status !== 'pending') await offers.setStatus(scope, offer.id, status);
    return offer;
  };
  let offerCount = 0;
  const booked = [
    ...idsOf('Dispatched'),
    ...idsOf('In Transit'),
    ...idsOf('Delivered'),
    ...idsOf('Exception'),
  ];
  await inChunks(booked, 8, async (loadId, k) => {
    const [winner, ...others] = await allowedFor(loadId, 1 + (k % 3));
    if (!winner) return;
    await makeOffer(loadId, winner, 'accepted', k);
    for (const c of others) await makeOffer(loadId, c, 'rejected', k);
    offerCount += 1 + others.length;
  });
  const quoting = [...idsOf('Quoted'), ...idsOf('Open').slice(10, 30), ...idsOf('Cancelled').slice(0, 4)];
  await inChunks(quoting, 8, async (loadId, k) => {
    const carriersForLoad = await allowedFor(loadId, 1 + (k % 4));
    for (const [j, c] of carriersForLoad.entries()) {
      await makeOffer(loadId, c, j === 1 && k % 2 === 0 ? 'rejected' : 'pending', k);
    }
    offerCount += carriersForLoad.length;
  });
  // Now the delivered loads are booked, their TMS reports them Delivered.
  const deliveredItems = loadItems.filter((_, i) => statuses[i] === 'Delivered');
  const delivered = await loadsService.upsertBatch(
    scope,
    deliveredItems.map((l) => ({ ...l, tms_status: 'Delivered', is_posted: false })),
  );
  if (!delivered.success) throw new Error(`demo loads not applied: ${JSON.stringify(delivered.errors)}`);
  progress(`${offerCount} offers, one accepted per booked load`);

  // Calls, outreaches and ELP tests on the simulated voice platform, fast.
  const provider = new SimulatedVoiceProvider(500);
  const silent = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
  const callsService = CallsService.build(db, provider, silent, agentOfferPolicy(db));
  // The demo's carriers answer nobody: their replies are not wired to a sink.
  const emailSender = new SimulatedEmailSender(500, 'realistic');
  const whatsapp = new SimulatedWhatsAppSender(500, 'realistic');
  const agent = new AgentService(
    db,
    callsService,
    {
      email: emailSender,
      whatsapp,
      chatModel: null,
      emailFrom: 'Envoy Demo <dispatch@envoy.local>',
      replyDomain: 'reply.envoy.local',
      whatsappTemplate: { name: 'load_offer', language: 'en_US' },
    },
    silent,
  );
  const outreachesService = new OutreachesService(db, callsService, agent);
  const counts = {
    call_outreaches: 0,
    email_outreaches: 0,
    whatsapp_outreaches: 0,
    tracking_prompts: 0,
    elp_tests: 0,
  };
  try {
    const working = [...idsOf('Open').slice(0, 30), ...idsOf('Quoted').slice(0, 20)];
    const messages: { id: string; modality: string }[] = [];
    const reach = async (loadId: string, k: number) => {
      const [carrierId] = await allowedFor(loadId, 1);
      if (!carrierId) return;
      const modality = (['call', 'email', 'whatsapp'] as const)[k % 3]!;
      const outreach = await outreachesService.create(scope, {
        carrier_id: carrierId,
        load_id: loadId,
        modality,
      });
      if (modality === 'call') counts.call_outreaches++;
      else {
        messages.push({ id: outreach.id, modality });
        if (modality === 'email') counts.email_outreaches++;
        else counts.whatsapp_outreaches++;
      }
    };
    // The first messages went unanswered: the sweeper's rule, with its window shrunk to now.
    await inChunks(working.slice(0, 9), 5, reach);
    await new Promise((r) => setTimeout(r, 10));
    await sweepUnanswered(db, 0.000_001, org.id);
    const later = messages.length;
    await inChunks(working.slice(9), 5, (loadId, k) => reach(loadId, k + 9));
    // Of the later ones, a few were answered and two e-mails bounced; the rest await a reply.
    const waiting = messages.slice(later);
    for (const m of waiting.slice(0, 5)) await recordReply(db, scope, m.id);
    const bounced = waiting
      .slice(5)
      .filter((m) => m.modality === 'email')
      .slice(0, 2);
    for (const m of bounced) {
      await recordDeliveryFailure(
        db,
        scope,
        m.id,
        '550 5.1.1 Recipient address rejected: mailbox unavailable',
      );
    }

    // Tracking prompts on loads in transit: check calls to the drivers.
    for (const loadId of idsOf('In Transit').slice(0, 5)) {
      try {
        await outreachesService.trackingPrompt(scope, loadId, {
          instructions: 'Confirm the ETA at the receiver and whether the load is on schedule',
          channel: 'voice',
        });
        counts.tracking_prompts++;
      } catch {
        // a load whose booked carrier the guard refuses is skipped
      }
    }

    progress('outreaches by call, e-mail and WhatsApp, and tracking prompts');

    // ELP tests: most answered and scored, some unanswered (scoring FAILED).
    const outcomes = [
      'completed',
      'completed',
      'completed',
      'completed',
      'completed',
      'no_answer',
      'voicemail',
      'failed',
    ];
    for (const [k, outcome] of outcomes.entries()) {
      await callsService.create(
        scope,
        {
          phone_number: `+1469555${String(5000 + k)}`,
          call_type: 'ELP',
          template_variables: { simulate_outcome: outcome },
        },
        { carrier_id: carrierIds[k * 9]!, driver_name: `${FIRST[k]} ${LAST[(k + 2) % 10]}` },
      );
      counts.elp_tests++;
    }

    progress('ELP tests started; waiting for the simulated calls to end');
    // Let every call reach its end (a 30 s call takes 60 ms at this speed).
    const until = Date.now() + 20_000;
    for (;;) {
      const [open] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(calls)
        .where(
          and(
            eq(calls.organization_id, org.id),
            inArray(calls.status, ['SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS']),
          ),
        );
      if (!open?.n || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 100)); // end-of-call reports and ELP scoring
    progress('calls ended and ELP tests scored');
  } finally {
    await provider.close();
    await emailSender.close();
    await whatsapp.close();
  }

  return {
    organization_id: org.id,
    organization_name: orgName,
    owner: { user_id: user.id, email, password },
    api_key: { id: apiKey.id, key: apiKey.key },
    counts: {
      loads: loadIds.length,
      carriers: carrierIds.length,
      offers: offerCount,
      ...counts,
    },
  };
}
