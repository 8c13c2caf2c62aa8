import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { MARKET_CARRIER_COLUMNS, type MarketCarrierRow } from '../read-side/index.js';

/** The organization's oldest carrier whose phone has these digits, as the simulated market knows it. */
export async function carrierAtPhoneDigits(db: DbOrTx, organizationId: string, digits: string) {
  const r = await db.execute<MarketCarrierRow>(sql`
        SELECT ${MARKET_CARRIER_COLUMNS} FROM carriers c
        WHERE c.organization_id = ${organizationId} AND regexp_replace(c.phone, '\\D', '', 'g') = ${digits}
        ORDER BY c.created_at LIMIT 1`);
  return r.rows[0];
}
