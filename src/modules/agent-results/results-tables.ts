import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  numeric,
  pgTable,
  text,
} from 'drizzle-orm/pg-core';
import { productNow, tstz } from '../../db/columns.js';
import { BOOKED_BY } from '../../domain/freight.js';
import { organizationId } from '../auth/auth-tables.js';
import { loads } from '../loads/loads-tables.js';

/**
 * What the agent did for one load it was handed, and what came of it: one row per load, kept by
 * database triggers on the tables the agent's work writes (loads, outreaches, offers, calls,
 * agent_load_states) in the same transaction as each change, so results are exact at any moment
 * whatever path made the change (see migrations/0021 and docs/decisions/0028-agent-results-ledger.md).
 */
export const agentLoadResults = pgTable(
  'agent_load_results',
  {
    load_id: text('load_id')
      .primaryKey()
      .references(() => loads.id, { onDelete: 'cascade' }),
    organization_id: organizationId(),
    /** When the load first became workable while assigned to the agent. */
    handed_at: tstz('handed_at').notNull(),
    // The load as it is now (refreshed on every write of the load): what results group by.
    origin_state: text('origin_state'),
    destination_state: text('destination_state'),
    equipment_type: text('equipment_type'),
    customer_name: text('customer_name'),
    carrier_rep_user_id: text('carrier_rep_user_id'),
    pickup_at: tstz('pickup_at'),
    // The agent's effort.
    waves: integer('waves').notNull().default(0),
    contacts_call: integer('contacts_call').notNull().default(0),
    contacts_email: integer('contacts_email').notNull().default(0),
    contacts_whatsapp: integer('contacts_whatsapp').notNull().default(0),
    first_contact_at: tstz('first_contact_at'),
    /** A call answered by a person, or a reply received. */
    connects: integer('connects').notNull().default(0),
    offers: integer('offers').notNull().default(0),
    first_offer_at: tstz('first_offer_at'),
    counters: integer('counters').notNull().default(0),
    /** A call transferred to a rep, or a carrier's offer left for a rep to decide. */
    handoffs: integer('handoffs').notNull().default(0),
    // The booking, while the load has one (cleared when the accepted offer is undone).
    booked_at: tstz('booked_at'),
    booked_offer_id: text('booked_offer_id'),
    booked_amount: numeric('booked_amount', { mode: 'number' }),
    booked_carrier_id: text('booked_carrier_id'),
    booked_tier: integer('booked_tier'),
    booked_channel: text('booked_channel'),
    booked_by: text('booked_by', { enum: BOOKED_BY }),
    /** A user's booking counts for the agent only after the agent had contacted a carrier. */
    booked_after_contact: boolean('booked_after_contact'),
    /** The current booking fell off: the load was cancelled after it was booked. */
    booked_fell_off: boolean('booked_fell_off').notNull().default(false),
    // The load's rates when it was booked.
    booked_posted_rate: numeric('booked_posted_rate', { mode: 'number' }),
    booked_market_rate: numeric('booked_market_rate', { mode: 'number' }),
    booked_max_buy_rate: numeric('booked_max_buy_rate', { mode: 'number' }),
    booked_customer_rate: numeric('booked_customer_rate', { mode: 'number' }),
    /** Bookings ever made, and those later undone (offer un-accepted, load cancelled after booking). */
    bookings: integer('bookings').notNull().default(0),
    fall_offs: integer('fall_offs').notNull().default(0),
    updated_at: tstz('updated_at').notNull().default(productNow),
    // Derived when the row is written (stored generated columns), so that reading a period computes
    // nothing per row: the group keys, whether the load counts as covered, and the values whose
    // medians results give.
    lane: text('lane').generatedAlwaysAs(
      sql`coalesce(origin_state, '?') || '-' || coalesce(destination_state, '?')`,
    ),
    handed_day: date('handed_day').generatedAlwaysAs(sql`(handed_at AT TIME ZONE 'UTC')::date`),
    /** The Monday of handed_at's week (UTC). */
    handed_week: date('handed_week').generatedAlwaysAs(
      sql`date_trunc('week', handed_at AT TIME ZONE 'UTC')::date`,
    ),
    /** Booked and standing, by the agent or by a user after the agent's contact. */
    covered: boolean('covered').generatedAlwaysAs(
      sql`booked_at IS NOT NULL AND NOT booked_fell_off AND coalesce(booked_by = 'agent' OR booked_after_contact, false)`,
    ),
    ttc_seconds: doublePrecision('ttc_seconds').generatedAlwaysAs(
      sql`extract(epoch FROM booked_at - handed_at)::float8`,
    ),
    lead_seconds: doublePrecision('lead_seconds').generatedAlwaysAs(
      sql`extract(epoch FROM pickup_at - booked_at)::float8`,
    ),
    vs_posted: doublePrecision('vs_posted').generatedAlwaysAs(
      sql`booked_amount::float8 / nullif(booked_posted_rate, 0)::float8`,
    ),
    vs_market: doublePrecision('vs_market').generatedAlwaysAs(
      sql`booked_amount::float8 / nullif(booked_market_rate, 0)::float8`,
    ),
    vs_max: doublePrecision('vs_max').generatedAlwaysAs(
      sql`booked_amount::float8 / nullif(booked_max_buy_rate, 0)::float8`,
    ),
    margin: doublePrecision('margin').generatedAlwaysAs(
      sql`(booked_customer_rate - booked_amount)::float8 / nullif(booked_customer_rate, 0)::float8`,
    ),
  },
  (t) => [
    // Both covering (INCLUDE, hand-edited in migration 0023): a period's counts and sums read the
    // first, its medians the second, which holds the covered loads only; both are index-only scans.
    index('agent_load_results_handed_idx').on(t.organization_id, t.handed_at),
    index('agent_load_results_covered_idx').on(t.organization_id, t.handed_at).where(sql`covered`),
    check('agent_load_results_booked_by_check', sql`${t.booked_by} IN ('agent', 'user')`),
  ],
);
