// The open loads a carrier may be offered with another in one message or call (the agent's lane
// sweep): loads of the load's lane and of the carrier's other lanes.

import { type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { type ContactWindow, contactCountsSql, offeredWithinSql } from './contact-history.js';
import { refusalSql } from './contact-refusal.js';
import { workableSql } from './workable-loads.js';

/** An open load a carrier may be offered with another; `same_lane`: on that load's lane. */
export type LaneLoad = { id: string; load_number: string; same_lane: boolean };

/** Whether the load `x` is on the lane `ln` (states; city and equipment when the lane names them). */
const onLane = (ln: SQLWrapper, x: SQLWrapper) => sql`(${ln}.origin_state = ${x}.origin_state
  AND ${ln}.destination_state = ${x}.destination_state
  AND (${ln}.origin_city IS NULL OR lower(${ln}.origin_city) = lower(${x}.origin_city))
  AND (${ln}.destination_city IS NULL OR lower(${ln}.destination_city) = lower(${x}.destination_city))
  AND (${ln}.equipment_type IS NULL OR ${ln}.equipment_type = ${x}.equipment_type))`;

/**
 * For each carrier (`carrierIds`, at least one), fewer than `mostLoads` other open loads it may be
 * offered now with the load, in the order it hears of them, by carrier; the agent's laneLoadsFor
 * says which loads and in what order.
 */
export async function laneLoadRows(
  tx: DbOrTx,
  organizationId: string,
  loadId: string,
  carrierIds: readonly string[],
  window: ContactWindow,
  mostLoads: number,
): Promise<(LaneLoad & { carrier_id: string })[]> {
  const l = sql.identifier('l');
  const ids = sql.param([...carrierIds]);
  const rows = await tx.execute<LaneLoad & { carrier_id: string }>(sql`
    WITH ld AS (
      SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
      FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}
    ),
    carrier_lanes AS (
      SELECT lp.carrier_id, ln.origin_city, ln.origin_state, ln.destination_city, ln.destination_state,
             ln.equipment_type
      FROM lane_preferences lp JOIN lanes ln ON ln.id = lp.lane_id AND ln.organization_id = lp.organization_id
      WHERE lp.organization_id = ${organizationId} AND lp.carrier_id = ANY(${ids}::text[])
        AND lp.is_active AND NOT lp.dnu AND lp.preference_type = 'primary'
    ),
    lane AS (
      SELECT * FROM (
        SELECT l.id, l.load_number, l.pickup_date, l.origin_city, l.origin_state, l.destination_city,
               l.destination_state, l.equipment_type,
               (l.origin_state IS NOT DISTINCT FROM ld.origin_state
                AND lower(l.origin_city) IS NOT DISTINCT FROM lower(ld.origin_city)
                AND l.destination_state IS NOT DISTINCT FROM ld.destination_state
                AND lower(l.destination_city) IS NOT DISTINCT FROM lower(ld.destination_city)
                AND l.equipment_type = ld.equipment_type) AS same_lane
        FROM loads l, ld
        WHERE l.organization_id = ${organizationId} AND l.id <> ld.id AND ${workableSql(l)}) x
      WHERE x.same_lane OR EXISTS (SELECT 1 FROM carrier_lanes cl WHERE ${onLane(sql.identifier('cl'), sql.identifier('x'))})
      ORDER BY x.pickup_date NULLS LAST, x.id
      LIMIT 200
    ),
    heard AS (
      SELECT lane.*, within_day,
             CASE WHEN within_day THEN (SELECT count(DISTINCT o.carrier_id) FROM outreaches o
               WHERE o.load_id = lane.id AND o.direction = 'outbound' AND o.cancelled_at IS NULL) END AS carriers
      FROM lane CROSS JOIN LATERAL (SELECT lane.pickup_date < envoy_now() + interval '24 hours' AS within_day) w
    ),
    frees AS (
      SELECT c.id AS carrier_id, n.cap_frees_at FROM carriers c
      CROSS JOIN LATERAL (${contactCountsSql(organizationId, sql`c.id`)}) n
      WHERE c.organization_id = ${organizationId} AND c.id = ANY(${ids}::text[])
    ),
    offered AS (
      SELECT c.id AS carrier_id, lane.id, lane.load_number, lane.same_lane,
             row_number() OVER (PARTITION BY c.id ORDER BY again, soon IS NOT TRUE,
               CASE WHEN soon THEN lane.carriers END, lane.pickup_date NULLS LAST, lane.id) AS n
      FROM carriers c CROSS JOIN heard lane
      JOIN frees f ON f.carrier_id = c.id
      CROSS JOIN LATERAL (
        SELECT EXISTS (SELECT 1 FROM outreaches o
                       WHERE o.load_id = lane.id AND o.carrier_id = c.id AND o.direction = 'outbound'
                         AND o.cancelled_at IS NULL) AS again,
               lane.within_day AND lane.pickup_date < coalesce(f.cap_frees_at, envoy_now() + interval '24 hours') AS soon) a
      WHERE c.organization_id = ${organizationId} AND c.id = ANY(${ids}::text[])
        AND (lane.same_lane OR (
          (c.equipment_types IS NULL OR cardinality(c.equipment_types) = 0
           OR lane.equipment_type = ANY(c.equipment_types))
          AND EXISTS (SELECT 1 FROM carrier_lanes cl WHERE cl.carrier_id = c.id AND ${onLane(sql.identifier('cl'), sql.identifier('lane'))})))
        AND ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('lane') })} IS NULL
        AND NOT ${offeredWithinSql(sql`c.id`, sql`lane.id`, window)}
    )
    SELECT carrier_id, id, load_number, same_lane FROM offered
    WHERE n < ${mostLoads}
    ORDER BY carrier_id, n`);
  return rows.rows;
}
