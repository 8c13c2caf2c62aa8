/**
 * A load as the API returns it, built field by field from its row (the list's hot path skips
 * re-validating it: loads-routes), and who may read and write its rate fields.
 */

import type { Principal } from '../../domain/scope.js';
import type { LoadView } from './loads-repository.js';
import type { BookedOffer, Load, Stop } from './loads-schemas.js';
import type { StoredStop } from './loads-tables.js';

/**
 * docs/decisions/0013-tenancy-and-rates-by-role.md (rates by role): customer_rate and margin are read and written only by API keys,
 * OWNERs and ADMINs (and the service itself).
 */
const seesRates = (p: Principal) => !(p.kind === 'bearer' && p.role === 'MEMBER');

/** The load fields a MEMBER may neither read nor write. */
export const RATE_FIELDS = ['customer_rate', 'margin'] as const;

/** The first rate field a principal who may not write it sent (null included: null clears). */
export const forbiddenRateField = (
  p: Principal,
  input: Partial<Record<(typeof RATE_FIELDS)[number], unknown>>,
) => (seesRates(p) ? undefined : RATE_FIELDS.find((f) => input[f] !== undefined));

const dateOrNull = (s: string | undefined) => (s === undefined ? null : new Date(s));

/** A stored stop in its API shape: every field, null where the stop has no value. */
function toStop(s: StoredStop): Stop {
  const planned =
    s.planned_start !== undefined || s.planned_end !== undefined
      ? { start: dateOrNull(s.planned_start), end: dateOrNull(s.planned_end) }
      : null;
  const actual =
    s.actual_arrival_datetime !== undefined || s.actual_departure_datetime !== undefined
      ? {
          arrival_datetime: dateOrNull(s.actual_arrival_datetime),
          departure_datetime: dateOrNull(s.actual_departure_datetime),
        }
      : null;
  return {
    id: s.id,
    stop_number: s.stop_number ?? null,
    type: s.type ?? null,
    is_pickup: s.is_pickup ?? null,
    is_dropoff: s.is_dropoff ?? null,
    location: {
      city: s.city,
      state: s.state,
      street: s.street ?? null,
      postal_code: s.postal_code ?? null,
      company_name: s.company_name ?? null,
      county: s.county ?? null,
      country: s.country,
      latitude: s.latitude ?? null,
      longitude: s.longitude ?? null,
    },
    expected_date: dateOrNull(s.expected_date),
    planned,
    pickup_delivery_number: s.pickup_delivery_number ?? null,
    actual_stop_times: actual,
    carrier_eta: dateOrNull(s.carrier_eta),
    reference_numbers: s.reference_numbers ?? null,
    notes: s.notes ?? null,
    special_instructions: s.special_instructions ?? null,
    contact: s.contact ?? null,
    contacts: s.contacts ?? null,
  };
}

/** The load in its API shape, with its booking (bookedOffersOf), or null when it has none. */
export function toLoad(row: LoadView, principal: Principal, booked: BookedOffer | null): Load {
  const rates = seesRates(principal);
  return {
    id: row.id,
    load_number: row.load_number,
    organization_id: row.organization_id,
    equipment_type: row.equipment_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
    tms_load_id: row.tms_load_id,
    external_id: row.external_id,
    mode: row.mode,
    // The app writes load_status only from LOAD_STATUSES: the input enum and the status mappings' enum.
    load_status: row.load_status as Load['load_status'],
    tms_status: row.tms_status,
    weight: row.weight,
    distance: row.distance,
    commodity: row.commodity,
    handling_unit_count: row.handling_unit_count,
    handling_unit_type: row.handling_unit_type,
    po_numbers: row.po_numbers,
    reference_numbers: row.reference_numbers,
    posted_rate: row.posted_rate,
    max_buy_rate: row.max_buy_rate,
    suggested_market_rate: row.suggested_market_rate,
    length_feet: row.length_feet,
    special_instructions: row.special_instructions,
    notes: row.notes,
    is_posted: row.is_posted,
    last_posted_at: row.last_posted_at,
    last_unposted_at: row.last_unposted_at,
    externally_posted_at: row.externally_posted_at,
    temperature_setting_minimum: row.temperature_setting_minimum,
    temperature_setting_maximum: row.temperature_setting_maximum,
    temperature_run_type: row.temperature_run_type,
    last_reported_state: row.last_reported_state,
    last_reported_city: row.last_reported_city,
    last_reported_long: row.last_reported_long,
    last_reported_lat: row.last_reported_lat,
    tms_carrier_id: row.tms_carrier_id,
    carrier_name: row.carrier_name,
    hauling_carrier_id: row.hauling_carrier_id,
    hauling_carrier_name: row.hauling_carrier_name,
    hauling_carrier_mc_number: row.hauling_carrier_mc_number,
    hauling_carrier_dot_number: row.hauling_carrier_dot_number,
    carrier_completed_rate: row.carrier_completed_rate,
    customer_rate: rates ? row.customer_rate : null,
    margin: rates ? row.margin : null,
    customer_name: row.customer_name,
    tms_sales_rep_names: row.tms_sales_rep_names,
    carrier_rep: row.carrier_rep,
    driver: row.driver,
    carrier_rep_user_id: row.carrier_rep_user_id,
    carrier_rep_user_name: row.carrier_rep_user_name,
    carrier_rep_user_email: row.carrier_rep_user_email,
    assigned_to_ai_agent: row.assigned_to_ai_agent,
    stops: row.stops.map(toStop),
    context: row.context ?? {},
    custom_fields: row.custom_fields ?? {},
    offer_count: row.offer_count,
    max_offer_amount: row.max_offer_amount,
    min_offer_amount: row.min_offer_amount,
    active_escalation_count: row.active_escalation_count,
    booked_offer: booked,
  };
}
