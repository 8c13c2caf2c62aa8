import type { DbOrTx } from '../../db/client.js';
import { defined } from '../../lib/defined.js';
import {
  type Candidate,
  type Checked,
  checkInOrder,
  loadLane,
  type RankedCandidate,
  RefusalMemo,
  type RefusedCarriers,
  rankCandidates,
  type SelectionRules,
  type Skipped,
} from './carrier-selection.js';
import { type ContactPlan, type ContactRules, openTime, planContact } from './contact-plan.js';

/** A carrier picked for the load, and how it is contacted (a contact of its own, or joining one). */
export type PickedCandidate = Candidate & { plan: Extract<ContactPlan, { kind: 'contact' | 'join' }> };

export type Pick = {
  /** Carriers contacted now, or joining their queued message. */
  wave: PickedCandidate[];
  /** Carriers ranked ahead of the wave's last that are in quiet hours: queued for when those end. */
  later: PickedCandidate[];
  /** The earliest a carrier left out for quiet hours or the gap can be contacted; null: none. */
  opensAt: Date | null;
  /** Carriers with no address for any channel they may be reached on: never picked again for the load. */
  unreachable: string[];
  /** The earliest a carrier left out at its daily cap is under it again; null: none, or not known. */
  capFreesAt: Date | null;
};

/** Any channel, no quiet hours, no gap, no grouping: the rules of a bare pick (the bench's). */
const ANY_TIME: ContactRules = {
  channelOrder: ['call', 'email', 'whatsapp'],
  quietStart: 0,
  quietEnd: 0,
  gapMinutes: 0,
  paceMinutes: 0,
  groupLaneLoads: false,
  fallbackZone: 'America/Chicago',
};

const earlier = (a: Date | null, b: Date) => (a === null || b < a ? b : a);

/** Whether a carrier of `tier` is kept out of the wave `into`: a wave keeps to one tier unless acrossTiers. */
const closedTo = (into: readonly PickedCandidate[], tier: number | null, rules: SelectionRules) =>
  !rules.acrossTiers && into.length > 0 && tier !== defined(into[0], 'into[0]').tier;

/**
 * How a checked carrier stands for the load: its plan when it qualifies (a contact of its own, or
 * joining its queued one); null when skipped, recorded in `skipped` with the reason, and on the
 * pick (unreachable, the time a gap opens or a cap frees) and in `refused` where that holds for
 * every load of the lane.
 */
export function verdict(
  c: Checked,
  contact: ContactRules,
  now: Date,
  refused: RefusedCarriers,
  skipped: Skipped[],
  pick: Pick,
): PickedCandidate['plan'] | null {
  // At its cap a carrier may still join its queued contact (no new contact); refused: never a join.
  const plan = planContact(c, contact, now);
  const capped = !c.cap_ok && plan.kind !== 'join';
  const reason = c.refusal
    ? defined(c.refusal.split(':')[0], "c.refusal.split(':')[0]")
    : capped
      ? 'daily_cap'
      : !c.load_ok
        ? 'recently_contacted'
        : null;
  if (c.refusal) refused.add(c.carrier_id, 'guard', defined(reason, 'reason'));
  // Capped with nothing queued to join: so for every load of the lane until contacts age out.
  else if (!c.cap_ok && !c.open_bundle)
    refused.add(
      c.carrier_id,
      'cap',
      'daily_cap',
      c.cap_frees_at ? new Date(c.cap_frees_at).getTime() : undefined,
    );
  if (reason) {
    skipped.push({ carrier_id: c.carrier_id, tier: c.tier, reason });
    if (reason === 'daily_cap' && c.cap_frees_at)
      pick.capFreesAt = earlier(pick.capFreesAt, new Date(c.cap_frees_at));
    return null;
  }
  if (plan.kind === 'unreachable') {
    pick.unreachable.push(c.carrier_id);
    skipped.push({
      carrier_id: c.carrier_id,
      tier: c.tier,
      reason: `unreachable: no address for ${plan.channels.join(', ')}`,
    });
    return null;
  }
  if (plan.kind === 'gap') {
    pick.opensAt = earlier(pick.opensAt, plan.opensAt);
    skipped.push({
      carrier_id: c.carrier_id,
      tier: c.tier,
      reason: plan.paced ? 'carrier_pace' : 'carrier_gap',
    });
    return null;
  }
  return plan;
}

/**
 * The ranked carriers left to check: neither excluded for the load nor known refused on the lane.
 * Each known refusal is recorded as skipped, and a capped carrier's freeing time kept on the pick.
 */
function notKnownRefused(
  ranked: readonly RankedCandidate[],
  rules: SelectionRules,
  refused: RefusedCarriers,
  skipped: Skipped[],
  pick: Pick,
): RankedCandidate[] {
  const open: RankedCandidate[] = [];
  for (const c of ranked) {
    if (rules.exclude?.has(c.id)) continue;
    const known = refused.reasonOf(c.id);
    if (!known) {
      open.push(c);
      continue;
    }
    skipped.push({ carrier_id: c.id, tier: c.tier, reason: known, known: true });
    const frees = refused.capFreesAt?.(c.id);
    if (frees !== undefined) pick.capFreesAt = earlier(pick.capFreesAt, new Date(frees));
  }
  return open;
}

/**
 * The next wave for one load from its lane's ranked candidates. A carrier qualifies when the
 * contact guard allows it, it was not contacted (outbound) about this load within the re-contact
 * window, it has fewer automated contacts than the daily cap in the last 24 hours, it has an
 * address for a channel it may be reached on, and its last contact is older than the least gap
 * (or it joins its queued message about another load). The wave is the first `waveSize` such
 * carriers reachable NOW, of the best tier that has one (of the next tiers too with `acrossTiers`,
 * for a load picked up soon): a carrier in quiet hours never holds the
 * load while others are in their hours. Carriers in quiet hours ranked ahead of the wave's last
 * member (all of the best tier when nobody is reachable now) are queued for when their hours
 * begin, at most `waveSize`, only when `allowLater`. With `lastChance` (a load picked up soon),
 * every further qualified carrier reachable now that cannot be reached again before the pickup is
 * added to the wave, beyond `waveSize`.
 *
 * The checks run on a short slice of the ranking at a time. Carriers refused for reasons that hold
 * for every load of the lane (the guard, the cap) are added to `refused`, which the caller keeps
 * with the ranking, so the next load's pick skips them instead of checking them again.
 */
export async function pickWave(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  ranked: readonly RankedCandidate[],
  rules: SelectionRules,
  refused: RefusedCarriers = new RefusalMemo(),
  skipped: Skipped[] = [],
  now: Date,
): Promise<Pick> {
  const contact = rules.contact ?? ANY_TIME;
  const pick: Pick = { wave: [], later: [], opensAt: null, unreachable: [], capFreesAt: null };
  const open = notKnownRefused(ranked, rules, refused, skipped, pick);
  const position = new Map(open.map((c, i) => [c.id, i]));
  const quietUntil = new Map<string, Date>();
  for (const c of open) {
    const at = openTime(c.home_state, contact, now);
    if (at > now) quietUntil.set(c.id, at);
  }

  /** Carriers a walk decided: picked, or skipped with a reason. */
  const checked = new Set<string>();
  /** Checks `list` slice by slice, adding qualified carriers to `into` (one tier unless acrossTiers, at most `most`). */
  const walk = async (list: RankedCandidate[], into: PickedCandidate[], most = rules.waveSize) => {
    let size = Math.max(2 * rules.waveSize, 10);
    for (let offset = 0; offset < list.length && into.length < most; offset += size, size *= 2) {
      const slice = list.slice(offset, offset + size);
      // Ranked by tier first: once the wave has a tier, a slice starting with another cannot add to it.
      if (closedTo(into, defined(slice[0], 'slice[0]').tier, rules)) return;
      for (const c of await checkInOrder(db, organizationId, loadId, slice, rules)) {
        checked.add(c.carrier_id);
        const plan = verdict(c, contact, now, refused, skipped, pick);
        if (!plan) continue;
        if (closedTo(into, c.tier, rules)) return;
        // Qualified but past the wave's size: not decided, a later walk may still take it.
        if (into.length < most) into.push({ ...c, plan });
        else checked.delete(c.carrier_id);
      }
    }
  };

  await walk(
    open.filter((c) => !quietUntil.has(c.id)),
    pick.wave,
  );
  const last = pick.wave.length
    ? defined(
        position.get(defined(pick.wave.at(-1), 'pick.wave.at(-1)').carrier_id),
        'position.get(pick.wave.at(-1).carrier_id)',
      )
    : open.length;
  const waiting = open.filter(
    (c) => quietUntil.has(c.id) && defined(position.get(c.id), 'position.get(c.id)') < last,
  );
  if (rules.allowLater !== false) await walk(waiting, pick.later);
  const queued = new Set(pick.later.map((c) => c.carrier_id));
  for (const c of open) {
    const at = quietUntil.get(c.id);
    if (at && !queued.has(c.id)) pick.opensAt = earlier(pick.opensAt, at);
  }
  const chance = rules.lastChance;
  if (chance) {
    const nowOrNever = (c: RankedCandidate) =>
      !quietUntil.has(c.id) &&
      !checked.has(c.id) &&
      openTime(c.home_state, contact, chance.after) >= chance.pickup;
    await walk(open.filter(nowOrNever), pick.wave, Number.POSITIVE_INFINITY);
  }
  return pick;
}

/** One load's next wave on its own: rank its lane, then pick (a round shares rankings by lane). */
export async function selectWave(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  rules: SelectionRules,
  skipped: Skipped[] = [],
  now: Date,
): Promise<Pick & { candidates: number }> {
  const load = await loadLane(db, organizationId, loadId);
  if (!load) return { wave: [], later: [], opensAt: null, unreachable: [], capFreesAt: null, candidates: 0 };
  const ranked = await rankCandidates(db, organizationId, load);
  const pick = await pickWave(db, organizationId, loadId, ranked, rules, undefined, skipped, now);
  return { ...pick, candidates: ranked.length };
}
