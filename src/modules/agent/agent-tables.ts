import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { productNow, timestamps, tstz } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';
import { outreaches } from '../outreaches/outreaches-tables.js';

export const AGENT_CHANNELS = ['call', 'email', 'whatsapp'] as const;
export type AgentChannel = (typeof AGENT_CHANNELS)[number];

/**
 * How the load-working agent behaves for one organization. No row means the defaults of
 * agent-settings.ts; a row holds every value, so defaults can change without rewriting rows.
 */
export const agentSettings = pgTable(
  'agent_settings',
  {
    organization_id: organizationId().primaryKey(),
    enabled: boolean('enabled').notNull(),
    wave_size: integer('wave_size').notNull(),
    wave_wait_minutes: integer('wave_wait_minutes').notNull(),
    channel_order: text('channel_order', { enum: AGENT_CHANNELS }).array().notNull(),
    recontact_window_hours: integer('recontact_window_hours').notNull(),
    daily_cap_per_carrier: integer('daily_cap_per_carrier').notNull(),
    quiet_hours_start: integer('quiet_hours_start').notNull(),
    quiet_hours_end: integer('quiet_hours_end').notNull(),
    auto_accept_at_or_under_posted_rate: boolean('auto_accept_at_or_under_posted_rate').notNull(),
    restriction_notices_enabled: boolean('restriction_notices_enabled').notNull(),
    /** Lower-cased carrier tms_status values that get the operational restriction notice. */
    restriction_tms_statuses: text('restriction_tms_statuses').array().notNull(),
    /**
     * The negotiation policy (negotiation-settings.ts), validated on write. Keys missing (a row
     * written before they existed, `{}` for rows older than the policy) read as their defaults.
     */
    negotiation: jsonb('negotiation').notNull().default(sql`'{}'::jsonb`),
    /** Least minutes between two automated contacts of one carrier, across loads (0: no gap). */
    carrier_min_gap_minutes: integer('carrier_min_gap_minutes').notNull().default(30),
    /** Loads of one lane due together for one carrier go out in one e-mail or WhatsApp message. */
    group_lane_loads: boolean('group_lane_loads').notNull().default(true),
    /** Minutes after which an unanswered contact about an urgent load is followed up once (0: never). */
    follow_up_unanswered_minutes: integer('follow_up_unanswered_minutes').notNull().default(90),
    /** Minutes an offer may wait for a rep before its review item escalates (0: never). */
    review_escalation_minutes: integer('review_escalation_minutes').notNull().default(15),
    ...timestamps,
  },
  (t) => [
    check('agent_settings_wave_size_check', sql`${t.wave_size} BETWEEN 1 AND 100`),
    check(
      'agent_settings_quiet_check',
      sql`${t.quiet_hours_start} BETWEEN 0 AND 23 AND ${t.quiet_hours_end} BETWEEN 0 AND 23`,
    ),
  ],
);

/**
 * The agent's progress on one load: which wave it planned last and when the next may start. A
 * worker leases a row (`lease_until`) while planning, so several instances never plan one load twice.
 */
export const agentLoadStates = pgTable(
  'agent_load_states',
  {
    load_id: text('load_id')
      .primaryKey()
      .references(() => loads.id, { onDelete: 'cascade' }),
    organization_id: organizationId(),
    waves_planned: integer('waves_planned').notNull().default(0),
    last_wave_tier: integer('last_wave_tier'),
    next_wave_at: tstz('next_wave_at').notNull().default(productNow),
    lease_until: tstz('lease_until'),
    /** Why the agent is waiting: the last decision, for operators reading the table. */
    last_decision: text('last_decision'),
    /** The last decision as a kind (see PLANNING_OUTCOMES), what the load's activity status reads. */
    last_outcome: text('last_outcome'),
    ...timestamps,
  },
  (t) => [index('agent_load_states_due_idx').on(t.next_wave_at)],
);

/** What a planning round concluded for a load. */
export const PLANNING_OUTCOMES = [
  'wave_queued',
  'holding_for_review',
  'no_eligible_carriers',
  'exhausted',
  'deferred',
] as const;
export type PlanningOutcome = (typeof PLANNING_OUTCOMES)[number];

export const ACTIVITY_KINDS = ['wave', 'carrier_chosen', 'carrier_skipped', 'planning'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * The agent's planning of a load, entry by entry: each wave, each carrier chosen (channel, tier and
 * why) and each carrier considered and skipped (the guard's reason, the cap, no address). Contacts,
 * offers and the booking are read from their own tables when the timeline is shown.
 */
export const agentActivity = pgTable(
  'agent_activity',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ACTIVITY_KINDS }).notNull(),
    wave: integer('wave'),
    carrier_id: text('carrier_id'),
    channel: text('channel'),
    tier: integer('tier'),
    /** Why: the guard's refusal, the selection source, the planning outcome. */
    reason: text('reason'),
    outreach_id: text('outreach_id'),
    created_at: tstz('created_at').notNull().default(productNow),
  },
  (t) => [index('agent_activity_load_idx').on(t.load_id, t.created_at)],
);

/**
 * An offer within the ceiling that waits for a rep's decision: raised once (offer.review_requested),
 * escalated once when it waited longer than the organization's review_escalation_minutes
 * (offer.review_escalated). It is open while the offer stays pending on a workable load.
 */
export const agentReviewItems = pgTable(
  'agent_review_items',
  {
    offer_id: text('offer_id').primaryKey(),
    organization_id: organizationId(),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    requested_at: tstz('requested_at').notNull().default(productNow),
    escalated_at: tstz('escalated_at'),
  },
  (t) => [
    index('agent_review_items_open_idx').on(t.organization_id, t.requested_at),
    index('agent_review_items_unescalated_idx').on(t.requested_at).where(sql`${t.escalated_at} IS NULL`),
  ],
);

/**
 * Every e-mail and WhatsApp message the agent sent or received in a conversation: what the
 * outreach's `conversation_id` refers to.
 */
export const agentMessages = pgTable(
  'agent_messages',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    outreach_id: text('outreach_id').references(() => outreaches.id, { onDelete: 'cascade' }),
    load_id: text('load_id').references(() => loads.id, { onDelete: 'cascade' }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'cascade' }),
    channel: text('channel', { enum: AGENT_CHANNELS }).notNull(),
    direction: text('direction', { enum: ['outbound', 'inbound'] }).notNull(),
    /** What the message was for: first_contact, counter_offer, ask_rate, offer_received, ... */
    intent: text('intent'),
    body: text('body').notNull(),
    external_message_id: text('external_message_id'),
    /**
     * An inbound message: how it was read for each load of its conversation (the rule-based
     * reader's reading and, when a chat model is configured, the model's and whether they agreed).
     */
    reading: jsonb('reading'),
    created_at: tstz('created_at').notNull().default(productNow),
  },
  (t) => [
    index('agent_messages_outreach_idx').on(t.outreach_id, t.created_at),
    // The agent's results count the period's readings (and the chat model's disagreements).
    index('agent_messages_read_idx')
      .on(t.organization_id, t.created_at)
      .where(sql`${t.direction} = 'inbound' AND ${t.reading} IS NOT NULL`),
    index('agent_messages_external_idx')
      .on(t.external_message_id)
      .where(sql`${t.external_message_id} IS NOT NULL`),
  ],
);

export const OUTBOX_STATUSES = ['queued', 'sent', 'failed'] as const;

/**
 * The agent's answers to carriers, written in the transaction that decided them and sent after it
 * committed: the turn sends its own at once; the outbox worker sends any a crash left queued and
 * retries a failed send with a growing delay, up to OUTBOX_ATTEMPTS times. `message_ids`: the
 * conversation messages (one per load of the conversation) stamped with the channel's message id.
 */
export const agentOutbox = pgTable(
  'agent_outbox',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    outreach_id: text('outreach_id')
      .notNull()
      .references(() => outreaches.id, { onDelete: 'cascade' }),
    /** The loads the message is about (its subject). */
    load_ids: text('load_ids').array().notNull(),
    message_ids: text('message_ids').array().notNull(),
    body: text('body').notNull(),
    /** The carrier's message it answers, to thread under it. */
    in_reply_to: text('in_reply_to'),
    /** What the chat model may draft in its own words instead of `body` (intent, amount, language). */
    draft: jsonb('draft'),
    status: text('status', { enum: OUTBOX_STATUSES }).notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    next_attempt_at: tstz('next_attempt_at').notNull().default(productNow),
    /** Held by one sender until then (wall clock, as every lease). */
    lease_until: tstz('lease_until'),
    last_error: text('last_error'),
    sent_at: tstz('sent_at'),
    created_at: tstz('created_at').notNull().default(productNow),
  },
  (t) => [index('agent_outbox_due_idx').on(t.next_attempt_at).where(sql`${t.status} = 'queued'`)],
);
