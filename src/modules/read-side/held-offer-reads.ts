import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/** A quote held for vetting, as the agent releases it. */
export type HeldOffer = {
  id: string;
  organization_id: string;
  load_id: string;
  carrier_id: string;
  offer_amount: number;
  channel: 'voice' | 'email' | 'messaging';
  email_conversation_id: string | null;
};

/**
 * Up to `limit` quotes held for vetting whose carrier has passed since (compliance PASSED, risk
 * low), oldest first.
 */
export async function heldOffersOfPassedCarriers(db: DbOrTx, limit: number): Promise<HeldOffer[]> {
  const due = await db.execute<HeldOffer>(sql`
    SELECT o.id, o.organization_id, o.load_id, o.carrier_id, o.offer_amount::float8 AS offer_amount,
           o.channel, o.email_conversation_id
    FROM offers o JOIN carriers c ON c.organization_id = o.organization_id AND c.id = o.carrier_id
    WHERE o.held_for = 'vetting' AND o.status = 'pending'
      AND c.compliance_status = 'PASSED' AND coalesce(c.risk_level, 'low') = 'low'
    ORDER BY o.created_at LIMIT ${limit}`);
  return due.rows;
}
