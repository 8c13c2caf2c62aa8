// One conversation per carrier, several loads in it: when the planner contacts a carrier about a
// load, the other open loads the carrier may be offered (of the same lane and of its other lanes)
// go in the same message or call.

import { type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { refusalSql } from '../outreaches/index.js';
import { type AgentLoad, workableSql } from './agent-repository.js';
import { type AgentSettings, contactWindowOf } from './agent-settings.js';
import { type ContactWindow, contactCountsSql, offeredWithinSql } from './carrier-selection.js';
import { type Channel, type ContactPlan, MOST_LOADS_PER_MESSAGE, mostLoadsOn } from './contact-plan.js';
import { plannedContact, type Queued } from './planning-rules.js';
import type { Pick } from './wave-pick.js';

/** An open load a carrier may be offered with another; `same_lane`: on that load's lane. */
export type LaneLoad = { id: string; load_number: string; same_lane: boolean };

/** Whether the load `x` is on the lane `ln` (states; city and equipment when the lane names them). */
const onLane = (ln: SQLWrapper, x: SQLWrapper) => sql`(${ln}.origin_state = ${x}.origin_state
  AND ${ln}.destination_state = ${x}.destination_state
  AND (${ln}.origin_city IS NULL OR lower(${ln}.origin_city) = lower(${x}.origin_city))
  AND (${ln}.destination_city IS NULL OR lower(${ln}.destination_city) = lower(${x}.destination_city))
  AND (${ln}.equipment_type IS NULL OR ${ln}.equipment_type = ${x}.equipment_type))`;

/**
 * For each carrier, the other open loads it may be offered now with the load:
 * loads of the load's lane (origin, destination, equipment), and loads of any other lane the
 * carrier has an active primary preference on (its equipment permitting); loads the agent works
 * (as it works them: a load stays open until the TMS or a booking closes it), that the contact guard
 * lets the carrier be offered and that it was not contacted about (outbound, any channel) within the
 * re-contact window. Loads it was never offered come first: offering a load again (its window
 * passed) never takes the place of one the carrier has not heard of. Then loads picked up before
 * the carrier's daily cap next frees a contact (24 hours after its oldest contact of the last 24
 * hours; 24 hours from now without one), those the fewest carriers have been offered first: the
 * carrier's remaining contacts until then may be the only chance for such a load, a load picked up
 * later can wait for the freed one, and a load a dozen carriers are weighing already needs this
 * carrier less than one few have heard of. Then the rest, soonest pickup first. At most
 * MOST_LOADS_PER_MESSAGE - 1 (a call takes the first MOST_LOADS_PER_CALL - 1 of them).
 */
export async function laneLoadsFor(
  tx: DbOrTx,
  organizationId: string,
  loadId: string,
  carrierIds: readonly string[],
  window: ContactWindow,
): Promise<Map<string, LaneLoad[]>> {
  const out = new Map<string, LaneLoad[]>();
  if (carrierIds.length === 0) return out;
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
    WHERE n < ${MOST_LOADS_PER_MESSAGE}
    ORDER BY carrier_id, n`);
  for (const r of rows.rows) {
    const list = out.get(r.carrier_id) ?? [];
    list.push({ id: r.id, load_number: r.load_number, same_lane: r.same_lane });
    out.set(r.carrier_id, list);
  }
  return out;
}

/**
 * The contact that offers the carrier several loads at once. A carrier planned for a call with other
 * loads to offer is written to by e-mail instead, when the organization's order has
 * e-mail, the carrier has an address for it and does not prefer calls: a message lists more loads
 * and lets the carrier answer at its own time. Otherwise the call offers them, at most
 * MOST_LOADS_PER_CALL. WhatsApp never replaces a call: the number may be a landline.
 */
export function severalLoadsContact(
  c: { email: string | null; preferred_channel: string | null },
  plan: Extract<ContactPlan, { kind: 'contact' }>,
  order: readonly Channel[],
): Extract<ContactPlan, { kind: 'contact' }> {
  if (plan.channel !== 'call') return plan;
  if (c.preferred_channel === 'call' || !order.includes('email') || !c.email) return plan;
  return { ...plan, channel: 'email', address: c.email };
}

/**
 * The picked carriers' outreaches (`planned`), and with each contact of its own the other open
 * loads the carrier may be offered (`swept`), in the same message or call (group_lane_loads): one
 * conversation offers the carrier the loads of all its lanes instead of one contact per load.
 * Without it a carrier on two lanes spent its daily contacts on whichever lane's loads were planned
 * first, and the other lane's loads never reached it; a carrier reached only by phone heard of at
 * most MOST_LOADS_PER_CALL loads of one lane a call while loads of its other lanes, picking up
 * sooner, waited for a call of their own.
 */
export async function withLaneLoads(
  tx: DbOrTx,
  load: AgentLoad,
  settings: AgentSettings,
  picked: Pick,
): Promise<{ planned: Queued[]; swept: (Queued & { sameLane: boolean })[] }> {
  const all = [...picked.wave, ...picked.later];
  const lane = settings.group_lane_loads
    ? await laneLoadsFor(
        tx,
        load.organization_id,
        load.id,
        all.filter((c) => c.plan.kind === 'contact').map((c) => c.carrier_id),
        contactWindowOf(settings),
      )
    : new Map<string, LaneLoad[]>();
  const planned: Queued[] = [];
  const swept: (Queued & { sameLane: boolean })[] = [];
  for (const c of all) {
    const others = lane.get(c.carrier_id) ?? [];
    const several =
      others.length && c.plan.kind === 'contact'
        ? severalLoadsContact(c, c.plan, settings.channel_order)
        : null;
    const primary = plannedContact(several ? { ...c, plan: several } : c, load);
    planned.push(primary);
    if (!several) continue;
    const offered = others.slice(0, mostLoadsOn(several.channel) - 1);
    for (const other of offered) {
      swept.push({
        sameLane: other.same_lane,
        candidate: c,
        row: {
          ...primary.row,
          id: newId('outreach'),
          load_id: other.id,
          load_number: other.load_number,
          bundle_id: primary.row.id,
        },
      });
    }
  }
  return { planned, swept };
}
