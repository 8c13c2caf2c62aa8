// The list's filters (the query string of GET /loads and /loads/stats, and the `filters` of a
// saved view), and the load and the other responses of the loads routes as the API returns them.
// What POST /loads and /loads/batch read is in loads-input-schemas.

import { z } from 'zod';
import { BOOKED_BY } from '../../domain/freight.js';
import { pageQuery } from '../../http/page-query.js';
import {
  dateInput,
  dateTime,
  prefixedId,
  queryNumber as queryAmount,
  queryBool,
  queryInt,
  queryList,
  storedEnum,
  text,
} from '../../http/schemas.js';
import { CONTACT_TYPES, EQUIPMENT_TYPES, LOAD_MODES, LOAD_STATUSES } from './loads-tables.js';

// ---------------------------------------------------------------------------------------------
// The list's filters

/** A calendar date `YYYY-MM-DD`, read as a UTC day. */
const queryDate = dateInput;

const queryNumber = () => queryAmount(-1e12, 1e12);

/** A load's booking: its accepted offer, as the load view and the load.booked event show it. */
export const bookedOfferSchema = z
  .object({
    offer_id: z.string(),
    carrier_id: z.string().nullable(),
    carrier_name: z.string().nullable().meta({ description: "The carrier's name as it is now" }),
    carrier_mc_number: z.string().nullable(),
    amount: z.number().meta({ description: 'The accepted offer_amount' }),
    booked_at: dateTime().meta({ description: "The offer's accepted_at" }),
    booked_by: z.enum(BOOKED_BY).meta({
      description:
        '`agent`: the agent accepted the offer as it arrived (the organization auto-accepts at or under ' +
        'the posted rate); `user`: a rep or an API client accepted it (PATCH /offers/{id})',
    }),
  })
  .meta({
    id: 'BookedOffer',
    description:
      "The load's accepted offer. Booking never changes `load_status`: the TMS owns it and reports the " +
      'load covered or dispatched in its own time.',
  });
export type BookedOffer = z.infer<typeof bookedOfferSchema>;

export const LOAD_TABS = [
  'all',
  'active_notifications',
  'active_outreaches',
  'all_calls',
  'failed_verifications',
  'active_escalations',
  'active_offers',
  'booked',
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
  tab: z
    .enum(LOAD_TABS)
    .optional()
    .meta({
      description:
        'Loads with: `active_notifications` an unread notification; `active_outreaches` an outreach ' +
        'pending or active; `all_calls` a call; `failed_verifications` a BLOCKED carrier verification; ' +
        '`active_escalations` an ACTIVE escalation; `active_offers` a pending offer and no accepted one ' +
        '(a booked load leaves it); `booked` an accepted offer (`booked_offer`), whatever its `load_status`.',
    }),
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
  view_id: prefixedId('loadView')
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

// ---------------------------------------------------------------------------------------------
// Output

export const loadIdParams = z.object({ load_id: prefixedId('load') });

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
    booked_offer: bookedOfferSchema.nullable().meta({
      description:
        'The accepted offer the load is booked on, null when none is. Booking leaves `load_status` as the ' +
        'TMS reports it.',
    }),
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
