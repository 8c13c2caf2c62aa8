// What the loads' escalations are about, read from the offers: the bookings of a carrier turned
// high risk, and the conditions under which an escalation's offer stopped waiting for a rep.

import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/**
 * Each load whose accepted offer is the carrier's, with that offer, unless the load has an ACTIVE
 * escalation with this reason already; runs in the caller's transaction, which escalates them.
 */
export async function bookingsToEscalate(
  tx: DbOrTx,
  organizationId: string,
  carrierId: string,
  reason: string,
): Promise<{ load_id: string; offer_id: string; load_number: string | null }[]> {
  const rows = await tx.execute<{ load_id: string; offer_id: string; load_number: string | null }>(sql`
    SELECT DISTINCT ON (o.load_id) o.load_id, o.id AS offer_id, l.load_number
    FROM offers o JOIN loads l ON l.id = o.load_id
    WHERE o.organization_id = ${organizationId} AND o.carrier_id = ${carrierId} AND o.status = 'accepted'
      AND NOT EXISTS (SELECT 1 FROM escalations e
                      WHERE e.organization_id = o.organization_id AND e.load_id = o.load_id
                        AND e.status = 'ACTIVE' AND e.reason = ${reason})
    ORDER BY o.load_id, o.id`);
  return rows.rows;
}

/** EXISTS of the offer the caller's query names (its id), pending and not countered: it awaits a rep. */
export const offerAwaitsReview = (offerId: SQLWrapper): SQL =>
  sql`EXISTS (SELECT 1 FROM offers o WHERE o.id = ${offerId} AND o.status = 'pending' AND o.counter_amount IS NULL)`;

/** EXISTS of an accepted offer on the load the caller's query names (its id): the load is booked. */
export const loadHasAcceptedOffer = (loadId: SQLWrapper): SQL =>
  sql`EXISTS (SELECT 1 FROM offers b WHERE b.load_id = ${loadId} AND b.status = 'accepted')`;

/** EXISTS of the offer the caller's query names (its id), accepted. */
export const offerIsAccepted = (offerId: SQLWrapper): SQL =>
  sql`EXISTS (SELECT 1 FROM offers o WHERE o.id = ${offerId} AND o.status = 'accepted')`;
