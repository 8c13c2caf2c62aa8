// One conversation per carrier, several loads in it: when the planner contacts a carrier about a
// load, the other open loads the carrier may be offered (of the same lane and of its other lanes)
// go in the same message or call.

import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { type LaneLoad, laneLoadRows } from '../read-side/index.js';
import type { AgentLoad } from './agent-repository.js';
import { type AgentSettings, contactWindowOf } from './agent-settings.js';
import type { ContactWindow } from './carrier-selection.js';
import { type Channel, type ContactPlan, MOST_LOADS_PER_MESSAGE, mostLoadsOn } from './contact-plan.js';
import { plannedContact, type Queued } from './planning-rules.js';
import type { Pick } from './wave-pick.js';

export type { LaneLoad };

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
  const rows = await laneLoadRows(tx, organizationId, loadId, carrierIds, window, MOST_LOADS_PER_MESSAGE);
  for (const r of rows) {
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
