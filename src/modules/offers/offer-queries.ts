// Offer reads and SQL fragments other modules use; the offers table stays this module's.

import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offers } from './offers-tables.js';

/**
 * A pending offer on the load a rep could accept as it stands: at or under the posted rate (any
 * pending offer when the load has none).
 */
export async function acceptablePendingOffer(db: DbOrTx, loadId: string, postedRate: number | null) {
  const [row] = await db
    .select({ id: offers.id, amount: offers.offer_amount })
    .from(offers)
    .where(
      and(
        eq(offers.load_id, loadId),
        eq(offers.status, 'pending'),
        postedRate === null ? sql`true` : sql`${offers.offer_amount} <= ${postedRate}`,
      ),
    )
    .limit(1);
  return row ?? null;
}
