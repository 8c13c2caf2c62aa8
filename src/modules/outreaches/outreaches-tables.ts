import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamps, tstz } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';

export const OUTREACH_MODALITIES = ['call', 'email', 'whatsapp'] as const;
export const OUTREACH_DIRECTIONS = ['outbound', 'inbound'] as const;
export const OUTREACH_STATUSES = ['pending', 'active', 'completed', 'failed', 'no_response'] as const;

/**
 * Call, e-mail or WhatsApp contact with a carrier about a load (spec: Outreach). Created here with
 * the spec's columns for the `active_outreaches` tab; the outreaches issue adds the endpoints.
 */
export const outreaches = pgTable(
  'outreaches',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    carrier_id: text('carrier_id')
      .notNull()
      .references(() => carriers.id, { onDelete: 'cascade' }),
    load_id: text('load_id')
      .notNull()
      .references(() => loads.id, { onDelete: 'cascade' }),
    modality: text('modality', { enum: OUTREACH_MODALITIES }).notNull(),
    direction: text('direction', { enum: OUTREACH_DIRECTIONS }).notNull().default('outbound'),
    load_number: text('load_number'),
    status: text('status', { enum: OUTREACH_STATUSES }).notNull().default('completed'),
    error_reason: text('error_reason'),
    delivery_failed_at: tstz('delivery_failed_at'),
    delivery_failure_reason: text('delivery_failure_reason'),
    carrier_engaged: boolean('carrier_engaged'),
    is_automated: boolean('is_automated').notNull().default(false),
    call_id: text('call_id'),
    conversation_id: text('conversation_id'),
    /** An automated outreach waits until then (quiet hours, waves); null: at once. */
    send_after: tstz('send_after'),
    /** When the message went out or the call was placed. */
    sent_at: tstz('sent_at'),
    /** The e-mail address or phone number contacted. */
    address: text('address'),
    /** The channel's id of the first message (our e-mail Message-ID, a WhatsApp wamid). */
    external_message_id: text('external_message_id'),
    /** Set when the agent withdrew a queued outreach before it went out (load covered, stop asked). */
    cancelled_at: tstz('cancelled_at'),
    /**
     * Outreaches sent as one conversation (loads of one lane offered to one carrier together) share
     * it; null: the outreach is a conversation of its own. Counted once for the daily cap.
     */
    bundle_id: text('bundle_id'),
    ...timestamps,
  },
  (t) => [
    index('outreaches_load_idx').on(t.load_id, t.created_at),
    // Serves the active_outreaches tab.
    index('outreaches_open_load_idx')
      .on(t.organization_id, t.load_id)
      .where(sql`${t.status} IN ('pending', 'active')`),
    index('outreaches_organization_created_idx').on(t.organization_id, t.created_at),
    index('outreaches_organization_carrier_idx').on(t.organization_id, t.carrier_id, t.created_at),
    // The list's other sort fields (created_at uses outreaches_organization_created_idx).
    index('outreaches_organization_updated_idx').on(t.organization_id, t.updated_at, t.id),
    index('outreaches_organization_status_idx').on(t.organization_id, t.status, t.id),
    index('outreaches_call_idx').on(t.call_id).where(sql`${t.call_id} IS NOT NULL`),
    // The no_response sweeper: open e-mail and WhatsApp outreaches, oldest first.
    index('outreaches_open_message_idx')
      .on(t.created_at)
      .where(sql`${t.modality} IN ('email', 'whatsapp') AND ${t.status} IN ('pending', 'active')`),
    // The agent's dispatcher: queued automated outreaches, by due time.
    index('outreaches_automated_due_idx')
      .on(t.send_after)
      .where(sql`${t.is_automated} AND ${t.status} = 'pending'`),
    index('outreaches_bundle_idx').on(t.bundle_id).where(sql`${t.bundle_id} IS NOT NULL`),
    index('outreaches_conversation_idx').on(t.conversation_id).where(sql`${t.conversation_id} IS NOT NULL`),
    index('outreaches_external_message_idx')
      .on(t.external_message_id)
      .where(sql`${t.external_message_id} IS NOT NULL`),
    index('outreaches_address_idx').on(t.address, t.created_at).where(sql`${t.address} IS NOT NULL`),
    check('outreaches_modality_check', sql`${t.modality} IN ('call', 'email', 'whatsapp')`),
    check(
      'outreaches_status_check',
      sql`${t.status} IN ('pending', 'active', 'completed', 'failed', 'no_response')`,
    ),
  ],
);

/**
 * What a provider delivered once (an inbound e-mail, a WhatsApp message, a voice tool call), under
 * its own id: providers deliver at least once, so a repeat, concurrent ones included, finds the
 * first delivery's row (its insert waits for the first one's transaction) and answers its outcome
 * instead of acting again. `created_at` is the machine's time: receipts are kept for retries, not
 * shown.
 */
export const inboundReceipts = pgTable(
  'inbound_receipts',
  {
    /** Who delivered it: `postmark`, `whatsapp`, `vapi_tool`, ... */
    provider: text('provider').notNull(),
    message_id: text('message_id').notNull(),
    organization_id: text('organization_id'),
    /** The first delivery's answer, as it was returned (null while it is being handled). */
    outcome: jsonb('outcome').$type<unknown>(),
    created_at: tstz('created_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.message_id] }),
    index('inbound_receipts_created_idx').on(t.created_at),
  ],
);
