// Whether a carrier has work in flight, read from its offers and their loads: what continuous
// compliance monitoring watches.

import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { UNBOOKABLE_LOAD_STATUSES } from '../../domain/freight.js';

const FINISHED = sql.raw(UNBOOKABLE_LOAD_STATUSES.map((s) => `'${s}'`).join(', '));

/**
 * EXISTS over the carrier the caller's query names (an alias of `carriers`): an offer of its is
 * pending, or accepted on a load not delivered or cancelled.
 */
export const carrierHasLoadInFlight = (c: SQLWrapper): SQL =>
  sql`EXISTS (SELECT 1 FROM offers o JOIN loads l ON l.id = o.load_id
    WHERE o.organization_id = ${c}.organization_id AND o.carrier_id = ${c}.id
      AND (o.status = 'pending'
           OR (o.status = 'accepted' AND coalesce(l.load_status, '') NOT IN (${FINISHED}))))`;
