import { and, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { Load, Stop } from './loads-schemas.js';
import { loads, type StoredStop } from './loads-tables.js';

/** A stop as a carrier may hear of it: where, when, and its instructions (never its notes or contacts). */
export type CarrierFacingStop = Pick<
  Stop,
  'stop_number' | 'type' | 'expected_date' | 'planned' | 'special_instructions'
> & {
  location: Pick<Stop['location'], 'city' | 'state'>;
};

/**
 * What a carrier may hear of a load (a voice tool's answer): never the customer rate, the margin,
 * the max buy rate or the notes. A Load has all of it, so either serves.
 */
export type CarrierFacingLoad = Pick<
  Load,
  | 'id'
  | 'load_number'
  | 'equipment_type'
  | 'mode'
  | 'commodity'
  | 'weight'
  | 'distance'
  | 'length_feet'
  | 'posted_rate'
  | 'handling_unit_count'
  | 'handling_unit_type'
  | 'temperature_setting_minimum'
  | 'temperature_setting_maximum'
  | 'special_instructions'
> & { load_status: string | null; stops: CarrierFacingStop[] };

const dateOrNull = (s: string | undefined) => (s === undefined ? null : new Date(s));

function stopOf(s: StoredStop): CarrierFacingStop {
  return {
    stop_number: s.stop_number ?? null,
    type: s.type ?? null,
    location: { city: s.city, state: s.state },
    expected_date: dateOrNull(s.expected_date),
    planned:
      s.planned_start !== undefined || s.planned_end !== undefined
        ? { start: dateOrNull(s.planned_start), end: dateOrNull(s.planned_end) }
        : null,
    special_instructions: s.special_instructions ?? null,
  };
}

/**
 * The organization's loads of `ids` as a carrier may hear of them, in one statement of the columns
 * needed, in the order of `ids`; an id of no load of the organization is left out.
 */
export async function carrierFacingLoads(
  db: DbOrTx,
  organizationId: string,
  ids: readonly string[],
): Promise<CarrierFacingLoad[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      id: loads.id,
      load_number: loads.load_number,
      equipment_type: loads.equipment_type,
      mode: loads.mode,
      commodity: loads.commodity,
      weight: loads.weight,
      distance: loads.distance,
      length_feet: loads.length_feet,
      posted_rate: loads.posted_rate,
      handling_unit_count: loads.handling_unit_count,
      handling_unit_type: loads.handling_unit_type,
      temperature_setting_minimum: loads.temperature_setting_minimum,
      temperature_setting_maximum: loads.temperature_setting_maximum,
      special_instructions: loads.special_instructions,
      load_status: loads.load_status,
      stops: loads.stops,
    })
    .from(loads)
    .where(and(eq(loads.organization_id, organizationId), inArray(loads.id, [...ids])));
  const byId = new Map(rows.map((r) => [r.id, { ...r, stops: r.stops.map(stopOf) }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
