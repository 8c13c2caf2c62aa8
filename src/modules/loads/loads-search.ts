// The load searches the voice assistant's find_load tool runs: by number, or the open loads of a lane.

import { and, asc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { anyOf } from '../../db/conditions.js';
import { OPEN_LOAD_STATUSES } from '../../domain/freight.js';
import { loads } from './loads-tables.js';

/** The ids and numbers of the organization's loads that meet `conditions`. */
const searchLoads = (db: DbOrTx, organizationId: string, ...conditions: SQL[]) =>
  db
    .select({ id: loads.id, load_number: loads.load_number })
    .from(loads)
    .where(and(eq(loads.organization_id, organizationId), ...conditions));

/** The organization's load with this number (ignoring case), at most one. */
export function findLoadsByNumber(db: DbOrTx, organizationId: string, number: string) {
  return searchLoads(db, organizationId, sql`lower(${loads.load_number}) = ${number.toLowerCase()}`).limit(1);
}

/**
 * Loads still taking offers on the lane, the pickup nearest the date asked for (else the soonest)
 * first. `notBooked` is the offers module's condition on the load's id (loads cannot see offers).
 */
export function openLoadsOnLane(
  db: DbOrTx,
  organizationId: string,
  origin: string,
  destination: string,
  pickupAt: Date | null,
  notBooked: (loadId: AnyPgColumn) => SQL,
) {
  return searchLoads(
    db,
    organizationId,
    eq(loads.origin_state, origin),
    eq(loads.destination_state, destination),
    anyOf(isNull(loads.load_status), inArray(loads.load_status, [...OPEN_LOAD_STATUSES])),
    notBooked(loads.id),
  )
    .orderBy(
      pickupAt
        ? sql`abs(extract(epoch from (${loads.pickup_date} - ${pickupAt.toISOString()}::timestamptz))) NULLS LAST`
        : sql`${loads.pickup_date} ASC NULLS LAST`,
      asc(loads.created_at),
    )
    .limit(5);
}
