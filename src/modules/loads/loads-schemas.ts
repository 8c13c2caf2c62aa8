import { z } from 'zod';
import { toE164 } from '../../domain/phone.js';
import { documentAs } from '../../http/openapi.js';
import { pageQuery } from '../../http/pagination.js';
import {
  dateTime,
  dateTimeInput,
  int32,
  nonEmptyText,
  queryBool,
  queryInt,
  queryList,
  storedEnum,
  text,
} from '../../http/schemas.js';
import {
  CONTACT_TYPES,
  EQUIPMENT_TYPES,
  ESCALATION_STATUSES,
  LOAD_MODES,
  LOAD_STATUSES,
} from './loads-tables.js';

// ---------------------------------------------------------------------------------------------
// Input: a load as sent by a TMS integration (POST /loads, each item of POST /loads/batch).
// Optional fields stay absent when not sent, so an update changes only what was sent.

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

// Items are validated one by one, so one bad load fails alone (207) and names its field as
// `loads[3].stops[0].type`.
export const loadBatchBody = documentAs(
  z.object({ loads: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_BATCH_LOADS) }),
  z.object({ loads: z.array(loadInputBody).min(1).max(MAX_BATCH_LOADS) }).meta({ title: 'LoadBatchRequest' }),
);

// ---------------------------------------------------------------------------------------------
// The list's filters: the query string of GET /loads, and the `filters` of a saved view.

/** A calendar date `YYYY-MM-DD`, read as a UTC day. */
const queryDate = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'Must be a date YYYY-MM-DD' })
    .max(10)
    .refine(
      (s) =>
        !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
      {
        message: 'Not a valid calendar date',
      },
    );

const queryNumber = () => z.coerce.number().min(-1e12).max(1e12);

export const LOAD_TABS = [
  'all',
  'active_notifications',
  'active_outreaches',
  'all_calls',
  'failed_verifications',
  'active_escalations',
  'active_offers',
] as const;
export type LoadTab = (typeof LOAD_TABS)[number];

/** The documented sort fields of the load list; anything else is a 422. */
export const LOAD_SORT_FIELDS = [
  'created_at',
  'updated_at',
  'load_number',
  'pickup_date',
  'delivery_date',
  'posted_rate',
  'distance',
  'last_posted_at',
] as const;
export type LoadSortField = (typeof LOAD_SORT_FIELDS)[number];

export const loadFiltersShape = {
  search: text(200).optional(),
  status: queryList(z.enum(LOAD_STATUSES)).optional(),
  tms_status: queryList(text(100)).optional(),
  is_posted: queryBool().optional(),
  mode: queryList(z.enum(LOAD_MODES)).optional(),
  equipment_type: queryList(z.enum(EQUIPMENT_TYPES)).optional(),
  customer_name: queryList(text(255)).optional(),
  carrier_rep_name: queryList(text(255)).optional(),
  origin_city: text(100).optional(),
  destination_city: text(100).optional(),
  pickup_date_from: queryDate().optional(),
  pickup_date_to: queryDate().optional(),
  delivery_date_from: queryDate().optional(),
  delivery_date_to: queryDate().optional(),
  created_at_from: queryDate().optional(),
  created_at_to: queryDate().optional(),
  updated_at_from: queryDate().optional(),
  updated_at_to: queryDate().optional(),
  last_posted_at_from: queryDate().optional(),
  last_posted_at_to: queryDate().optional(),
  distance_min: queryNumber().optional(),
  distance_max: queryNumber().optional(),
  posted_rate_min: queryInt(-2_147_483_648, 2_147_483_647).optional(),
  posted_rate_max: queryInt(-2_147_483_648, 2_147_483_647).optional(),
  tab: z.enum(LOAD_TABS).optional(),
  order_by: z
    .enum(LOAD_SORT_FIELDS)
    .optional()
    .meta({ description: `Default created_at. One of: ${LOAD_SORT_FIELDS.join(', ')}.` }),
  order_desc: queryBool()
    .optional()
    .meta({ description: 'Default true. Nulls sort after every value both ways; ties break on id.' }),
};

/** What a saved view may hold: every filter of the list (not page, page_size or view_id). */
export const loadFilters = z.strictObject(loadFiltersShape);
export type LoadFilters = z.output<typeof loadFilters>;

export const listLoadsQuery = pageQuery(10).extend({
  ...loadFiltersShape,
  view_id: text(100)
    .optional()
    .meta({ description: 'A saved load view; its filters stack with these (both narrow).' }),
});
export type ListLoadsQuery = z.output<typeof listLoadsQuery>;

/** GET /loads/stats: the list's filters (and view), without paging or sorting. */
export const loadStatsQuery = listLoadsQuery.omit({
  page: true,
  page_size: true,
  order_by: true,
  order_desc: true,
});

export const loadIdParams = z.object({ load_id: text(100) });

// ---------------------------------------------------------------------------------------------
// Output

export const contactSchema = z
  .object({
    type: z.enum(CONTACT_TYPES).nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
  })
  .meta({ id: 'Contact' });

export const referenceNumberSchema = z
  .object({ value: z.string(), type: z.string().nullable() })
  .meta({ id: 'ReferenceNumber' });

export const locationSchema = z
  .object({
    city: z.string(),
    state: z.string(),
    street: z.string().nullable(),
    postal_code: z.string().nullable(),
    company_name: z.string().nullable(),
    county: z.string().nullable(),
    country: z.string(),
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
  })
  .meta({ id: 'Location' });

export const stopSchema = z
  .object({
    id: z.string(),
    stop_number: z.number().int().nullable(),
    type: z.enum(['Pickup', 'Dropoff']).nullable(),
    is_pickup: z.boolean().nullable(),
    is_dropoff: z.boolean().nullable(),
    location: locationSchema,
    expected_date: dateTime().nullable(),
    planned: z.object({ start: dateTime().nullable(), end: dateTime().nullable() }).nullable(),
    pickup_delivery_number: z.string().nullable(),
    actual_stop_times: z
      .object({ arrival_datetime: dateTime().nullable(), departure_datetime: dateTime().nullable() })
      .nullable(),
    carrier_eta: dateTime().nullable(),
    reference_numbers: z.array(referenceNumberSchema).nullable(),
    notes: z.string().nullable(),
    special_instructions: z.array(z.string()).nullable(),
    contact: contactSchema.nullable(),
    contacts: z.array(contactSchema).nullable(),
  })
  .meta({ id: 'Stop' });
export type Stop = z.infer<typeof stopSchema>;

export const loadSchema = z
  .object({
    id: z.string(),
    load_number: z.string(),
    organization_id: z.string(),
    equipment_type: storedEnum(EQUIPMENT_TYPES),
    created_at: dateTime(),
    updated_at: dateTime(),
    tms_load_id: z.string().nullable(),
    external_id: z.string().nullable(),
    mode: storedEnum(LOAD_MODES).nullable(),
    load_status: z.enum(LOAD_STATUSES).nullable(),
    tms_status: z.string().nullable(),
    weight: z.number().nullable(),
    distance: z.number().nullable(),
    commodity: z.string().nullable(),
    handling_unit_count: z.number().int().nullable(),
    handling_unit_type: z.string().nullable(),
    po_numbers: z.array(z.string()).nullable(),
    reference_numbers: z.array(referenceNumberSchema).nullable(),
    posted_rate: z.number().int().nullable(),
    max_buy_rate: z.number().int().nullable(),
    suggested_market_rate: z.number().int().nullable(),
    length_feet: z.number().int().nullable(),
    special_instructions: z.array(z.string()).nullable(),
    notes: z.string().nullable(),
    is_posted: z.boolean(),
    last_posted_at: dateTime().nullable(),
    last_unposted_at: dateTime().nullable(),
    externally_posted_at: dateTime().nullable(),
    temperature_setting_minimum: z.number().int().nullable(),
    temperature_setting_maximum: z.number().int().nullable(),
    temperature_run_type: z.string().nullable(),
    last_reported_state: z.string().nullable(),
    last_reported_city: z.string().nullable(),
    last_reported_long: z.number().nullable(),
    last_reported_lat: z.number().nullable(),
    tms_carrier_id: z.string().nullable(),
    carrier_name: z.string().nullable(),
    hauling_carrier_id: z.string().nullable(),
    hauling_carrier_name: z.string().nullable(),
    hauling_carrier_mc_number: z.string().nullable(),
    hauling_carrier_dot_number: z.string().nullable(),
    carrier_completed_rate: z.number().nullable(),
    customer_rate: z
      .number()
      .nullable()
      .meta({ description: 'Returned to API keys, OWNERs and ADMINs; null for MEMBERs.' }),
    margin: z
      .number()
      .nullable()
      .meta({ description: 'Returned to API keys, OWNERs and ADMINs; null for MEMBERs.' }),
    customer_name: z.string().nullable(),
    tms_sales_rep_names: z.string().nullable(),
    carrier_rep: contactSchema.nullable(),
    driver: contactSchema.nullable(),
    carrier_rep_user_id: z.string().nullable(),
    carrier_rep_user_name: z.string().nullable(),
    carrier_rep_user_email: z.string().nullable(),
    assigned_to_ai_agent: z.boolean(),
    stops: z.array(stopSchema),
    context: z.record(z.string(), z.unknown()),
    custom_fields: z.record(z.string(), z.unknown()),
    offer_count: z.number().int().meta({ description: 'Unique carriers with an offer on the load.' }),
    max_offer_amount: z.number().nullable(),
    min_offer_amount: z.number().nullable(),
    active_escalation_count: z.number().int(),
  })
  .meta({ id: 'Load' });
export type Load = z.infer<typeof loadSchema>;

export const OPERATIONS = ['created', 'updated'] as const;

export const loadUpsertResultSchema = z
  .object({
    success: z.boolean(),
    message: z.string(),
    processed_at: dateTime(),
    load_id: z.string(),
    operation: z.enum(OPERATIONS),
  })
  .meta({ id: 'LoadUpsertResult' });

const itemError = z.object({ code: z.string(), message: z.string(), param: z.string().nullable() });

export const loadBatchResultSchema = z
  .object({
    success: z.boolean().meta({ description: 'True when every load was created or updated.' }),
    total_loads: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int().meta({ description: 'Loads not applied (failed or skipped).' }),
    created: z.number().int(),
    updated: z.number().int(),
    processed_at: dateTime(),
    results: z.array(
      z.object({
        load_identifier: z
          .string()
          .nullable()
          .meta({ description: 'tms_load_id, else external_id, else load_number' }),
        success: z.boolean(),
        load_id: z.string().nullable(),
        operation: z.enum(OPERATIONS).nullable(),
        error: z.string().nullable(),
        error_code: z.string().nullable(),
      }),
    ),
    data: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(['created', 'updated', 'skipped', 'failed']),
        id: z.string().nullable(),
        external_id: z.string().nullable(),
        error: itemError.nullable(),
      }),
    ),
    summary: z.object({
      total: z.number().int(),
      created: z.number().int(),
      updated: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
    }),
    errors: z.array(itemError.extend({ index: z.number().int() })),
  })
  .meta({ id: 'LoadBatchResult' });
export type LoadBatchResult = z.infer<typeof loadBatchResultSchema>;

export const loadStatsSchema = z
  .object({
    total_count: z.number().int(),
    by_status: z
      .record(z.string(), z.number().int())
      .meta({ description: 'Loads per load_status; `none` counts loads without one.' }),
    by_tab: z.record(z.enum(LOAD_TABS), z.number().int()),
  })
  .meta({ id: 'LoadStats' });

export const carrierVerificationSchema = z
  .object({
    id: z.string(),
    load_id: z.string(),
    carrier_id: z.string().nullable(),
    source: z.string(),
    status: z.string(),
    reasons: z.array(z.string()),
    created_at: dateTime(),
  })
  .meta({ id: 'CarrierVerification' });

export const escalationSchema = z
  .object({
    id: z.string(),
    load_id: z.string(),
    status: storedEnum(ESCALATION_STATUSES),
    reason: z.string().nullable(),
    resolved_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Escalation' });
