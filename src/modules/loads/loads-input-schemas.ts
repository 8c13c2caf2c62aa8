// A load as sent by a TMS integration (POST /loads, each item of POST /loads/batch). Optional
// fields stay absent when not sent, so an update changes only what was sent.

import { z } from 'zod';
import { toE164 } from '../../domain/phone.js';
import { documentAs } from '../../http/openapi.js';
import { dateTimeInput, int32, nonEmptyText, text } from '../../http/schemas.js';
import { isJsonObject } from '../../lib/json-object.js';
import { CONTACT_TYPES, EQUIPMENT_TYPES, LOAD_MODES } from './loads-tables.js';

const MONEY_MAX = 1e12;
const money = () => z.number().min(-MONEY_MAX).max(MONEY_MAX);
const finite = () => z.number().min(-1e12).max(1e12);

export const contactInput = z.object({
  type: z.enum(CONTACT_TYPES).nullish(),
  first_name: text(100).nullish(),
  last_name: text(100).nullish(),
  // The spec: E.164 when parseable, otherwise null (never a rejection).
  phone: text(40)
    .nullish()
    .transform((p) => (p ? toE164(p) : p)),
  email: text(254).nullish(),
});

export const referenceNumberInput = z.object({
  value: nonEmptyText(255),
  type: text(100).nullish(),
});

export const locationInput = z.object({
  city: nonEmptyText(100),
  state: nonEmptyText(50),
  street: text(255).nullish(),
  postal_code: text(20).nullish(),
  company_name: text(255).nullish(),
  county: text(100).nullish(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { message: 'Must be an ISO 3166-1 alpha-2 country code' })
    .max(2)
    .transform((c) => c.toUpperCase())
    .nullish(),
  latitude: z.number().min(-90).max(90).nullish(),
  longitude: z.number().min(-180).max(180).nullish(),
});

export const stopInput = z.object({
  location: locationInput,
  stop_number: int32().nullish(),
  type: z.enum(['Pickup', 'Dropoff']).nullish(),
  is_pickup: z.boolean().nullish(),
  is_dropoff: z.boolean().nullish(),
  expected_date: dateTimeInput().nullish(),
  planned: z.object({ start: dateTimeInput().nullish(), end: dateTimeInput().nullish() }).nullish(),
  pickup_delivery_number: text(255).nullish(),
  actual_stop_times: z
    .object({ arrival_datetime: dateTimeInput().nullish(), departure_datetime: dateTimeInput().nullish() })
    .nullish(),
  carrier_eta: dateTimeInput().nullish(),
  reference_numbers: z.array(referenceNumberInput).max(100).nullish(),
  notes: text(5000).nullish(),
  special_instructions: z.array(text(2000)).max(50).nullish(),
  contact: contactInput.nullish(),
  contacts: z.array(contactInput).max(20).nullish(),
});
export type StopInput = z.output<typeof stopInput>;

export const loadInput = z.object({
  load_number: nonEmptyText(100),
  equipment_type: z.enum(EQUIPMENT_TYPES),
  tms_load_id: nonEmptyText(255).nullish(),
  external_id: nonEmptyText(255).nullish(),
  mode: z.enum(LOAD_MODES).nullish(),
  tms_status: text(100).nullish(),
  weight: finite().nullish(),
  distance: finite().nullish(),
  commodity: text(255).nullish(),
  handling_unit_count: int32().nullish(),
  handling_unit_type: text(100).nullish(),
  po_numbers: z.array(text(100)).max(100).nullish(),
  reference_numbers: z.array(referenceNumberInput).max(100).nullish(),
  posted_rate: int32().nullish(),
  max_buy_rate: int32().nullish(),
  suggested_market_rate: int32().nullish(),
  length_feet: int32().nullish(),
  special_instructions: z.array(text(2000)).max(50).nullish(),
  notes: text(10_000).nullish(),
  is_posted: z.boolean().nullish(),
  externally_posted_at: dateTimeInput().nullish(),
  temperature_setting_minimum: int32().nullish(),
  temperature_setting_maximum: int32().nullish(),
  temperature_run_type: text(100).nullish(),
  last_reported_state: text(50).nullish(),
  last_reported_city: text(100).nullish(),
  last_reported_long: z.number().min(-180).max(180).nullish(),
  last_reported_lat: z.number().min(-90).max(90).nullish(),
  tms_carrier_id: text(255).nullish(),
  carrier_name: text(255).nullish(),
  hauling_carrier_id: text(255).nullish(),
  hauling_carrier_name: text(255).nullish(),
  hauling_carrier_mc_number: text(50).nullish(),
  hauling_carrier_dot_number: text(50).nullish(),
  carrier_completed_rate: money().nullish(),
  customer_rate: money().nullish(),
  margin: money().nullish(),
  customer_name: text(255).nullish(),
  tms_sales_rep_names: text(1000).nullish(),
  carrier_rep: contactInput.nullish(),
  driver: contactInput.nullish(),
  carrier_rep_user_id: text(100).nullish(),
  carrier_rep_user_name: text(255).nullish(),
  carrier_rep_user_email: text(254).nullish(),
  assigned_to_ai_agent: z.boolean().nullish(),
  stops: z
    .array(stopInput)
    .max(100)
    .nullish()
    .meta({ description: 'Replaces the stored stops when sent. At least two when the load is created.' }),
  context: z.record(z.string(), z.unknown()).nullish(),
  custom_fields: z.record(z.string(), z.unknown()).nullish(),
});
export type LoadInput = z.output<typeof loadInput>;

export const loadInputBody = loadInput.meta({
  title: 'LoadInput',
  description:
    'Upserted on tms_load_id, then external_id, then load_number. Fields left out keep their stored ' +
    'value; load_status is derived from tms_status (unknown values give null).',
});

export const MAX_BATCH_LOADS = 1000;

/**
 * An object, checked without copying it: the issue z.record would raise for anything else, at a
 * hundredth of its cost on a thousand loads (z.record copies every key of every item).
 */
// The check makes the value a record; zod cannot carry that over from a check to the type.
const anObject = () =>
  z.unknown().check((ctx) => {
    const v = ctx.value;
    if (!isJsonObject(v)) ctx.issues.push({ code: 'invalid_type', expected: 'record', input: v });
  }) as z.ZodType<Record<string, unknown>>;

// Items are validated one by one, so one bad load fails alone (207) and names its field as
// `loads[3].stops[0].type`.
export const loadBatchBody = documentAs(
  z.object({ loads: z.array(anObject()).min(1).max(MAX_BATCH_LOADS) }),
  z.object({ loads: z.array(loadInputBody).min(1).max(MAX_BATCH_LOADS) }).meta({ title: 'LoadBatchRequest' }),
);

/**
 * PATCH /loads/{load_id}: every field of a load as ingested, all optional; only those sent change.
 * `load_number` and `equipment_type` may be changed but not cleared.
 */
export const loadPatchBody = loadInput
  .partial()
  .extend({
    load_number: nonEmptyText(100).optional(),
    equipment_type: z.enum(EQUIPMENT_TYPES).optional(),
  })
  .meta({
    title: 'LoadPatch',
    description:
      'Fields left out keep their stored value; null clears a nullable field. `stops`, when sent, ' +
      'replace the stored stops (stops sent exactly as stored keep their ids).',
  });
export type LoadPatch = z.output<typeof loadPatchBody>;
