import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import { defined } from '../../lib/defined.js';
import { objectOf } from '../../lib/json-object.js';
import { lanePreferences } from '../../modules/carriers/carriers-tables.js';
import { CARRIER_WORDS, CITIES, EQUIPMENT, FIRST, inChunks, LANES, LAST } from './demo-data.js';
import type { DemoRun } from './demo-run.js';

/** The demo's 100 carriers, and the census snapshot they are checked against. */
function demoCarriers(email: string) {
  const census: Record<string, unknown>[] = [];
  const carrierItems = Array.from({ length: 100 }, (_, i) => {
    const mc = String(810_000 + i * 7);
    const dot = String(3_100_000 + i * 13);
    const blocked = i % 16 === 5; // 6 carriers
    if (i % 25 !== 24) {
      census.push({
        mc_number: mc,
        dot_number: dot,
        legal_name: `${defined(CARRIER_WORDS[0], 'CARRIER_WORDS[0]')[i % 10]} ${defined(CARRIER_WORDS[1], 'CARRIER_WORDS[1]')[Math.floor(i / 10)]}`,
        allowed_to_operate: true,
        out_of_service: blocked && i % 2 === 1,
        authorized_for_hire: true,
        insurance_on_file: !(blocked && i % 2 === 0),
        authority_granted_at: `20${10 + (i % 12)}-0${1 + (i % 9)}-15`,
      });
    }
    const equipment = [
      defined(EQUIPMENT[i % EQUIPMENT.length], 'EQUIPMENT[i % EQUIPMENT.length]'),
      ...(i % 3 === 0 ? ['VAN' as const] : []),
    ];
    const lanes = [0, 1, 2].slice(0, 1 + (i % 3)).map((k) => {
      const [o, d] = defined(LANES[(i + k * 7) % LANES.length], 'LANES[(i + k * 7) % LANES.length]');
      return {
        origin: {
          city: k === 2 ? defined(CITIES[o], 'CITIES[o]').city : null,
          state: defined(CITIES[o], 'CITIES[o]').state,
        },
        destination: { state: defined(CITIES[d], 'CITIES[d]').state },
        routing_guide_tier: 1 + ((i + k) % 4),
      };
    });
    const first = defined(FIRST[i % 10], 'FIRST[i % 10]');
    const last = defined(LAST[(i * 3) % 10], 'LAST[(i * 3) % 10]');
    return {
      carrier: {
        name: `${defined(CARRIER_WORDS[0], 'CARRIER_WORDS[0]')[i % 10]} ${defined(CARRIER_WORDS[1], 'CARRIER_WORDS[1]')[Math.floor(i / 10)]}`,
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
  return { census, carrierItems };
}

/**
 * Writes the demo's census records into the registry snapshot, keeping every other record in it
 * (a record of the same MC number is replaced): the server reads the same file, so its checks of
 * the demo carriers find what the seed found. Written whole, then moved into place.
 */
function mergeIntoRegistry(file: string, records: Record<string, unknown>[]) {
  let existing: unknown = [];
  try {
    existing = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // no snapshot yet (or an unreadable one, which the demo's replaces)
  }
  const ours = new Set(records.map((r) => String(r.mc_number)));
  const kept = Array.isArray(existing)
    ? existing.filter((r) => !ours.has(String(objectOf(r)?.mc_number)))
    : [];
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify([...kept, ...records]));
  renameSync(temporary, file);
}

/**
 * Carriers with lane preferences, checked against their census (most in good standing, a few
 * BLOCKED); some disabled, one stop-contact request, some restricted lane preferences.
 */
export async function seedCarriers(run: DemoRun): Promise<string[]> {
  const { services, db, scope, org, progress } = run;
  const { census, carrierItems } = demoCarriers(run.email);
  mergeIntoRegistry(run.registryFile, census);
  const { compliance, carriers: carriersService } = services;
  const batch = await carriersService.batch(scope, { carriers: carrierItems });
  if (!batch.success) throw new Error(`demo carriers not applied: ${JSON.stringify(batch.errors)}`);
  const carrierIds = batch.results.map((r) => defined(r.carrier_id, 'r.carrier_id'));
  progress(`${carrierIds.length} carriers with lane preferences`);
  await inChunks(carrierIds, 10, async (id) => {
    await compliance.check(org.id, id, AbortSignal.timeout(10_000));
  });
  progress('compliance checks against the demo census');

  // Disabled carriers, a stop-contact request, restricted lane preferences.
  for (const i of [11, 37, 63, 89]) {
    await carriersService.setActive(scope, defined(carrierIds[i], 'carrierIds[i]'), false, {
      reason: i === 37 ? 'other' : 'service_quality',
      reason_note: i === 37 ? 'Double-brokered a load in March' : 'Late on three pickups',
    });
  }
  await carriersService.requestStopContact(scope, defined(carrierIds[42], 'carrierIds[42]'));
  const toRestrict = await db
    .select({ id: lanePreferences.id, carrier_id: lanePreferences.carrier_id })
    .from(lanePreferences)
    .where(
      and(
        eq(lanePreferences.organization_id, org.id),
        inArray(lanePreferences.carrier_id, [
          defined(carrierIds[3], 'carrierIds[3]'),
          defined(carrierIds[18], 'carrierIds[18]'),
          defined(carrierIds[29], 'carrierIds[29]'),
          defined(carrierIds[74], 'carrierIds[74]'),
        ]),
      ),
    );
  for (const p of toRestrict.slice(0, 5)) {
    await carriersService.lanes.setRestricted(scope, p.carrier_id, p.id, true, {
      reason: 'rate_disagreement',
    });
  }
  return carrierIds;
}
