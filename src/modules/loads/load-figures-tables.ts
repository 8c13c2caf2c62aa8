// What a load read shows of its offers and escalations, kept by triggers on those tables in the
// same transaction as their writes (migration 0034_load_figures), so a read joins one row by key
// instead of aggregating offers and escalations for every load it returns.

import { doublePrecision, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { loads } from './loads-tables.js';

/**
 * One row per load that has had an offer or an escalation; a load without one has no row (its
 * figures are zero and null).
 */
export const loadFigures = pgTable('load_figures', {
  load_id: text('load_id')
    .primaryKey()
    .references(() => loads.id, { onDelete: 'cascade' }),
  organization_id: text('organization_id').notNull(),
  /** Carriers with an offer on the load, whatever its status. */
  offer_count: integer('offer_count').notNull().default(0),
  max_offer_amount: doublePrecision('max_offer_amount'),
  min_offer_amount: doublePrecision('min_offer_amount'),
  active_escalation_count: integer('active_escalation_count').notNull().default(0),
});
