// What the simulated market reads of the product (see the agent's market-directory.ts): who an
// outreach went to, and the loads a message names with the carrier's tier on each one's lane.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/** A carrier as the market knows it, read over the alias `c`. */
export type MarketCarrierRow = {
  id: string;
  organization_id: string;
  dot: string | null;
  name: string | null;
  mc: string | null;
  home_state: string | null;
  phone: string | null;
  email: string | null;
};

/** The columns of a MarketCarrierRow over the carriers row aliased `c`. */
export const MARKET_CARRIER_COLUMNS = sql`c.id, c.organization_id, c.dot_number AS dot,
  c.name, c.mc_number AS mc, c.home_state, c.phone, c.email`;

/** The organization's oldest carrier whose phone has these digits, as the simulated market knows it. */
export async function carrierAtPhoneDigits(db: DbOrTx, organizationId: string, digits: string) {
  const r = await db.execute<MarketCarrierRow>(sql`
        SELECT ${MARKET_CARRIER_COLUMNS} FROM carriers c
        WHERE c.organization_id = ${organizationId} AND regexp_replace(c.phone, '\\D', '', 'g') = ${digits}
        ORDER BY c.created_at LIMIT 1`);
  return r.rows[0];
}

/** The carrier an outreach went to, or undefined. */
export async function carrierOfOutreach(db: DbOrTx, outreachId: string) {
  const r = await db.execute<MarketCarrierRow>(sql`
        SELECT ${MARKET_CARRIER_COLUMNS} FROM outreaches o
        JOIN carriers c ON c.id = o.carrier_id AND c.organization_id = o.organization_id
        WHERE o.id = ${outreachId}`);
  return r.rows[0];
}

export type MarketLoadRow = {
  load_number: string;
  posted_rate: number | null;
  suggested_market_rate: number | null;
  distance: number | null;
  equipment_type: string | null;
  pickup_date: Date | string | null;
  created_at: Date | string;
  tier: number | null;
};

/**
 * The organization's loads of these numbers (any case), each with the carrier's tier on its lane
 * (its lowest primary lane preference tier, else the carrier's own; none without a carrier).
 */
export async function marketLoadRows(
  db: DbOrTx,
  organizationId: string,
  carrierId: string | null,
  numbers: readonly string[],
): Promise<MarketLoadRow[]> {
  const r = await db.execute<MarketLoadRow>(sql`
        SELECT l.load_number, l.posted_rate, l.suggested_market_rate, l.distance, l.equipment_type,
          l.pickup_date, l.created_at,
          coalesce(
            (SELECT min(lp.routing_guide_tier) FROM lanes ln
             JOIN lane_preferences lp ON lp.organization_id = ln.organization_id AND lp.lane_id = ln.id
               AND lp.carrier_id = ${carrierId} AND lp.is_active AND lp.preference_type = 'primary'
             WHERE ln.organization_id = l.organization_id
               AND ln.origin_state = l.origin_state AND ln.destination_state = l.destination_state
               AND (ln.origin_city IS NULL OR lower(ln.origin_city) = lower(l.origin_city))
               AND (ln.destination_city IS NULL OR lower(ln.destination_city) = lower(l.destination_city))
               AND (ln.equipment_type IS NULL OR ln.equipment_type = l.equipment_type)),
            (SELECT c.routing_guide_tier FROM carriers c WHERE c.id = ${carrierId})) AS tier
        FROM loads l
        WHERE l.organization_id = ${organizationId}
          AND lower(l.load_number) = ANY(${sql.param(numbers.map((n) => n.toLowerCase()))}::text[])`);
  return r.rows;
}
