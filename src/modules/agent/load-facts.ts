import type { DbOrTx } from '../../db/client.js';
import { takesCarrierOffers } from '../../domain/freight.js';
import {
  answerQuestions,
  type FactStop,
  type LoadFacts,
  type QuestionTopic,
} from '../../domain/load-questions.js';
import { findLoadFields } from '../loads/index.js';

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : null);

/**
 * The load's sayable facts, for answering a carrier's questions. The columns are named one by one:
 * nothing internal (customer rate, margin, max buy rate, the load's or its stops' notes) is read.
 */
export async function agentLoadFacts(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
): Promise<LoadFacts | null> {
  const row = await findLoadFields(db, organizationId, loadId, [
    'load_number',
    'load_status',
    'equipment_type',
    'length_feet',
    'commodity',
    'handling_unit_count',
    'handling_unit_type',
    'weight',
    'distance',
    'posted_rate',
    'temperature_setting_minimum',
    'temperature_setting_maximum',
    'special_instructions',
    'stops',
  ]);
  if (!row) return null;
  const stops: FactStop[] = row.stops.map((s) => ({
    type: s.type ?? (s.is_dropoff ? 'Dropoff' : s.is_pickup ? 'Pickup' : null),
    city: s.city,
    state: s.state,
    date: day(s.expected_date ?? s.planned_start),
    window:
      s.planned_start || s.planned_end
        ? { start: s.planned_start ?? null, end: s.planned_end ?? null }
        : null,
  }));
  return {
    load_number: row.load_number,
    equipment_type: row.equipment_type,
    length_feet: row.length_feet,
    commodity: row.commodity,
    handling_units:
      row.handling_unit_count !== null
        ? { count: row.handling_unit_count, type: row.handling_unit_type }
        : null,
    weight_lb: row.weight,
    distance_miles: row.distance,
    posted_rate: row.posted_rate,
    temperature_f:
      row.temperature_setting_minimum !== null || row.temperature_setting_maximum !== null
        ? { min: row.temperature_setting_minimum, max: row.temperature_setting_maximum }
        : null,
    special_instructions: [
      ...(row.special_instructions ?? []),
      ...row.stops.flatMap((s) => s.special_instructions ?? []),
    ],
    stops,
    open: takesCarrierOffers(row.load_status),
  };
}

/** The answer to a carrier's questions about the load from its sayable facts, or null. */
export async function answerAboutLoad(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  topics: readonly QuestionTopic[],
): Promise<string | null> {
  if (topics.length === 0) return null;
  const facts = await agentLoadFacts(db, organizationId, loadId);
  return facts ? answerQuestions(topics, facts) : null;
}
