import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { timestamps, tstz } from '../../db/columns.js';
import { BOOKED_BY } from '../../domain/freight.js';
import { organizationId } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';

export const OFFER_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export const OFFER_CHANNELS = ['voice', 'email', 'messaging'] as const;
/** Who recorded the offer: a rep or an API client (`api`), or the agent from a channel (`agent`). */
export const OFFER_SOURCES = ['api', 'agent'] as const;
/**
 * Why an agent's pending offer waits before the negotiation answers it: the carrier is not vetted
 * yet (strict mode), or the agent asked the carrier to confirm the amount before booking it.
 */
export const OFFER_HOLDS = ['vetting', 'confirmation'] as const;
export type OfferHold = (typeof OFFER_HOLDS)[number];

/**
 * Offers carriers make on loads (spec: Offer). Created here with the spec's columns so the load
 * list's aggregates and the `active_offers` tab work; the offers issue adds the endpoints.
 */
export const offers = pgTable(
  'offers',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    tms_load_id: text('tms_load_id'),
    offer_amount: numeric('offer_amount', { mode: 'number' }).notNull(),
    status: text('status', { enum: OFFER_STATUSES }).notNull().default('pending'),
    source: text('source', { enum: OFFER_SOURCES }).notNull().default('api'),
    channel: text('channel', { enum: OFFER_CHANNELS }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'set null' }),
    contact_id: text('contact_id'),
    call_id: text('call_id'),
    email_message_id: text('email_message_id'),
    notes: text('notes'),
    accepted_at: tstz('accepted_at'),
    /** Set with accepted_at and cleared with it (see BOOKED_BY). */
    accepted_by: text('accepted_by', { enum: BOOKED_BY }),
    created_by_id: text('created_by_id'),
    updated_by_id: text('updated_by_id'),
    truck_number: text('truck_number'),
    trailer_number: text('trailer_number'),
    driver_name: text('driver_name'),
    driver_phone: text('driver_phone'),
    load_number: text('load_number'),
    contact_name: text('contact_name'),
    contact_phone: text('contact_phone'),
    email_conversation_id: text('email_conversation_id'),
    rep_name: text('rep_name'),
    /** The agent's one counter-offer on this offer, when it made one. */
    counter_amount: numeric('counter_amount', { mode: 'number' }),
    /** Set while the offer waits for the carrier's vetting or its confirmation (OFFER_HOLDS). */
    held_for: text('held_for', { enum: OFFER_HOLDS }),
    ...timestamps,
  },
  (t) => [
    // Serves the load figures' refresh (offer_count, max/min_offer_amount; migration 0034).
    index('offers_load_idx').on(t.load_id, t.status),
    // Serves the active_offers tab and its count without touching the offers heap.
    index('offers_pending_load_idx').on(t.organization_id, t.load_id).where(sql`${t.status} = 'pending'`),
    // The same for the booked tab: its count (one accepted offer per load) reads this index alone.
    index('offers_accepted_load_idx').on(t.organization_id, t.load_id).where(sql`${t.status} = 'accepted'`),
    index('offers_organization_created_idx').on(t.organization_id, t.created_at),
    // One accepted offer per load, whatever the concurrency: the second accept violates this.
    uniqueIndex('offers_one_accepted_per_load_key').on(t.load_id).where(sql`${t.status} = 'accepted'`),
    index('offers_organization_carrier_idx').on(t.organization_id, t.carrier_id, t.created_at),
    // The list's other sort fields (created_at uses offers_organization_created_idx).
    index('offers_organization_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('offers_organization_amount_idx').on(t.organization_id, t.offer_amount, t.id),
    index('offers_organization_accepted_idx').on(
      t.organization_id,
      t.accepted_at.desc().nullsLast(),
      t.id.desc(),
    ),
    check('offers_status_check', sql`${t.status} IN ('pending', 'accepted', 'rejected')`),
    // The held offers the release sweep reads: few, so a partial index.
    index('offers_held_idx').on(t.carrier_id).where(sql`${t.held_for} IS NOT NULL`),
  ],
);

/**
 * Where the agent's negotiation with one carrier on one load stands (domain/negotiation.ts
 * Conversation): written with the offer it answers, in the same transaction, under the load's lock.
 */
export const negotiations = pgTable(
  'negotiations',
  {
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    organization_id: organizationId(),
    /** Counter-offers made, the final one included. */
    rounds: integer('rounds').notNull().default(0),
    /** The agent's standing ask: its last counter, or an amount over it it took. */
    ask: numeric('ask', { mode: 'number' }),
    last_counter: numeric('last_counter', { mode: 'number' }),
    lowest_offer: numeric('lowest_offer', { mode: 'number' }),
    last_offer: numeric('last_offer', { mode: 'number' }),
    /** The agent passed after its final round. */
    passed: boolean('passed').notNull().default(false),
    /** The carrier said no. */
    declined: boolean('declined').notNull().default(false),
    /** The amount the agent asked the carrier to confirm, until its next answer. */
    confirming: numeric('confirming', { mode: 'number' }),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.load_id, t.carrier_id] }),
    index('negotiations_carrier_idx').on(t.carrier_id),
    check('negotiations_rounds_check', sql`${t.rounds} >= 0`),
  ],
);
