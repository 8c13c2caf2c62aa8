// One conversation per carrier, several loads in it: when the planner contacts a carrier about a
// load, the other open loads of the same lane the carrier may be offered go in the same message.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { refusalSql } from '../outreaches/index.js';
import { type AgentLoad, workableSql } from './agent-repository.js';
import type { AgentSettings } from './agent-settings.js';
import type { Channel, ContactPlan } from './contact-plan.js';
import { plannedContact, type Queued } from './planning-rules.js';
import type { Pick } from './wave-pick.js';

/** Most loads one message offers (the load planned, and at most this many less one more). */
export const MOST_LOADS_PER_MESSAGE = 8;
/** Most loads one call offers: each is described and negotiated aloud, so fewer than in writing. */
export const MOST_LOADS_PER_CALL = 4;

export type LaneLoad = { id: string; load_number: string };

/**
 * For each carrier, the other open loads of the load's lane (origin, destination, equipment) it may
 * be offered now, soonest pickup first, at most MOST_LOADS_PER_MESSAGE - 1: loads the agent works
 * (as it works them: a load stays open until the TMS or a booking closes it), that the contact guard
 * lets the carrier be offered and that it was not contacted about (outbound, any channel) within the
 * re-contact window.
 */
export async function laneLoadsFor(
  tx: DbOrTx,
  organizationId: string,
  loadId: string,
  carrierIds: readonly string[],
  recontactWindowHours: number,
): Promise<Map<string, LaneLoad[]>> {
  const out = new Map<string, LaneLoad[]>();
  if (carrierIds.length === 0) return out;
  const l = sql.identifier('l');
  const rows = await tx.execute<LaneLoad & { carrier_id: string }>(sql`
    WITH ld AS (
      SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
      FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}
    ),
    lane AS (
      SELECT l.id, l.load_number, l.pickup_date, l.origin_city, l.origin_state, l.destination_city,
             l.destination_state, l.equipment_type
      FROM loads l, ld
      WHERE l.organization_id = ${organizationId} AND l.id <> ld.id AND ${workableSql(l)}
        AND l.origin_state IS NOT DISTINCT FROM ld.origin_state
        AND lower(l.origin_city) IS NOT DISTINCT FROM lower(ld.origin_city)
        AND l.destination_state IS NOT DISTINCT FROM ld.destination_state
        AND lower(l.destination_city) IS NOT DISTINCT FROM lower(ld.destination_city)
        AND l.equipment_type = ld.equipment_type
      ORDER BY l.pickup_date NULLS LAST, l.id
      LIMIT 100
    ),
    offered AS (
      SELECT c.id AS carrier_id, lane.id, lane.load_number, lane.pickup_date,
             row_number() OVER (PARTITION BY c.id ORDER BY lane.pickup_date NULLS LAST, lane.id) AS n
      FROM carriers c CROSS JOIN lane
      WHERE c.organization_id = ${organizationId} AND c.id = ANY(${sql.param([...carrierIds])}::text[])
        AND ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('lane') })} IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM outreaches o
          WHERE o.load_id = lane.id AND o.carrier_id = c.id AND o.direction = 'outbound'
            AND o.cancelled_at IS NULL
            AND o.created_at > now() - make_interval(hours => ${recontactWindowHours}))
    )
    SELECT carrier_id, id, load_number FROM offered WHERE n < ${MOST_LOADS_PER_MESSAGE}
    ORDER BY carrier_id, n`);
  for (const r of rows.rows) {
    const list = out.get(r.carrier_id) ?? [];
    list.push({ id: r.id, load_number: r.load_number });
    out.set(r.carrier_id, list);
  }
  return out;
}

/**
 * The contact that offers the carrier several loads at once. A carrier planned for a call with other
 * loads of the lane to offer is written to by e-mail instead, when the organization's order has
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
 * loads of the lane the carrier may be offered (`swept`), in the same message (group_lane_loads):
 * one conversation offers the carrier every load of its lane instead of one contact per load.
 */
export async function withLaneLoads(
  tx: DbOrTx,
  load: AgentLoad,
  settings: AgentSettings,
  picked: Pick,
): Promise<{ planned: Queued[]; swept: Queued[] }> {
  const all = [...picked.wave, ...picked.later];
  const lane = settings.group_lane_loads
    ? await laneLoadsFor(
        tx,
        load.organization_id,
        load.id,
        all.filter((c) => c.plan.kind === 'contact').map((c) => c.carrier_id),
        settings.recontact_window_hours,
      )
    : new Map<string, LaneLoad[]>();
  const planned: Queued[] = [];
  const swept: Queued[] = [];
  for (const c of all) {
    const others = lane.get(c.carrier_id) ?? [];
    const several =
      others.length && c.plan.kind === 'contact'
        ? severalLoadsContact(c, c.plan, settings.channel_order)
        : null;
    const primary = plannedContact(several ? { ...c, plan: several } : c, load);
    planned.push(primary);
    if (!several) continue;
    const most = several.channel === 'call' ? MOST_LOADS_PER_CALL : MOST_LOADS_PER_MESSAGE;
    for (const other of others.slice(0, most - 1)) {
      swept.push({
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
