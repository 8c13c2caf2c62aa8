import { type SQL, sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { timestamps, tstz } from '../../db/columns.js';
import { CONTACT_TYPES, EQUIPMENT_TYPES, LOAD_MODES } from '../../domain/freight.js';
import { organizationId, users } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';

export const LOAD_STATUSES = [
  'Created',
  'Unassigned',
  'Quotes Received',
  'Dispatched',
  'En Route',
  'Delivered',
  'Cancelled',
  'Exception',
] as const;
export type LoadStatus = (typeof LOAD_STATUSES)[number];

export { CONTACT_TYPES, EQUIPMENT_TYPES, LOAD_MODES };

export interface StoredContact {
  type: (typeof CONTACT_TYPES)[number] | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  email: string | null;
}

export interface StoredReferenceNumber {
  value: string;
  type: string | null;
}

/**
 * One stop of a load as loads.stops holds it (the stops in their order): a field without a value
 * is left out rather than stored as null, and datetimes are ISO 8601 strings in UTC.
 */
export interface StoredStop {
  id: string;
  stop_number?: number;
  type?: 'Pickup' | 'Dropoff';
  is_pickup?: boolean;
  is_dropoff?: boolean;
  expected_date?: string;
  planned_start?: string;
  planned_end?: string;
  pickup_delivery_number?: string;
  actual_arrival_datetime?: string;
  actual_departure_datetime?: string;
  carrier_eta?: string;
  notes?: string;
  special_instructions?: string[];
  reference_numbers?: StoredReferenceNumber[];
  contact?: StoredContact;
  contacts?: StoredContact[];
  city: string;
  state: string;
  street?: string;
  postal_code?: string;
  company_name?: string;
  county?: string;
  country: string;
  latitude?: number;
  longitude?: number;
}

/**
 * A float8 as a bigint that orders the same and is equal exactly when the floats are (IEEE 754
 * bits of the magnitude; negative values mirrored below zero; -0 is 0). Immutable, so a
 * generated column and a filter's bound use the same expression.
 */
export const distanceKey = (value: SQL) =>
  sql`(CASE WHEN ${value} < 0 THEN -1 - ('x' || encode(float8send(-${value}), 'hex'))::bit(64)::bigint ELSE ('x' || encode(float8send(abs(${value})), 'hex'))::bit(64)::bigint END)`;

export const loads = pgTable(
  'loads',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_number: text('load_number').notNull(),
    tms_load_id: text('tms_load_id'),
    external_id: text('external_id'),
    equipment_type: text('equipment_type').notNull(),
    mode: text('mode'),
    load_status: text('load_status'),
    tms_status: text('tms_status'),
    weight: doublePrecision('weight'),
    distance: doublePrecision('distance'),
    commodity: text('commodity'),
    handling_unit_count: integer('handling_unit_count'),
    handling_unit_type: text('handling_unit_type'),
    po_numbers: jsonb('po_numbers').$type<string[]>(),
    reference_numbers: jsonb('reference_numbers').$type<StoredReferenceNumber[]>(),
    posted_rate: integer('posted_rate'),
    max_buy_rate: integer('max_buy_rate'),
    suggested_market_rate: integer('suggested_market_rate'),
    length_feet: integer('length_feet'),
    special_instructions: jsonb('special_instructions').$type<string[]>(),
    notes: text('notes'),
    is_posted: boolean('is_posted').notNull().default(false),
    last_posted_at: tstz('last_posted_at'),
    last_unposted_at: tstz('last_unposted_at'),
    externally_posted_at: tstz('externally_posted_at'),
    temperature_setting_minimum: integer('temperature_setting_minimum'),
    temperature_setting_maximum: integer('temperature_setting_maximum'),
    temperature_run_type: text('temperature_run_type'),
    last_reported_state: text('last_reported_state'),
    last_reported_city: text('last_reported_city'),
    last_reported_long: doublePrecision('last_reported_long'),
    last_reported_lat: doublePrecision('last_reported_lat'),
    tms_carrier_id: text('tms_carrier_id'),
    carrier_name: text('carrier_name'),
    hauling_carrier_id: text('hauling_carrier_id'),
    hauling_carrier_name: text('hauling_carrier_name'),
    hauling_carrier_mc_number: text('hauling_carrier_mc_number'),
    hauling_carrier_dot_number: text('hauling_carrier_dot_number'),
    carrier_completed_rate: numeric('carrier_completed_rate', { mode: 'number' }),
    customer_rate: numeric('customer_rate', { mode: 'number' }),
    margin: numeric('margin', { mode: 'number' }),
    customer_name: text('customer_name'),
    tms_sales_rep_names: text('tms_sales_rep_names'),
    carrier_rep: jsonb('carrier_rep').$type<StoredContact>(),
    driver: jsonb('driver').$type<StoredContact>(),
    carrier_rep_user_id: text('carrier_rep_user_id'),
    carrier_rep_user_name: text('carrier_rep_user_name'),
    carrier_rep_user_email: text('carrier_rep_user_email'),
    assigned_to_ai_agent: boolean('assigned_to_ai_agent').notNull().default(false),
    context: jsonb('context').$type<Record<string, unknown>>(),
    custom_fields: jsonb('custom_fields').$type<Record<string, unknown>>(),
    /**
     * The stops, in order. They are written and replaced with the load, never one by one, and read
     * with it: in the row, they cost neither a table of their own (its two indexes and foreign-key
     * checks on every insert) nor a subquery on every read.
     */
    stops: jsonb('stops').$type<StoredStop[]>().notNull().default(sql`'[]'::jsonb`),
    // Derived from the stops and the load's own fields on every write (loads-ingestion
    // derivedColumns), so filters and search read one row and one index.
    origin_city: text('origin_city'),
    origin_state: text('origin_state'),
    destination_city: text('destination_city'),
    destination_state: text('destination_state'),
    /** First pickup stop's expected date (else its planned start). */
    pickup_date: tstz('pickup_date'),
    /** Last drop-off stop's expected date (else its planned start). */
    delivery_date: tstz('delivery_date'),
    /** Lower-cased: the assigned rep's name and each source-TMS sales rep name. */
    rep_names: text('rep_names').array().notNull().default(sql`'{}'::text[]`),
    /** Lower-cased search text over the fields `search` covers; a trigram index serves it. */
    search_text: text('search_text').notNull().default(''),
    /**
     * The distance as a bigint in the same order (and equal exactly when the distances are), so
     * its index deduplicates repeated values (float8 keys cannot be) and stays small: see
     * distanceKey. Never read back.
     */
    distance_key: bigint('distance_key', { mode: 'bigint' }).generatedAlwaysAs(
      (): SQL => distanceKey(sql`"loads"."distance"`),
    ),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('loads_organization_load_number_key').on(t.organization_id, t.load_number),
    uniqueIndex('loads_organization_tms_load_id_key')
      .on(t.organization_id, t.tms_load_id)
      .where(sql`${t.tms_load_id} IS NOT NULL`),
    uniqueIndex('loads_organization_external_id_key')
      .on(t.organization_id, t.external_id)
      .where(sql`${t.external_id} IS NOT NULL`),
    // Sorting: each order_by reads one of these in its ORDER BY order, so a page never sorts the
    // organization (loads-list-repository sortPlan, pageIds). Columns that cannot be null read one
    // index either way round. A nullable column keeps nulls last both ways: its page is read as
    // the loads with a value (the index forwards or backwards) followed by those without (by id).
    // load_number is unique in the organization: its unique index is its order.
    index('loads_organization_created_idx').on(t.organization_id, t.created_at, t.id),
    index('loads_organization_updated_idx').on(t.organization_id, t.updated_at, t.id),
    // pickup and delivery also INCLUDE (created_at, load_status, tms_status, mode, equipment_type,
    // is_posted), added by migration 0014 (drizzle's builder has no INCLUDE): a date range with a
    // status or a few-valued filter, and its page in the default order, read the index alone.
    index('loads_organization_pickup_idx').on(t.organization_id, t.pickup_date, t.id),
    index('loads_organization_delivery_idx').on(t.organization_id, t.delivery_date, t.id),
    index('loads_organization_last_posted_idx').on(t.organization_id, t.last_posted_at, t.id),
    // Rates and distances arrive in random order: an (organization_id, value, id) index would take
    // each new load on a random page of a large index (a page read and a full-page WAL image per
    // load and index). These hold each value once with the loads that have it (deduplicated), so
    // they stay small and cached; a page orders each run of equal values by id (an incremental
    // sort of a few rows). Loads without a value are read by id from a partial index.
    index('loads_organization_rate_idx')
      .on(t.organization_id, t.posted_rate)
      .where(sql`${t.posted_rate} IS NOT NULL`),
    index('loads_organization_rate_null_idx')
      .on(t.organization_id, t.id)
      .where(sql`${t.posted_rate} IS NULL`),
    index('loads_organization_distance_idx')
      .on(t.organization_id, t.distance_key)
      .where(sql`${t.distance_key} IS NOT NULL`),
    index('loads_organization_distance_null_idx')
      .on(t.organization_id, t.id)
      .where(sql`${t.distance_key} IS NULL`),
    // Filters read on an index of their own: customer and cities (through load_filter_values,
    // which resolves case-insensitive and substring matches to stored values first), with
    // load_status second so such a filter with a status is counted on the index alone. The few-
    // valued ones (tms_status, mode, equipment_type, is_posted) and rep names are counted in
    // load_facet_counts instead; their pages walk the sort index (rep names: the GIN index).
    // The three INCLUDE (id, created_at, pickup_date, delivery_date), added by migration 0014: such
    // a filter with a tab (joined on id) or a pickup/delivery range is counted, and its matches
    // put in the default order, on the index alone.
    index('loads_organization_customer_idx').on(t.organization_id, t.customer_name, t.load_status),
    index('loads_organization_origin_city_idx').on(t.organization_id, t.origin_city, t.load_status),
    index('loads_organization_destination_city_idx').on(t.organization_id, t.destination_city, t.load_status),
    index('loads_rep_names_idx').using('gin', t.rep_names),
    index('loads_organization_status_idx').on(
      t.organization_id,
      t.load_status,
      t.equipment_type,
      t.pickup_date,
    ),
    // The agent's work selection: loads handed to it.
    index('loads_agent_assigned_idx').on(t.organization_id, t.id).where(sql`${t.assigned_to_ai_agent}`),
    // Carrier selection by lane history: earlier loads on the same state pair.
    index('loads_organization_lane_idx').on(t.organization_id, t.origin_state, t.destination_state),
    index('loads_search_trgm_idx').using('gin', sql`${t.search_text} gin_trgm_ops`),
    check('loads_stops_array_check', sql`jsonb_typeof(${t.stops}) = 'array'`),
  ],
);

/** An organization's own tms_status -> load_status entries, consulted before the default table. */
export const loadStatusMappings = pgTable(
  'load_status_mappings',
  {
    organization_id: organizationId(),
    /** Lower-cased and trimmed. */
    tms_status: text('tms_status').notNull(),
    load_status: text('load_status').notNull(),
    ...timestamps,
  },
  (t) => [primaryKey({ columns: [t.organization_id, t.tms_status] })],
);

/** Something a user should look at on a load; unread ones feed the `active_notifications` tab. */
export const notifications = pgTable(
  'notifications',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id').references(() => loads.id, { onDelete: 'cascade' }),
    user_id: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    message: text('message').notNull(),
    read_at: tstz('read_at'),
    ...timestamps,
  },
  (t) => [
    index('notifications_unread_load_idx').on(t.organization_id, t.load_id).where(sql`${t.read_at} IS NULL`),
  ],
);

/** ACTIVE waits for a person; the others are final (`resolved_at` says when it left ACTIVE). */
export const ESCALATION_STATUSES = ['ACTIVE', 'RESPONDED', 'TIMED_OUT', 'CANCELLED'] as const;
/** Which of Envoy's agents raised it: the one working carriers' offers, or carrier vetting. */
export const ESCALATION_AGENT_TYPES = ['CARRIER_SALES', 'CARRIER_VETTING'] as const;
/** What it asks about: an offer waiting for a rep, or a booked carrier that turned high risk. */
export const ESCALATION_TYPES = ['offer_review', 'carrier_high_risk'] as const;

/**
 * A question an agent put to a person about a load (`GET /loads/{id}/escalations`,
 * `POST /escalations/{id}/respond`); `active_escalation_count` counts the ACTIVE ones.
 */
export const escalations = pgTable(
  'escalations',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    agent_type: text('agent_type', { enum: ESCALATION_AGENT_TYPES }).notNull(),
    escalation_type: text('escalation_type', { enum: ESCALATION_TYPES }),
    /** What the person is asked to decide. */
    message: text('message').notNull(),
    status: text('status', { enum: ESCALATION_STATUSES }).notNull().default('ACTIVE'),
    /** The call it was raised on; none of Envoy's agents raises one during a call yet. */
    call_id: text('call_id'),
    /** The offer it is about (no foreign key: offers' table refers to this file's). */
    offer_id: text('offer_id'),
    reason: text('reason'),
    response_message: text('response_message'),
    response_user_id: text('response_user_id').references(() => users.id, { onDelete: 'set null' }),
    responded_at: tstz('responded_at'),
    resolved_at: tstz('resolved_at'),
    ...timestamps,
  },
  (t) => [
    index('escalations_load_idx').on(t.load_id, t.created_at),
    index('escalations_active_load_idx').on(t.organization_id, t.load_id).where(sql`${t.status} = 'ACTIVE'`),
    index('escalations_active_offer_idx').on(t.offer_id).where(sql`${t.status} = 'ACTIVE'`),
  ],
);

/**
 * Carrier verification failures met while working a load (`GET /loads/{id}/verifications`, the
 * `failed_verifications` tab).
 */
export const carrierVerifications = pgTable(
  'carrier_verifications',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'cascade' }),
    source: text('source').notNull(),
    status: text('status').notNull().default('BLOCKED'),
    reasons: jsonb('reasons').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    ...timestamps,
  },
  (t) => [
    index('carrier_verifications_load_idx').on(t.load_id, t.created_at),
    index('carrier_verifications_blocked_load_idx')
      .on(t.organization_id, t.load_id)
      .where(sql`${t.status} = 'BLOCKED'`),
  ],
);
