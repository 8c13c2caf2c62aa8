import { sql } from 'drizzle-orm';
import { boolean, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../db/columns.js';
import type { UniqueConstraint } from '../../db/pg-errors.js';
import { organizationId } from '../auth/auth-tables.js';

/**
 * An organization's own numbers on the voice platform (Vapi phone number ids): the one marked
 * `outbound` is the caller ID of its calls, and a call to any of them is answered for it. Without
 * one, the service's `VAPI_PHONE_NUMBER_ID` places its calls.
 */
export const voiceNumbers = pgTable(
  'voice_numbers',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    provider: text('provider').notNull().default('vapi'),
    /** The platform's id of the number (Vapi `phoneNumberId`). */
    phone_number_id: text('phone_number_id').notNull(),
    /** The number itself, E.164, for people reading the list. */
    phone_number: text('phone_number'),
    outbound: boolean('outbound').notNull().default(false),
    ...timestamps,
  },
  (t) => [
    // A number belongs to one organization: its inbound calls are answered for that one.
    uniqueIndex('voice_numbers_provider_number_key').on(t.provider, t.phone_number_id),
    uniqueIndex('voice_numbers_outbound_key').on(t.organization_id).where(sql`${t.outbound}`),
  ],
);

/** The unique constraints whose violation is a 409 on the field named (registered by buildServices). */
export const voiceNumberUniqueConstraints: readonly UniqueConstraint[] = [
  {
    constraint: 'voice_numbers_provider_number_key',
    param: 'phone_number_id',
    message: 'This phone number id is already registered',
  },
];
