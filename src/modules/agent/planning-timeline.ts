// What the planner writes of a wave on the load's timeline: why each carrier was chosen, and the
// carriers it skipped.

import type { NewOutreach } from '../outreaches/index.js';
import type { ActivityEntry } from './agent-repository.js';
import type { Candidate, Skipped } from './carrier-selection.js';

/** Carriers checked and skipped recorded one by one per wave at most; the rest are counted. */
const SKIPS_RECORDED = 20;

/**
 * A wave's skipped carriers as timeline entries: each carrier checked for this load, with its
 * reason (at most SKIPS_RECORDED); carriers an earlier pick found refused on the lane, and any
 * beyond the limit, in one entry counting them by reason (a busy lane's capped carriers would
 * otherwise write dozens of rows per load).
 */
export function skipEntries(
  skipped: Skipped[],
  wave: number,
): Omit<ActivityEntry, 'organization_id' | 'load_id'>[] {
  // Carriers unreachable on every channel are always recorded one by one: the entry is what keeps
  // them from being picked for the load again.
  const isUnreachable = (k: Skipped) => k.reason.startsWith('unreachable');
  const unreachable = skipped.filter((k) => !k.known && isUnreachable(k));
  const checked = skipped.filter((k) => !k.known && !isUnreachable(k));
  const rows: Omit<ActivityEntry, 'organization_id' | 'load_id'>[] = [
    ...unreachable,
    ...checked.slice(0, SKIPS_RECORDED),
  ].map((k) => ({
    kind: 'carrier_skipped',
    wave,
    carrier_id: k.carrier_id,
    tier: k.tier,
    reason: k.reason,
  }));
  const rest = [...skipped.filter((k) => k.known), ...checked.slice(SKIPS_RECORDED)];
  if (rest.length > 0) {
    const byReason = new Map<string, number>();
    for (const k of rest) byReason.set(k.reason, (byReason.get(k.reason) ?? 0) + 1);
    const counts = [...byReason].map(([reason, n]) => `${reason} x${n}`).join(', ');
    rows.push({
      kind: 'carrier_skipped',
      wave,
      carrier_id: null,
      tier: null,
      reason: `${rest.length} more carriers refused on this lane: ${counts}`,
    });
  }
  return rows;
}

/** Why a carrier was chosen, as the timeline says it: where it came from, its tier, quiet hours. */
export function chosenBecause(c: Candidate, heldUntil: Date | null): string {
  const from = c.source === 'lane_preference' ? 'lane preference' : 'offered on this lane before';
  const tier = c.tier === null ? 'untiered' : `tier ${c.tier}`;
  const held = heldUntil ? `; queued until quiet hours end at ${heldUntil.toISOString()}` : '';
  return `${from}, ${tier}${held}`;
}

/** Timeline entries of the loads offered in the same message as `loadNumber`, one per outreach. */
export function offeredWith(
  swept: { row: NewOutreach; sameLane: boolean }[],
  loadNumber: string | null,
): ActivityEntry[] {
  return swept.map(({ row, sameLane }) => ({
    organization_id: row.organization_id,
    load_id: row.load_id,
    kind: 'carrier_chosen',
    carrier_id: row.carrier_id,
    channel: row.modality,
    outreach_id: row.id,
    reason: `offered with load ${loadNumber} ${sameLane ? 'of the same lane' : 'of another of the carrier’s lanes'}, in one message`,
  }));
}
