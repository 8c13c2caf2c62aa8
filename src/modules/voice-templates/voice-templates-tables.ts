import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../db/columns.js';
import { VOICE_PURPOSES } from '../../integrations/voice/voice-provider.js';
import { organizations } from '../auth/auth-tables.js';

export { VOICE_PURPOSES };

/**
 * Call scripts: what the voice assistant says and does on a call of one purpose. Built-in
 * templates (one per purpose) have no organization and are read-only; an organization's own
 * template marked `is_default` wins over the built-in one for its purpose.
 */
export const voiceTemplates = pgTable(
  'voice_templates',
  {
    id: text('id').primaryKey(),
    /** Null for the service's built-in templates. */
    organization_id: text('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    purpose: text('purpose', { enum: VOICE_PURPOSES }).notNull(),
    first_message: text('first_message').notNull(),
    instructions: text('instructions').notNull(),
    voicemail_message: text('voicemail_message'),
    voice: jsonb('voice').$type<{ provider: string; voice_id: string; custom?: boolean }>(),
    model: jsonb('model').$type<{ provider: string; model: string }>(),
    is_default: boolean('is_default').notNull().default(false),
    ...timestamps,
  },
  (t) => [
    index('voice_templates_organization_idx').on(t.organization_id, t.created_at),
    // At most one default per organization and purpose.
    uniqueIndex('voice_templates_default_key')
      .on(t.organization_id, t.purpose)
      .where(sql`${t.is_default} AND ${t.organization_id} IS NOT NULL`),
    check(
      'voice_templates_purpose_check',
      sql`${t.purpose} IN ('load_booking', 'elp', 'tracking_check', 'inbound_sales')`,
    ),
  ],
);
