// Quotes held for vetting (held_for = 'vetting'), as the agent releases them once their carrier passes.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/**
 * Locks the offer until the transaction ends if it is still a pending quote held for vetting (a
 * rep or another instance may have decided it meanwhile); whether it was.
 */
export async function lockHeldForVetting(tx: DbOrTx, offerId: string): Promise<boolean> {
  const still = await tx.execute(
    sql`SELECT 1 FROM offers WHERE id = ${offerId} AND held_for = 'vetting' AND status = 'pending' FOR UPDATE`,
  );
  return still.rows.length > 0;
}

/** The quote stays with a rep, no longer waiting on vetting. */
export async function endVettingHold(tx: DbOrTx, offerId: string): Promise<void> {
  await tx.execute(sql`UPDATE offers SET held_for = NULL WHERE id = ${offerId}`);
}
