import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { carrierKeyOf, type MarketLoad } from '../../integrations/simulation/carrier-model.js';
import type { MarketCarrier, MarketDirectory } from '../../integrations/simulation/market.js';

/**
 * What the simulated market reads of the product: who an outreach went to, the carrier at a
 * number, and the loads a message names (the facts the message says, the lane's miles, and the
 * carrier's tier on the lane, which sets how eagerly it answers). Read-only.
 */

type CarrierRow = {
  id: string;
  organization_id: string;
  dot: string | null;
  name: string | null;
  mc: string | null;
  home_state: string | null;
  phone: string | null;
  email: string | null;
};

const CARRIER_COLUMNS = sql`c.id, c.organization_id, c.dot_number AS dot,
  c.name, c.mc_number AS mc, c.home_state, c.phone, c.email`;

const carrierOf = (r: CarrierRow | undefined): MarketCarrier | null =>
  r
    ? {
        id: r.id,
        organizationId: r.organization_id,
        key: carrierKeyOf(r.mc, r.dot, r.id),
        name: r.name,
        mc: r.mc,
        homeState: r.home_state,
        phone: r.phone,
        email: r.email,
      }
    : null;

type LoadRow = {
  load_number: string;
  posted_rate: number | null;
  suggested_market_rate: number | null;
  distance: number | null;
  equipment_type: string | null;
  pickup_date: Date | string | null;
  created_at: Date | string;
  tier: number | null;
};

const ms = (d: Date | string | null) => (d === null ? null : new Date(d).getTime());

export function marketDirectory(db: DbOrTx): MarketDirectory {
  return {
    async carrierOfOutreach(outreachId) {
      const r = await db.execute<CarrierRow>(sql`
        SELECT ${CARRIER_COLUMNS} FROM outreaches o
        JOIN carriers c ON c.id = o.carrier_id AND c.organization_id = o.organization_id
        WHERE o.id = ${outreachId}`);
      return carrierOf(r.rows[0]);
    },
    async carrierAtPhone(organizationId, phone) {
      const digits = phone.replace(/\D/g, '');
      const r = await db.execute<CarrierRow>(sql`
        SELECT ${CARRIER_COLUMNS} FROM carriers c
        WHERE c.organization_id = ${organizationId} AND regexp_replace(c.phone, '\\D', '', 'g') = ${digits}
        ORDER BY c.created_at LIMIT 1`);
      return carrierOf(r.rows[0]);
    },
    async loads(organizationId, carrierId, numbers): Promise<MarketLoad[]> {
      if (!numbers.length) return [];
      const r = await db.execute<LoadRow>(sql`
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
      return r.rows.map((l) => ({
        number: l.load_number,
        postedRate: l.posted_rate === null ? null : Number(l.posted_rate),
        suggestedMarketRate: l.suggested_market_rate === null ? null : Number(l.suggested_market_rate),
        distance: l.distance === null ? null : Number(l.distance),
        equipment: l.equipment_type,
        pickupAt: ms(l.pickup_date),
        handedAt: ms(l.created_at) ?? 0,
        tier: l.tier === null ? null : Number(l.tier),
      }));
    },
  };
}
