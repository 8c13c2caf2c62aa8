import type { DbOrTx } from '../../db/client.js';
import type { LoadLane } from '../../domain/load-lane.js';
import {
  type CandidateRow,
  type CheckedRow,
  type ContactWindow,
  checkInOrder as checkedRows,
  type MostLoads,
  type RankedCandidate,
} from '../read-side/index.js';
import {
  type ContactRules,
  MOST_LOADS_PER_CALL,
  MOST_LOADS_PER_MESSAGE,
  type OpenBundle,
} from './contact-plan.js';

export { loadLane } from '../loads/index.js';
export { rankCandidates, URGENT_PICKUP_HOURS } from '../read-side/index.js';
export type { ContactWindow, LoadLane, RankedCandidate };

export interface SelectionRules {
  waveSize: number;
  /** The re-contact window, and the follow-up a carrier that did not answer gets on an urgent load. */
  contactWindow: ContactWindow;
  dailyCapPerCarrier: number;
  /** How a carrier is reached (channels, quiet hours, gap, grouping); none: any channel, at once. */
  contact?: ContactRules;
  /**
   * Whether carriers in quiet hours may be queued for when their hours begin (false while the load
   * already has contacts queued for later: one waiting wave at a time).
   */
  allowLater?: boolean;
  /** Carriers never picked for this load (found unreachable on every channel before). */
  exclude?: ReadonlySet<string>;
  /**
   * Whether a wave may take carriers of more than one tier (a load picked up soon: a wave of the
   * best tier's last one or two carriers would leave it a wave wait short of the next tier).
   */
  acrossTiers?: boolean;
  /**
   * For a load picked up soon: its next planning (`after`) and its pickup. A carrier reachable now
   * that cannot be reached between the two (its quiet hours begin before the next planning and
   * last past the pickup, or the pickup comes first) hears of the load now or never: it joins the
   * wave beyond `waveSize`.
   */
  lastChance?: { after: Date; pickup: Date };
}

export type Candidate = CandidateRow<OpenBundle>;

/** Loads with the same key have the same ranked candidates: a round ranks each lane once. */
export const laneKey = (l: LoadLane) =>
  [
    l.origin_state,
    l.origin_city?.toLowerCase(),
    l.destination_state,
    l.destination_city?.toLowerCase(),
    l.equipment_type,
  ].join('|');

/** A carrier a pick considered and left out, and why (a guard refusal, the cap, a recent contact). */
export type Skipped = {
  carrier_id: string;
  tier: number | null;
  reason: string;
  /** Refused on the lane by an earlier pick, and not checked again for this load. */
  known?: true;
};

export type Checked = CheckedRow<OpenBundle>;

/** Where a pick records carriers refused lane-wide, and why; the caller decides for how long. */
export interface RefusedCarriers {
  /** Why the carrier is known to be refused on the lane, or null. */
  reasonOf(carrierId: string): string | null;
  /** `until`: when a capped carrier's cap may free (ms), if known. */
  add(carrierId: string, why: 'guard' | 'cap', reason: string, until?: number): unknown;
  /** When a carrier known to be at its cap frees (ms), if known. */
  capFreesAt?(carrierId: string): number | undefined;
}

/** Refusals remembered for one pick only (a load planned on its own). */
export class RefusalMemo implements RefusedCarriers {
  private readonly reasons = new Map<string, string>();
  reasonOf(id: string) {
    return this.reasons.get(id) ?? null;
  }
  add(id: string, _why: 'guard' | 'cap', reason: string) {
    this.reasons.set(id, reason);
  }
}

/**
 * Carriers a pick found refused on a lane. A guard refusal is remembered for `ttlMs`. A carrier at
 * its daily cap stays there until its oldest counted contact leaves the 24 hours (`until`), so it
 * is remembered until then, but never longer than twenty times `ttlMs`: a higher cap set meanwhile,
 * or a contact withdrawn, frees it sooner and is seen within that time. Remembered for the fixed
 * time alone, a carrier stayed hidden after its cap had freed, for the rest of that time.
 */
export class ExpiringSet implements RefusedCarriers {
  private readonly until = new Map<string, { at: number; reason: string; frees?: number }>();
  constructor(
    private readonly ttlMs: number,
    /** The product clock's time, in milliseconds. */
    private readonly nowMs: () => number,
  ) {}
  reasonOf(id: string) {
    const t = this.until.get(id);
    if (t === undefined) return null;
    if (t.at > this.nowMs()) return t.reason;
    this.until.delete(id);
    return null;
  }
  add(id: string, why: 'guard' | 'cap', reason: string, until?: number) {
    const at = this.nowMs() + (why === 'cap' ? 20 : 1) * this.ttlMs;
    const frees = why === 'cap' ? until : undefined;
    this.until.set(id, { at: frees !== undefined ? Math.min(at, frees) : at, reason, frees });
  }
  capFreesAt(id: string) {
    return this.until.get(id)?.frees;
  }
}

/** Most loads one contact offers: what a queued message may still take. */
export const MOST_LOADS: MostLoads = { call: MOST_LOADS_PER_CALL, message: MOST_LOADS_PER_MESSAGE };

/** Every carrier of the slice, in order, with the outcome of the checks (details only for the kept). */
export function checkInOrder(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  slice: readonly RankedCandidate[],
  rules: SelectionRules,
): Promise<Checked[]> {
  return checkedRows<OpenBundle>(db, organizationId, loadId, slice, rules, MOST_LOADS);
}
