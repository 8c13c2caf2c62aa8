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
import { CALL_STATUSES } from '../../domain/calls.js';
import { type CallAnalysis, VOICE_PURPOSES } from '../../integrations/voice/voice-provider.js';
import { organizationId } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';

export { CALL_STATUSES };
export const CALL_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;

/**
 * Phone calls (spec: Call). Created here with the spec's columns for `GET /loads/{id}/calls` and
 * the `all_calls` tab; the calls issue adds the endpoints and the voice providers.
 */
export const calls = pgTable(
  'calls',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    status: text('status', { enum: CALL_STATUSES }).notNull(),
    call_time: tstz('call_time').notNull().default(productNow),
    call_direction: text('call_direction', { enum: CALL_DIRECTIONS }),
    phone_number: text('phone_number'),
    to_number: text('to_number'),
    from_number: text('from_number'),
    call_start_time: tstz('call_start_time'),
    call_end_time: tstz('call_end_time'),
    call_type: text('call_type'),
    load_id: text('load_id').references(() => loads.id, { onDelete: 'set null' }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'set null' }),
    /** Inbound: the carrier the caller says it is, until its identity is verified (then carrier_id). */
    claimed_carrier_id: text('claimed_carrier_id').references(() => carriers.id, { onDelete: 'set null' }),
    /** Inbound: when the caller's identity was verified (calling number on file, or a one-time code). */
    identity_verified_at: tstz('identity_verified_at'),
    created_by_id: text('created_by_id'),
    recording_status: text('recording_status'),
    load_number: text('load_number'),
    /** The voice platform that carries the call, its id there, and where live commands go. */
    provider: text('provider'),
    provider_call_id: text('provider_call_id'),
    control_url: text('control_url'),
    /** The voice template the call runs (named, or the default for its purpose when it started). */
    template_id: text('template_id'),
    /** What the call is for: load_booking, elp, tracking_check or inbound_sales. */
    purpose: text('purpose', { enum: VOICE_PURPOSES }),
    voice_agent_id: text('voice_agent_id'),
    template_variables: jsonb('template_variables').$type<Record<string, unknown>>(),
    recording_url: text('recording_url'),
    /** The platform's reason the call ended, and its post-call analysis (summary, structured data). */
    ended_reason: text('ended_reason'),
    analysis: jsonb('analysis').$type<CallAnalysis>(),
    /** What the platform charged for the call (US dollars), from its end-of-call report. */
    cost: doublePrecision('cost'),
    /** When the post-call analysis was applied (an offer it names recorded): once per call. */
    analysis_applied_at: tstz('analysis_applied_at'),
    /**
     * The assistant's last transfer: started (the platform said it is dialing `transfer_destination`),
     * failed (the caller came back to the assistant, or the call ended otherwise) or connected.
     */
    transfer_status: text('transfer_status', { enum: ['started', 'failed', 'connected'] }),
    transfer_destination: text('transfer_destination'),
    transfer_updated_at: tstz('transfer_updated_at'),
    /** How often the assistant went quiet waiting on a model, voice or tool (Vapi `hang`). */
    hangs: integer('hangs').notNull().default(0),
    last_hang_at: tstz('last_hang_at'),
    /** Where a transfer of this call goes: the phone of a user joining it, while they join. */
    transfer_to: text('transfer_to'),
    /** A SCHEDULED call is placed when this time comes. */
    scheduled_at: tstz('scheduled_at'),
    ...timestamps,
  },
  (t) => [
    index('calls_load_created_idx').on(t.load_id, t.created_at),
    index('calls_organization_load_idx').on(t.organization_id, t.load_id),
    index('calls_organization_created_idx').on(t.organization_id, t.created_at),
    // The list's other sort fields; call_time is also its default order.
    index('calls_organization_call_time_idx').on(t.organization_id, t.call_time, t.id),
    index('calls_organization_start_idx').on(
      t.organization_id,
      t.call_start_time.desc().nullsLast(),
      t.id.desc(),
    ),
    index('calls_organization_end_idx').on(
      t.organization_id,
      t.call_end_time.desc().nullsLast(),
      t.id.desc(),
    ),
    index('calls_organization_status_idx').on(t.organization_id, t.status, t.id),
    uniqueIndex('calls_provider_call_key').on(t.provider, t.provider_call_id),
    index('calls_scheduled_due_idx').on(t.scheduled_at).where(sql`${t.status} = 'SCHEDULED'`),
    check(
      'calls_status_check',
      sql`${t.status} IN ('SCHEDULED', 'PENDING', 'AGENT_ASSIGNED', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'VOICEMAIL', 'NO_RESPONSE', 'TRANSFERRED')`,
    ),
  ],
);

/** What was said on a call, in order; fields the platform adds beyond ours are kept in `extra`. */
export const transcriptMessages = pgTable(
  'transcript_messages',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    call_id: text('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    role: text('role').notNull(),
    content: text('content'),
    message_id: text('message_id'),
    timestamp: text('timestamp'),
    interrupted: boolean('interrupted'),
    transcript_confidence: doublePrecision('transcript_confidence'),
    tool_calls: jsonb('tool_calls'),
    tool_call_id: text('tool_call_id'),
    extra: jsonb('extra').$type<Record<string, unknown>>(),
  },
  (t) => [uniqueIndex('transcript_messages_call_position_key').on(t.call_id, t.position)],
);

/** One-time codes that verify an inbound caller's identity: only the code's hash is kept. */
export const callerVerifications = pgTable(
  'caller_verifications',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    call_id: text('call_id')
      .notNull()
      .references(() => calls.id, { onDelete: 'cascade' }),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    code_hash: text('code_hash').notNull(),
    /** Where the code went (the census e-mail or phone), masked. */
    sent_to: text('sent_to').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expires_at: tstz('expires_at').notNull(),
    verified_at: tstz('verified_at'),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [index('caller_verifications_call_idx').on(t.call_id, t.created_at)],
);
