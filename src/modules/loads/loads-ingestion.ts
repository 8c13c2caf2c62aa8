import { newId } from '../../domain/ids.js';
import { defined } from '../../lib/defined.js';
import type { LoadInput, StopInput } from './loads-input-schemas.js';
import type { LoadRow } from './loads-repository.js';
import type { LoadStatus, StoredContact, StoredStop } from './loads-tables.js';

/** docs/decisions/0018-tms-owns-load-status.md: the default tms_status -> load_status table (keys lower-cased). */
export const DEFAULT_STATUS_MAP: ReadonlyMap<string, LoadStatus> = new Map<string, LoadStatus>([
  ['open', 'Unassigned'],
  ['available', 'Unassigned'],
  ['new', 'Unassigned'],
  ['quoted', 'Quotes Received'],
  ['quotes received', 'Quotes Received'],
  ['covered', 'Dispatched'],
  ['booked', 'Dispatched'],
  ['dispatched', 'Dispatched'],
  ['picked up', 'En Route'],
  ['in transit', 'En Route'],
  ['delivered', 'Delivered'],
  ['completed', 'Delivered'],
  ['invoiced', 'Delivered'],
  ['cancelled', 'Cancelled'],
  ['canceled', 'Cancelled'],
  ['void', 'Cancelled'],
  ['exception', 'Exception'],
  ['delayed', 'Exception'],
]);

export const normalizeTmsStatus = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** The organization's own entries first, then the default table; unknown (or none) -> null. */
export function mapTmsStatus(
  tmsStatus: string | null,
  orgMappings: ReadonlyMap<string, string>,
): string | null {
  if (tmsStatus === null) return null;
  const key = normalizeTmsStatus(tmsStatus);
  return orgMappings.get(key) ?? DEFAULT_STATUS_MAP.get(key) ?? null;
}

/** The identifier a batch result names a load by: tms_load_id, else external_id, else load_number. */
export const loadIdentifier = (l: {
  tms_load_id?: string | null;
  external_id?: string | null;
  load_number?: unknown;
}) => l.tms_load_id ?? l.external_id ?? (typeof l.load_number === 'string' ? l.load_number : null);

const contactOf = (c: StopInput['contact'] | undefined): StoredContact | null =>
  c
    ? {
        type: c.type ?? null,
        first_name: c.first_name ?? null,
        last_name: c.last_name ?? null,
        phone: c.phone ?? null,
        email: c.email ?? null,
      }
    : null;

/** An ISO 8601 datetime in UTC (as loads.stops stores it), or undefined. */
const isoOf = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/**
 * The stops as loads.stops stores them, with new ids: each field that has a value (the others are
 * left out, never null), the type and its flags filled in from each other.
 */
export function storedStops(input: StopInput[]): StoredStop[] {
  return input.map((s, position) => {
    const type = s.type ?? (s.is_pickup ? 'Pickup' : s.is_dropoff ? 'Dropoff' : null);
    return present({
      id: newId('stop'),
      stop_number: s.stop_number ?? position + 1,
      type,
      is_pickup: s.is_pickup ?? (type === null ? null : type === 'Pickup'),
      is_dropoff: s.is_dropoff ?? (type === null ? null : type === 'Dropoff'),
      expected_date: isoOf(s.expected_date),
      planned_start: isoOf(s.planned?.start),
      planned_end: isoOf(s.planned?.end),
      pickup_delivery_number: s.pickup_delivery_number,
      actual_arrival_datetime: isoOf(s.actual_stop_times?.arrival_datetime),
      actual_departure_datetime: isoOf(s.actual_stop_times?.departure_datetime),
      carrier_eta: isoOf(s.carrier_eta),
      notes: s.notes,
      special_instructions: s.special_instructions,
      reference_numbers: s.reference_numbers?.map((r) => ({ value: r.value, type: r.type ?? null })),
      contact: contactOf(s.contact),
      contacts: s.contacts?.map((c) => defined(contactOf(c), 'contactOf(c)')),
      city: s.location.city.trim(),
      state: s.location.state.trim(),
      street: s.location.street,
      postal_code: s.location.postal_code,
      company_name: s.location.company_name,
      county: s.location.county,
      country: s.location.country ?? 'US',
      latitude: s.location.latitude,
      longitude: s.location.longitude,
    });
  });
}

type Nullable<T> = { [K in keyof T]: T[K] | null | undefined };

/** The fields that have a value (a new object: deleting keys would slow every later read of it). */
function present(stop: Nullable<StoredStop>): StoredStop {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stop)) {
    if (value !== null && value !== undefined) kept[key] = value;
  }
  // Every key kept is one of the stop's own, with a value of its field's type (nulls dropped):
  // the stored shape, whose fields are optional.
  return kept as unknown as StoredStop;
}

type StopForDerive = Pick<
  StoredStop,
  'type' | 'is_pickup' | 'is_dropoff' | 'city' | 'state' | 'expected_date' | 'planned_start'
>;

const isPickup = (s: StopForDerive) => s.type === 'Pickup' || (s.type === undefined && s.is_pickup === true);
const isDropoff = (s: StopForDerive) =>
  s.type === 'Dropoff' || (s.type === undefined && s.is_dropoff === true);
const dateOf = (iso: string | undefined) => (iso === undefined ? null : new Date(iso));

/**
 * The columns filters and search read, from the load and its stops (in order): origin is the first
 * pickup (else the first stop), destination the last drop-off (else the last stop).
 */
export function derivedColumns(load: LoadRow, stops: readonly StopForDerive[]) {
  const origin = stops.find(isPickup) ?? stops[0];
  const destination = [...stops].reverse().find(isDropoff) ?? (stops.length > 1 ? stops.at(-1) : undefined);
  const repNames = new Set<string>();
  if (load.carrier_rep_user_name?.trim()) repNames.add(load.carrier_rep_user_name.trim().toLowerCase());
  for (const name of (load.tms_sales_rep_names ?? '').split(/[,;]/)) {
    if (name.trim()) repNames.add(name.trim().toLowerCase());
  }
  const searchText = [
    load.load_number,
    load.external_id,
    load.tms_load_id,
    load.carrier_name,
    load.hauling_carrier_name,
    load.customer_name,
    load.equipment_type,
    origin && `${origin.city} ${origin.state}`,
    destination && `${destination.city} ${destination.state}`,
  ]
    .filter((v) => v)
    .join(' ')
    .toLowerCase();
  return {
    origin_city: origin?.city ?? null,
    origin_state: origin?.state ?? null,
    destination_city: destination?.city ?? null,
    destination_state: destination?.state ?? null,
    pickup_date: origin ? dateOf(origin.expected_date ?? origin.planned_start) : null,
    delivery_date: destination ? dateOf(destination.expected_date ?? destination.planned_start) : null,
    rep_names: [...repNames],
    search_text: searchText,
  };
}

/** Input fields copied as sent (absent: unchanged on update, null on create). */
const COPIED_FIELDS = [
  'load_number',
  'equipment_type',
  'tms_load_id',
  'external_id',
  'mode',
  'tms_status',
  'weight',
  'distance',
  'commodity',
  'handling_unit_count',
  'handling_unit_type',
  'po_numbers',
  'posted_rate',
  'max_buy_rate',
  'suggested_market_rate',
  'length_feet',
  'special_instructions',
  'notes',
  'externally_posted_at',
  'temperature_setting_minimum',
  'temperature_setting_maximum',
  'temperature_run_type',
  'last_reported_state',
  'last_reported_city',
  'last_reported_long',
  'last_reported_lat',
  'tms_carrier_id',
  'carrier_name',
  'hauling_carrier_id',
  'hauling_carrier_name',
  'hauling_carrier_mc_number',
  'hauling_carrier_dot_number',
  'carrier_completed_rate',
  'customer_rate',
  'margin',
  'customer_name',
  'tms_sales_rep_names',
  'carrier_rep_user_id',
  'carrier_rep_user_name',
  'carrier_rep_user_email',
  'context',
  'custom_fields',
] as const satisfies readonly (keyof LoadInput & keyof LoadRow)[];

/** A new load before what was sent is applied: every field empty, load_status Created. */
function newLoadRow(organizationId: string, input: LoadInput, now: Date): LoadRow {
  return {
    id: newId('load'),
    organization_id: organizationId,
    load_number: input.load_number,
    tms_load_id: null,
    external_id: null,
    equipment_type: input.equipment_type,
    mode: null,
    load_status: 'Created',
    tms_status: null,
    weight: null,
    distance: null,
    commodity: null,
    handling_unit_count: null,
    handling_unit_type: null,
    po_numbers: null,
    reference_numbers: null,
    posted_rate: null,
    max_buy_rate: null,
    suggested_market_rate: null,
    length_feet: null,
    special_instructions: null,
    notes: null,
    is_posted: false,
    last_posted_at: null,
    last_unposted_at: null,
    externally_posted_at: null,
    temperature_setting_minimum: null,
    temperature_setting_maximum: null,
    temperature_run_type: null,
    last_reported_state: null,
    last_reported_city: null,
    last_reported_long: null,
    last_reported_lat: null,
    tms_carrier_id: null,
    carrier_name: null,
    hauling_carrier_id: null,
    hauling_carrier_name: null,
    hauling_carrier_mc_number: null,
    hauling_carrier_dot_number: null,
    carrier_completed_rate: null,
    customer_rate: null,
    margin: null,
    customer_name: null,
    tms_sales_rep_names: null,
    carrier_rep: null,
    driver: null,
    carrier_rep_user_id: null,
    carrier_rep_user_name: null,
    carrier_rep_user_email: null,
    assigned_to_ai_agent: false,
    context: null,
    custom_fields: null,
    origin_city: null,
    origin_state: null,
    destination_city: null,
    destination_state: null,
    pickup_date: null,
    delivery_date: null,
    stops: [],
    rep_names: [],
    search_text: '',
    created_at: now,
    updated_at: now,
  };
}

/**
 * The row to write: a new load from the input, or the stored one with what was sent applied.
 * load_status follows tms_status whenever tms_status is sent; a new load without one is Created.
 * Turning is_posted on or off stamps last_posted_at or last_unposted_at.
 */
export function mergeLoad(
  organizationId: string,
  existing: LoadRow | null,
  input: LoadInput,
  mappings: ReadonlyMap<string, string>,
  now: Date,
): LoadRow {
  const row: LoadRow = existing ? { ...existing, updated_at: now } : newLoadRow(organizationId, input, now);
  // The copied fields have the same type on the input as on the row (COPIED_FIELDS is typed by
  // both), so writing them by name keeps the row's type.
  const target = row as unknown as Record<string, unknown>;
  for (const field of COPIED_FIELDS) {
    if (input[field] !== undefined) target[field] = input[field];
  }
  if (input.reference_numbers !== undefined) {
    row.reference_numbers =
      input.reference_numbers?.map((r) => ({ value: r.value, type: r.type ?? null })) ?? null;
  }
  if (input.carrier_rep !== undefined) row.carrier_rep = contactOf(input.carrier_rep);
  if (input.driver !== undefined) row.driver = contactOf(input.driver);
  if (input.assigned_to_ai_agent !== undefined)
    row.assigned_to_ai_agent = input.assigned_to_ai_agent ?? false;
  if (input.tms_status !== undefined) row.load_status = mapTmsStatus(row.tms_status, mappings);
  if (input.is_posted !== undefined && input.is_posted !== null) {
    const was = existing?.is_posted ?? false;
    if (input.is_posted && !was) row.last_posted_at = now;
    if (!input.is_posted && was) row.last_unposted_at = now;
    row.is_posted = input.is_posted;
  }
  return row;
}
