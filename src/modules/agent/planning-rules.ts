// The planner's rules around a pick: the contact rules an organization's settings make, what the
// planner reads of the load before picking, the carriers' contact counts under their locks, the
// outreach each picked carrier gets, and when the load is planned next.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import { defined } from '../../lib/defined.js';
import { DEFAULT_TIME_ZONE, timeZoneOfState } from '../../lib/time-zones.js';
import type { NewOutreach } from '../outreaches/index.js';
import {
  type ContactState as ContactStateOf,
  contactStatesOf,
  planningFactsRow,
} from '../read-side/index.js';
import type { AgentLoad } from './agent-repository.js';
import type { AgentSettings } from './agent-settings.js';
import { type Candidate, type ContactWindow, MOST_LOADS, URGENT_PICKUP_HOURS } from './carrier-selection.js';
import type { ContactRules, OpenBundle } from './contact-plan.js';
import type { PickedCandidate } from './wave-pick.js';

export type Queued = { row: NewOutreach; candidate: Candidate };

export { URGENT_PICKUP_HOURS };

/** Whether the load picks up within URGENT_PICKUP_HOURS of `now` (or already should have). */
export const isUrgent = (load: Pick<AgentLoad, 'pickup_date'>, now: Date) =>
  !!load.pickup_date && load.pickup_date.getTime() - now.getTime() < URGENT_PICKUP_HOURS * 3_600_000;

/**
 * For a load picked up soon and not yet: when it is planned next if a wave goes out now, and its
 * pickup (see SelectionRules.lastChance); otherwise none.
 */
export function lastChanceOf(
  load: Pick<AgentLoad, 'pickup_date'>,
  now: Date,
  waitMs: number,
): { after: Date; pickup: Date } | undefined {
  const pickup = load.pickup_date;
  if (!pickup || pickup <= now || !isUrgent(load, now)) return undefined;
  return { after: new Date(now.getTime() + waitMs), pickup };
}

/**
 * The pace of one carrier's contacts when a contact offers the lane's open loads
 * (group_lane_loads): its hours in a day (outside quiet hours) shared among its daily contacts.
 * Without grouping, or with a cap of one, there is nothing to gather: no pace.
 */
export function paceMinutesOf(
  settings: Pick<
    AgentSettings,
    'group_lane_loads' | 'daily_cap_per_carrier' | 'quiet_hours_start' | 'quiet_hours_end'
  >,
): number {
  if (!settings.group_lane_loads || settings.daily_cap_per_carrier <= 1) return 0;
  const quiet = (settings.quiet_hours_end - settings.quiet_hours_start + 24) % 24;
  return Math.floor(((24 - quiet) * 60) / settings.daily_cap_per_carrier);
}

/** How the organization's settings say a carrier is reached about this load (at `now`). */
export const contactRulesOf = (
  settings: AgentSettings,
  load: Pick<AgentLoad, 'origin_state' | 'pickup_date'>,
  now: Date,
): ContactRules => ({
  channelOrder: settings.channel_order,
  quietStart: settings.quiet_hours_start,
  quietEnd: settings.quiet_hours_end,
  gapMinutes: settings.carrier_min_gap_minutes,
  paceMinutes: isUrgent(load, now) ? 0 : paceMinutesOf(settings),
  groupLaneLoads: settings.group_lane_loads,
  fallbackZone: timeZoneOfState(load.origin_state) ?? DEFAULT_TIME_ZONE,
});

export type PlanningFacts = {
  /** When the load's earliest queued automated contact goes out; null: none queued. */
  queuedFrom: Date | null;
  /** Carriers found unreachable on every channel for this load: never picked for it again. */
  unreachable: Set<string>;
};

/** What the planner reads of the load before it picks. */
export async function loadPlanningFacts(tx: DbOrTx, loadId: string): Promise<PlanningFacts> {
  const row = defined(await planningFactsRow(tx, loadId), 'planning facts');
  return {
    queuedFrom: row.queued_from ? new Date(row.queued_from) : null,
    unreachable: new Set(row.unreachable ?? []),
  };
}

export type ContactState = ContactStateOf<OpenBundle>;

/**
 * Takes the carriers' planning locks until the transaction ends, in one order (two transactions
 * locking overlapping carriers never wait on each other in a cycle); returns the ids in that order.
 */
export async function lockCarriers(tx: DbOrTx, ids: readonly string[]): Promise<string[]> {
  const sorted = [...new Set(ids)].sort();
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('agent-carrier:' || id))
    FROM unnest(${sql.param(sorted)}::text[]) AS id ORDER BY id`);
  return sorted;
}

/**
 * The carriers' automated contacts counted under a per-carrier lock held until the transaction
 * ends (the cap and the gap hold across loads planned at once, on any instance), with each one's
 * queued message about another load, if any, and whether it was offered this load meanwhile (a
 * load of another lane planned at the same time may have swept it into its message).
 */
export async function lockedContactStates(
  tx: DbOrTx,
  organizationId: string,
  loadId: string,
  ids: string[],
  window: ContactWindow,
) {
  const sorted = await lockCarriers(tx, ids);
  const rows = await contactStatesOf<OpenBundle>(tx, organizationId, loadId, sorted, window, MOST_LOADS);
  return new Map(rows.map((r) => [r.carrier_id, r]));
}

/** The outreach a picked carrier gets: a contact of its own, or a place in its queued message. */
export function plannedContact(c: PickedCandidate, load: AgentLoad): Queued {
  const base = {
    id: newId('outreach'),
    organization_id: load.organization_id,
    carrier_id: c.carrier_id,
    load_id: load.id,
    load_number: load.load_number,
    direction: 'outbound' as const,
    status: 'pending' as const,
    is_automated: true,
  };
  const { plan } = c;
  if (plan.kind === 'join') {
    return {
      candidate: c,
      row: {
        ...base,
        modality: plan.bundle.modality,
        address: plan.bundle.address,
        conversation_id: plan.bundle.conversation_id,
        bundle_id: plan.bundle.bundle_id,
        send_after: plan.sendAt,
      },
    };
  }
  return {
    candidate: c,
    row: {
      ...base,
      modality: plan.channel,
      address: plan.address,
      conversation_id: plan.channel === 'call' ? null : newId('conversation'),
      send_after: plan.sendAt,
    },
  };
}

/**
 * When the load is planned next. A wave that went out now: after the wave wait. Otherwise the
 * load waits for its queued contacts (the wave wait after the first goes out) unless a carrier
 * left out for quiet hours or the gap can be reached before them; with nothing queued, when the
 * first such carrier can be reached; with nobody at all, after the wave wait. `capFreesAt` (given
 * for a load picked up soon): a carrier left out at its daily cap is under it again then, and the
 * load is planned then if that comes first. A carrier freed a few minutes before the pickup was
 * otherwise reached only if a wave wait happened to end in those minutes.
 */
export function nextPlanning(
  now: Date,
  waitMs: number,
  firstSend: Date | null,
  queuedFrom: Date | null,
  opensAt: Date | null,
  capFreesAt: Date | null = null,
): Date {
  const t = now.getTime();
  // At least a minute ahead: a carrier whose hours begin now is planned in a coming round.
  const ahead = (d: Date) => Math.max(d.getTime(), t + 60_000);
  const next = (() => {
    if (firstSend && firstSend.getTime() <= t) return t + waitMs;
    const queued = [firstSend, queuedFrom].filter((d): d is Date => !!d && d.getTime() > t);
    const q = queued.length ? Math.min(...queued.map((d) => d.getTime())) : null;
    const open = opensAt ? ahead(opensAt) : null;
    if (q !== null) return open !== null && open < q ? open : q + waitMs;
    return open ?? t + waitMs;
  })();
  return new Date(capFreesAt ? Math.min(next, ahead(capFreesAt)) : next);
}
