import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { productNow, timestamps, tstz } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';

export const COMPLIANCE_STATUSES = ['PASSED', 'BLOCKED', 'UNVERIFIED'] as const;
export type ComplianceStatus = (typeof COMPLIANCE_STATUSES)[number];
export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** A fraud signal found by a check: its rule, what the policy makes of it, and the facts. */
export interface FraudSignal {
  code: string;
  action: 'block' | 'review' | 'ignore';
  evidence: string;
}

/** The census contact facts a check saw, kept to notice a change at the next check. */
export interface ContactSnapshot {
  phone: string | null;
  email: string | null;
  address: string | null;
}

export const carriers = pgTable(
  'carriers',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    name: text('name').notNull(),
    /** Digits only, leading zeros stripped. */
    mc_number: text('mc_number'),
    dot_number: text('dot_number'),
    email: text('email'),
    phone: text('phone'),
    dispatcher_name: text('dispatcher_name'),
    dispatcher_phone: text('dispatcher_phone'),
    dispatcher_email: text('dispatcher_email'),
    is_active: boolean('is_active').notNull().default(true),
    tms_status: text('tms_status'),
    /** State or province code of the carrier's base: its local time for the agent's quiet hours. */
    home_state: text('home_state'),
    /** The channel the carrier wants to be reached on first (call, email, whatsapp); null: the organization's order. */
    preferred_channel: text('preferred_channel'),
    provider: text('provider'),
    ingestion_method: text('ingestion_method'),
    equipment_types: text('equipment_types').array(),
    insurance_expiration: tstz('insurance_expiration'),
    w9_on_file: boolean('w9_on_file'),
    authorized_for_hire: boolean('authorized_for_hire'),
    on_time_pickup_pct: doublePrecision('on_time_pickup_pct'),
    on_time_delivery_pct: doublePrecision('on_time_delivery_pct'),
    tracking_compliance_pct: doublePrecision('tracking_compliance_pct'),
    avg_response_time_min: doublePrecision('avg_response_time_min'),
    total_loads_hauled: integer('total_loads_hauled'),
    is_onboarded: boolean('is_onboarded').notNull().default(false),
    routing_guide_tier: integer('routing_guide_tier'),
    carrier_rep_user_id: text('carrier_rep_user_id'),
    carrier_rep_name: text('carrier_rep_name'),
    carrier_rep_email: text('carrier_rep_email'),
    is_verified: boolean('is_verified').notNull().default(false),
    verified_date: tstz('verified_date'),
    compliance_status: text('compliance_status', { enum: COMPLIANCE_STATUSES })
      .notNull()
      .default('UNVERIFIED'),
    stop_contact_requested_at: tstz('stop_contact_requested_at'),
    tms_carrier_id: text('tms_carrier_id'),
    last_verified_at: tstz('last_verified_at'),
    last_verified_provider: text('last_verified_provider'),
    /** When set, the compliance worker checks the carrier at or after this time. */
    compliance_check_due_at: tstz('compliance_check_due_at'),
    /** low, medium (a signal sends it to review) or high (blocked); null before any check. */
    risk_level: text('risk_level', { enum: RISK_LEVELS }),
    /** The codes behind the risk level: the verdict's reasons and the signals found. */
    risk_reasons: jsonb('risk_reasons').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    fraud_signals: jsonb('fraud_signals').$type<FraudSignal[]>().notNull().default(sql`'[]'::jsonb`),
    /** The phone and e-mail the census has on file (the identity of inbound callers is checked against them). */
    census_phone: text('census_phone'),
    census_email: text('census_email'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('carriers_org_tms_carrier_id_key')
      .on(t.organization_id, t.tms_carrier_id)
      .where(sql`${t.tms_carrier_id} IS NOT NULL`),
    uniqueIndex('carriers_org_mc_number_key')
      .on(t.organization_id, t.mc_number)
      .where(sql`${t.mc_number} IS NOT NULL`),
    uniqueIndex('carriers_org_dot_number_key')
      .on(t.organization_id, t.dot_number)
      .where(sql`${t.dot_number} IS NOT NULL`),
    index('carriers_org_lower_name_idx').on(t.organization_id, sql`lower(${t.name})`),
    index('carriers_org_created_idx').on(t.organization_id, t.created_at, t.id),
    index('carriers_org_phone_idx').on(t.organization_id, t.phone),
    index('carriers_org_email_idx').on(t.organization_id, sql`lower(${t.email})`),
    index('carriers_compliance_due_idx')
      .on(t.compliance_check_due_at)
      .where(sql`${t.compliance_check_due_at} IS NOT NULL`),
    check('carriers_routing_guide_tier_check', sql`${t.routing_guide_tier} BETWEEN 1 AND 4`),
    check('carriers_preferred_channel_check', sql`${t.preferred_channel} IN ('call', 'email', 'whatsapp')`),
    check(
      'carriers_compliance_status_check',
      sql`${t.compliance_status} IN ('PASSED', 'BLOCKED', 'UNVERIFIED')`,
    ),
    check('carriers_risk_level_check', sql`${t.risk_level} IN ('low', 'medium', 'high')`),
  ],
);

export const carrierContacts = pgTable(
  'carrier_contacts',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    contact_type: text('contact_type').notNull(),
    name: text('name'),
    phone: text('phone'),
    email: text('email'),
    equipment_type: text('equipment_type'),
    position: integer('position').notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('carrier_contacts_carrier_idx').on(t.carrier_id, t.position),
    index('carrier_contacts_org_phone_idx').on(t.organization_id, t.phone),
  ],
);

/** An origin and destination (city optional) plus optional equipment: one row per distinct lane. */
export const lanes = pgTable(
  'lanes',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    origin_city: text('origin_city'),
    origin_state: text('origin_state').notNull(),
    origin_country: text('origin_country').notNull().default('US'),
    destination_city: text('destination_city'),
    destination_state: text('destination_state').notNull(),
    destination_country: text('destination_country').notNull().default('US'),
    equipment_type: text('equipment_type'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('lanes_identity_key').on(
      t.organization_id,
      sql`lower(coalesce(${t.origin_city}, ''))`,
      t.origin_state,
      t.origin_country,
      sql`lower(coalesce(${t.destination_city}, ''))`,
      t.destination_state,
      t.destination_country,
      sql`coalesce(${t.equipment_type}, '')`,
    ),
    index('lanes_org_states_idx').on(t.organization_id, t.origin_state, t.destination_state),
  ],
);

export const PREFERENCE_TYPES = ['primary', 'restricted', 'admin_disabled'] as const;

export const lanePreferences = pgTable(
  'lane_preferences',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    lane_id: text('lane_id')
      .notNull()
      .references(() => lanes.id, { onDelete: 'cascade' }),
    is_active: boolean('is_active').notNull().default(true),
    preference_type: text('preference_type', { enum: PREFERENCE_TYPES }).notNull().default('primary'),
    routing_guide_tier: integer('routing_guide_tier'),
    dnu: boolean('dnu').notNull().default(false),
    dnu_reason: text('dnu_reason'),
    dnu_set_at: tstz('dnu_set_at'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('lane_preferences_carrier_lane_key').on(t.carrier_id, t.lane_id),
    index('lane_preferences_org_lane_idx').on(t.organization_id, t.lane_id),
    check('lane_preferences_tier_check', sql`${t.routing_guide_tier} BETWEEN 1 AND 4`),
  ],
);

/** Every compliance check, kept as history; the carrier row holds the latest verdict. */
export const complianceChecks = pgTable(
  'compliance_checks',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    verdict: text('verdict', { enum: COMPLIANCE_STATUSES }).notNull(),
    reasons: jsonb('reasons').$type<string[]>().notNull(),
    /** The facts behind the reasons in words (a grant date, what failed), or null. */
    detail: text('detail'),
    risk_level: text('risk_level', { enum: RISK_LEVELS }),
    signals: jsonb('signals').$type<FraudSignal[]>().notNull().default(sql`'[]'::jsonb`),
    contact_snapshot: jsonb('contact_snapshot').$type<ContactSnapshot>(),
    raw: jsonb('raw'),
    checked_at: tstz('checked_at').notNull().default(productNow),
  },
  (t) => [index('compliance_checks_carrier_idx').on(t.carrier_id, t.checked_at)],
);

/** An organization's vetting policy (GET/PATCH /compliance-policy); absent: the defaults. */
export const vettingPolicies = pgTable('vetting_policies', {
  organization_id: organizationId().primaryKey(),
  policy: jsonb('policy').notNull(),
  ...timestamps,
});
