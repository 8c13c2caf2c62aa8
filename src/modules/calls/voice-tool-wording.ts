import { takesCarrierOffers } from '../../domain/freight.js';
import type { LoadFacts } from '../../domain/load-questions.js';
import type { LoadSummary } from '../../domain/negotiation.js';
import type { CarrierFacingLoad } from '../loads/index.js';
import type { SayableLoad } from './call-script.js';

/** What the voice tools share: their answers' shape, their wording. */

export type Outcome = { result?: string; error?: string; metadata?: Record<string, unknown> };

export const NOT_AVAILABLE = 'I am sorry, this load is not available for you. Thank you for calling.';

export function loadSummary(s: SayableLoad): LoadSummary {
  const place = (p: { city: string; state: string } | null) => (p ? `${p.city}, ${p.state}` : 'TBD');
  return {
    load_number: s.load_number,
    equipment_type: s.equipment_type,
    origin: place(s.origin),
    destination: place(s.destination),
    pickup_date: s.pickup_date ? new Date(`${s.pickup_date}T00:00:00Z`) : null,
    posted_rate: s.posted_rate,
  };
}

/**
 * The load a caller names among `loads`: its number as written (any case), else the one load whose
 * number has the same digits ("1042" or "one zero four two" heard as digits, for "OUT-01042").
 */
export function sameLoadNumber<L extends { load_number: string }>(
  loads: readonly L[],
  named: string,
): L | null {
  const exact = loads.find((l) => l.load_number.toLowerCase() === named.toLowerCase());
  if (exact) return exact;
  const digits = (s: string) => s.replace(/\D/g, '').replace(/^0+/, '');
  const wanted = digits(named);
  if (!wanted) return null;
  const same = loads.filter((l) => digits(l.load_number) === wanted);
  return same.length === 1 ? (same[0] ?? null) : null;
}

/** The confirmation of a stop-contact request names no load. */
export const NO_LOAD: LoadSummary = {
  load_number: '',
  equipment_type: '',
  origin: '',
  destination: '',
  pickup_date: null,
  posted_rate: null,
};

/**
 * The load's sayable facts for answer_question, named field by field: never the customer rate,
 * the margin, the max buy rate or the load's or its stops' notes.
 */
export function loadFactsOf(load: CarrierFacingLoad): LoadFacts {
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  const day = (d: Date | null | undefined) => iso(d)?.slice(0, 10) ?? null;
  return {
    load_number: load.load_number,
    equipment_type: load.equipment_type,
    length_feet: load.length_feet,
    commodity: load.commodity,
    handling_units:
      load.handling_unit_count !== null
        ? { count: load.handling_unit_count, type: load.handling_unit_type }
        : null,
    weight_lb: load.weight,
    distance_miles: load.distance,
    posted_rate: load.posted_rate,
    temperature_f:
      load.temperature_setting_minimum !== null || load.temperature_setting_maximum !== null
        ? { min: load.temperature_setting_minimum, max: load.temperature_setting_maximum }
        : null,
    special_instructions: [
      ...(load.special_instructions ?? []),
      ...load.stops.flatMap((s) => s.special_instructions ?? []),
    ],
    stops: load.stops.map((s) => ({
      type: s.type,
      city: s.location.city,
      state: s.location.state,
      date: day(s.expected_date ?? s.planned?.start),
      window: s.planned ? { start: iso(s.planned.start), end: iso(s.planned.end) } : null,
    })),
    open: takesCarrierOffers(load.load_status),
  };
}

/** An ELP answer of a call as stored: the question's step and competency with it. */
export function elpAnswerOf(
  call: { organization_id: string },
  testId: string,
  question: { id: string; step: string; competency: string; text: string },
  answer: string | null,
  valid: boolean,
) {
  return {
    organization_id: call.organization_id,
    elp_test_id: testId,
    question_id: question.id,
    step: question.step,
    competency: question.competency,
    question: question.text,
    answer,
    valid,
  };
}
