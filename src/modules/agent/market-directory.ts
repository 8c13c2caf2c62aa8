import type { DbOrTx } from '../../db/client.js';
import { carrierKeyOf, type MarketLoad } from '../../integrations/simulation/carrier-model.js';
import type { MarketCarrier, MarketDirectory } from '../../integrations/simulation/market.js';
import {
  carrierAtPhoneDigits,
  carrierOfOutreach,
  type MarketCarrierRow,
  marketLoadRows,
} from '../read-side/index.js';

/**
 * What the simulated market reads of the product: who an outreach went to, the carrier at a
 * number, and the loads a message names (the facts the message says, the lane's miles, and the
 * carrier's tier on the lane, which sets how eagerly it answers). Read-only.
 */

const carrierOf = (r: MarketCarrierRow | undefined): MarketCarrier | null =>
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

const ms = (d: Date | string | null) => (d === null ? null : new Date(d).getTime());

export function marketDirectory(db: DbOrTx): MarketDirectory {
  return {
    async carrierOfOutreach(outreachId) {
      return carrierOf(await carrierOfOutreach(db, outreachId));
    },
    async carrierAtPhone(organizationId, phone) {
      return carrierOf(await carrierAtPhoneDigits(db, organizationId, phone.replace(/\D/g, '')));
    },
    async loads(organizationId, carrierId, numbers): Promise<MarketLoad[]> {
      if (!numbers.length) return [];
      const rows = await marketLoadRows(db, organizationId, carrierId, numbers);
      return rows.map((l) => ({
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
