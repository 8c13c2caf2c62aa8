import { defined } from '../../lib/defined.js';
import {
  CITIES,
  type City,
  COMMODITIES,
  CUSTOMERS,
  EQUIPMENT,
  LANES,
  miles,
  type Rng,
  STATUS_PLAN,
} from './demo-data.js';
import type { DemoRun } from './demo-run.js';

/** One stop of demo load `i`. */
function stopOf(rnd: Rng, i: number, city: City, type: 'Pickup' | 'Dropoff', at: number, n: number) {
  return {
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
  };
}

/** 200 loads in every status, on the demo lanes, picked up from two weeks ago to two weeks ahead. */
function demoLoads(run: DemoRun) {
  const { rnd, tag, user, email } = run;
  const day = 86_400_000;
  const now = run.clock.now();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const statuses = STATUS_PLAN.flatMap(([s, n]) => Array.from({ length: n }, () => s));
  const loadItems = statuses.map((tmsStatus, i) => {
    const [o, d] =
      rnd.next() < 0.8 ? rnd.pick(LANES) : [rnd.int(0, CITIES.length - 1), rnd.int(0, CITIES.length - 1)];
    const origin = defined(CITIES[o], 'CITIES[o]');
    const destination = defined(
      CITIES[d === o ? (d + 1) % CITIES.length : d],
      'CITIES[d === o ? (d + 1) % CITIES.length : d]',
    );
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
    const stops = [stopOf(rnd, i, origin, 'Pickup', pickup, 1)];
    if (i % 9 === 0) {
      const mid = defined(CITIES[(o + 5) % CITIES.length], 'CITIES[(o + 5) % CITIES.length]');
      stops.push({ ...stopOf(rnd, i, mid, 'Dropoff', pickup + day, 2) });
    }
    stops.push(stopOf(rnd, i, destination, 'Dropoff', pickup + transitDays * day, stops.length + 1));
    return {
      load_number: `DEMO-${10_001 + i}`,
      tms_load_id: `TMS-${tag}-${10_001 + i}`,
      equipment_type: equipment,
      mode: 'FTL' as const,
      ...(tmsStatus ? { tms_status: tmsStatus === 'Delivered' ? 'Dispatched' : tmsStatus } : {}),
      weight: rnd.int(8, 44) * 1000,
      distance,
      commodity: rnd.pick(COMMODITIES[equipment] ?? defined(COMMODITIES.VAN, 'COMMODITIES.VAN')),
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
      // Handed to the agent once the demo's history is written (handToAgent).
      assigned_to_ai_agent: false,
      special_instructions: equipment === 'FLATBED' ? ['Tarps required', '8 straps minimum'] : [],
      stops,
    };
  });
  return { statuses, loadItems };
}

export type DemoLoads = Awaited<ReturnType<typeof seedLoads>>;

/**
 * Hands the open loads (Created, Open and Quoted in the TMS) to the agent, as a TMS sync would: the
 * last step, so a running server's agent starts on a demo whose history is complete.
 */
export async function handToAgent(run: DemoRun, loads: DemoLoads) {
  const open = loads.loadItems.filter((_, i) => [null, 'Open', 'Quoted'].includes(loads.statuses[i] ?? null));
  const handed = await run.services.loads.upsertBatch(
    run.scope,
    open.map((l) => ({
      load_number: l.load_number,
      equipment_type: l.equipment_type,
      assigned_to_ai_agent: true,
    })),
  );
  if (!handed.success) throw new Error(`demo loads not handed: ${JSON.stringify(handed.errors)}`);
  run.progress(`${open.length} open loads handed to the agent`);
  return open.length;
}

/** The demo loads, and an admin_disabled preference from a load for three carriers. */
export async function seedLoads(run: DemoRun, carrierIds: string[]) {
  const { services, scope, progress } = run;
  const carriersService = services.carriers;
  const loadsService = services.loads;
  const { statuses, loadItems } = demoLoads(run);
  // A copy: upsertBatch empties the array it is given as it validates it.
  const ingested = await loadsService.upsertBatch(scope, [...loadItems]);
  if (!ingested.success) throw new Error(`demo loads not applied: ${JSON.stringify(ingested.errors)}`);
  const loadIds = ingested.results.map((r) => defined(r.load_id, 'r.load_id'));
  progress(`${loadIds.length} loads in every status`);
  const loadsByStatus = new Map<string | null, string[]>();
  statuses.forEach((s, i) => {
    const list = loadsByStatus.get(s) ?? [];
    list.push(defined(loadIds[i], 'loadIds[i]'));
    loadsByStatus.set(s, list);
  });
  const idsOf = (s: string | null) => loadsByStatus.get(s) ?? [];

  // An admin_disabled preference from a load (disable-for-load) for three carriers.
  for (const [k, loadId] of idsOf('Open').slice(0, 3).entries()) {
    await carriersService.lanes.disableForLoad(
      scope,
      defined(carrierIds[7 + k * 20], 'carrierIds[7 + k * 20]'),
      {
        load_id: loadId,
        reason: 'pause_on_lane',
      },
    );
  }
  return { statuses, loadItems, loadIds, idsOf };
}
