import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { executeNamed } from '../../db/prepared.js';
import { refusalSql } from '../outreaches/index.js';
import {
  type ContactRules,
  MOST_LOADS_PER_CALL,
  MOST_LOADS_PER_MESSAGE,
  type OpenBundle,
} from './contact-plan.js';

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

export type Candidate = {
  carrier_id: string;
  name: string;
  /** Effective routing-guide tier on the load's lane (lane tier, else the carrier's); null: untiered. */
  tier: number | null;
  on_time_pct: number | null;
  /** Where the carrier came from: a lane preference, or offers on the lane before. */
  source: 'lane_preference' | 'lane_history';
  home_state: string | null;
  phone: string | null;
  email: string | null;
  preferred_channel: string | null;
  last_contact_at: Date | string | null;
  /** Automated contacts in the last 24 hours (a message naming several loads counts once). */
  contacts_24h?: number | null;
  open_bundle: OpenBundle | null;
};

/** What selection reads of a load: its lane (first pickup, last drop-off) and equipment. */
export type LoadLane = {
  id: string;
  origin_city: string | null;
  origin_state: string | null;
  destination_city: string | null;
  destination_state: string | null;
  equipment_type: string;
};

/** A candidate in wave order, with only the facts ranking needs. */
export type RankedCandidate = {
  id: string;
  tier: number | null;
  on_time_pct: number | null;
  source: Candidate['source'];
  /** The carrier's state: its quiet hours are known before its checks run. */
  home_state: string | null;
};

/** Loads with the same key have the same ranked candidates: a round ranks each lane once. */
export const laneKey = (l: LoadLane) =>
  [
    l.origin_state,
    l.origin_city?.toLowerCase(),
    l.destination_state,
    l.destination_city?.toLowerCase(),
    l.equipment_type,
  ].join('|');

/** Contact types that speak for the carrier about booking a load, best first; drivers are not asked. */
const BOOKING_CONTACT_TYPES = sql.raw(`ARRAY['DISPATCHER','QUOTING','TENDERING','CARRIER','OTHER']`);

/**
 * Every candidate for a lane, in wave order. Candidates: carriers with an active primary lane
 * preference on a lane matching the load's first pickup and last drop (city and equipment when the
 * lane names them), then carriers that offered on loads between the same states. Only the cheap
 * facts are read here (tier, on-time performance, equipment): ranked by effective tier (untiered
 * last), then on-time performance, then id. `pickWave` applies the costly per-load checks.
 */
export async function rankCandidates(
  db: DbOrTx,
  organizationId: string,
  load: LoadLane,
): Promise<RankedCandidate[]> {
  const result = await db.execute<RankedCandidate>(sql`
    WITH on_lane AS (
      SELECT lp.carrier_id, min(lp.routing_guide_tier) AS lane_tier
      FROM lanes l
      JOIN lane_preferences lp ON lp.organization_id = l.organization_id AND lp.lane_id = l.id
        AND lp.is_active AND NOT lp.dnu AND lp.preference_type = 'primary'
      WHERE l.organization_id = ${organizationId}
        AND l.origin_state = ${load.origin_state} AND l.destination_state = ${load.destination_state}
        AND (l.origin_city IS NULL OR lower(l.origin_city) = lower(${load.origin_city}))
        AND (l.destination_city IS NULL OR lower(l.destination_city) = lower(${load.destination_city}))
        AND (l.equipment_type IS NULL OR l.equipment_type = ${load.equipment_type})
      GROUP BY lp.carrier_id
    ),
    from_history AS (
      SELECT DISTINCT o.carrier_id
      FROM loads h
      JOIN offers o ON o.load_id = h.id AND o.carrier_id IS NOT NULL
      WHERE h.organization_id = ${organizationId}
        AND h.origin_state = ${load.origin_state} AND h.destination_state = ${load.destination_state}
    ),
    candidates AS (
      SELECT carrier_id, lane_tier, 'lane_preference' AS source FROM on_lane
      UNION ALL
      SELECT carrier_id, NULL, 'lane_history' FROM from_history
      WHERE carrier_id NOT IN (SELECT carrier_id FROM on_lane)
    )
    SELECT k.carrier_id AS id, coalesce(k.lane_tier, c.routing_guide_tier) AS tier,
           CASE WHEN c.on_time_pickup_pct IS NULL THEN c.on_time_delivery_pct
                WHEN c.on_time_delivery_pct IS NULL THEN c.on_time_pickup_pct
                ELSE (c.on_time_pickup_pct + c.on_time_delivery_pct) / 2 END AS on_time_pct,
           k.source, c.home_state
    FROM candidates k
    -- One narrow lookup per candidate (a hash over every carrier would read them all).
    CROSS JOIN LATERAL (
      SELECT c.routing_guide_tier, c.on_time_pickup_pct, c.on_time_delivery_pct, c.equipment_types,
             c.home_state
      FROM carriers c WHERE c.id = k.carrier_id AND c.organization_id = ${organizationId}
      OFFSET 0) c
    WHERE c.equipment_types IS NULL OR cardinality(c.equipment_types) = 0
      OR ${load.equipment_type} = ANY(c.equipment_types)
    ORDER BY 2 NULLS LAST, 3 DESC NULLS LAST, 1`);
  return result.rows;
}

/** A carrier a pick considered and left out, and why (a guard refusal, the cap, a recent contact). */
export type Skipped = {
  carrier_id: string;
  tier: number | null;
  reason: string;
  /** Refused on the lane by an earlier pick, and not checked again for this load. */
  known?: true;
};

export type Checked = Candidate & {
  refusal: string | null;
  cap_ok: boolean;
  load_ok: boolean;
  /** When the oldest contact the cap counts leaves the 24 hours: the cap frees no earlier. */
  cap_frees_at: string | null;
};

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

/**
 * The re-contact window (hours), and after how many minutes a carrier that did not answer its
 * contact about a load picked up within URGENT_PICKUP_HOURS hears of it once more (0: never).
 */
export type ContactWindow = { hours: number; followUpMinutes: number };

/** Within this many hours of its pickup a load is urgent (planning-rules.ts says what that changes). */
export const URGENT_PICKUP_HOURS = 12;

/**
 * Whether the carrier was contacted (outbound, any channel, not withdrawn) about the load within
 * the re-contact window: the rule that keeps a carrier from hearing of one load twice in a day. One
 * exception: on a load picked up within URGENT_PICKUP_HOURS, a carrier whose one contact about it
 * went out `followUpMinutes` ago or more and was never answered (no reply, no pick-up) may hear of it
 * once more, as a broker follows up before the truck must roll. A failed placement (a dead number, a
 * bounced e-mail) is not followed up: the next channel is tried at once instead.
 */
export const offeredWithinSql = (carrier: SQL, loadId: SQL, w: ContactWindow) => sql`(EXISTS (
  SELECT 1 FROM outreaches o
  WHERE o.load_id = ${loadId} AND o.carrier_id = ${carrier} AND o.direction = 'outbound'
    AND o.cancelled_at IS NULL AND o.created_at > envoy_now() - make_interval(hours => ${w.hours}))
  AND NOT (${w.followUpMinutes}::int > 0
    AND EXISTS (SELECT 1 FROM loads fl WHERE fl.id = ${loadId} AND fl.pickup_date > envoy_now()
                  AND fl.pickup_date < envoy_now() + make_interval(hours => ${URGENT_PICKUP_HOURS}))
    AND (SELECT count(*) = 1 AND bool_and(NOT coalesce(o.carrier_engaged, false)
                  AND o.status IN ('active', 'no_response')
                  AND o.sent_at <= envoy_now() - make_interval(mins => ${w.followUpMinutes}::int))
         FROM outreaches o
         WHERE o.load_id = ${loadId} AND o.carrier_id = ${carrier} AND o.direction = 'outbound'
           AND o.cancelled_at IS NULL AND o.created_at > envoy_now() - make_interval(hours => ${w.hours}))))`;

/**
 * The carrier's automated contacts (any load) as the planner counts them: `n`, contacts in the
 * last 24 hours for the daily cap (a message naming several loads counts once); `last_at`, when the
 * latest went out or is queued to go (for the least gap between contacts): a queued contact whose
 * time has come goes out now at the soonest, however late the dispatcher takes it. A contact that failed
 * after it went out (a call that did not connect, a bounce) holds the gap too: the carrier's phone
 * may have rung, and a number dialled again and again within minutes is one carriers block.
 * Withdrawn contacts never went out and count for neither.
 */
export const contactCountsSql = (organizationId: string | SQL, carrier: SQL) => sql`
  SELECT count(DISTINCT coalesce(o.bundle_id, o.id))
           FILTER (WHERE o.created_at > envoy_now() - interval '24 hours')::int AS n,
         min(o.created_at) FILTER (WHERE o.created_at > envoy_now() - interval '24 hours')
           + interval '24 hours' AS cap_frees_at,
         max(CASE WHEN o.sent_at IS NULL AND o.status = 'pending'
                  THEN greatest(o.send_after, envoy_now())
                  ELSE coalesce(o.sent_at, o.send_after, o.created_at) END) AS last_at
  FROM outreaches o
  WHERE o.organization_id = ${organizationId} AND o.carrier_id = ${carrier} AND o.is_automated
    AND o.cancelled_at IS NULL AND o.created_at > envoy_now() - interval '48 hours'`;

/**
 * The carrier's queued automated contact (not sent yet) about another load, of any lane, with room
 * for one more load (fewer than MOST_LOADS_PER_CALL on a call, MOST_LOADS_PER_MESSAGE in writing),
 * as JSON, or null: a load due now for the carrier can join it (the message or call names each load
 * with its lane). Only a bundle whose first outreach is still queued: one the dispatcher has taken
 * is on its way.
 */
export const openBundleSql = (organizationId: string | SQL, carrier: SQL, loadId: SQL) => sql`
  SELECT json_build_object('bundle_id', o.id, 'modality', o.modality,
           'address', o.address, 'conversation_id', o.conversation_id, 'send_after', o.send_after)
  FROM outreaches o
  WHERE o.organization_id = ${organizationId} AND o.carrier_id = ${carrier} AND o.is_automated
    AND o.bundle_id IS NULL AND o.status = 'pending' AND o.cancelled_at IS NULL AND o.load_id <> ${loadId}
    AND (SELECT count(*) FROM outreaches b WHERE b.bundle_id = o.id AND b.cancelled_at IS NULL)
        < CASE WHEN o.modality = 'call' THEN ${sql.raw(String(MOST_LOADS_PER_CALL - 1))}
          ELSE ${sql.raw(String(MOST_LOADS_PER_MESSAGE - 1))} END
  ORDER BY o.send_after LIMIT 1`;

/** Every carrier of the slice, in order, with the outcome of the checks (details only for the kept). */
export async function checkInOrder(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  slice: readonly RankedCandidate[],
  rules: SelectionRules,
): Promise<Checked[]> {
  // Thousands of picks a minute with the same text: planned once per connection.
  return executeNamed<Checked>(
    db,
    'agent_pick_wave_v12',
    sql`
    WITH r AS (
      SELECT * FROM unnest(
        ${sql.param(slice.map((c) => c.id))}::text[],
        ${sql.param(slice.map((c) => c.tier))}::int[],
        ${sql.param(slice.map((c) => c.on_time_pct))}::float8[],
        ${sql.param(slice.map((c) => c.source))}::text[]
      ) WITH ORDINALITY AS r(id, tier, on_time_pct, source, ord)
    ),
    checked AS (
      SELECT r.ord, r.id, r.tier, r.on_time_pct, r.source, c.name, c.home_state,
             ld.id AS load_id, ld.origin_city, ld.origin_state, ld.destination_city, ld.destination_state,
             ld.equipment_type,
             c.phone, c.email, c.dispatcher_phone, c.dispatcher_email, c.preferred_channel,
             ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('ld') })} AS refusal,
             n.n < ${rules.dailyCapPerCarrier} AS cap_ok, n.n AS contacts_24h, n.last_at AS last_contact_at,
             n.cap_frees_at,
             NOT ${offeredWithinSql(sql`c.id`, sql`ld.id`, rules.contactWindow)} AS load_ok
      FROM r
      CROSS JOIN (SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
                  FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}) ld
      CROSS JOIN LATERAL (SELECT * FROM carriers c WHERE c.id = r.id AND c.organization_id = ${organizationId}
                          OFFSET 0) c
      CROSS JOIN LATERAL (${contactCountsSql(organizationId, sql`c.id`)}) n
    )
    SELECT k.id AS carrier_id, k.name, k.tier, k.on_time_pct, k.source, k.home_state,
           k.refusal, k.cap_ok, k.load_ok, k.preferred_channel, k.last_contact_at, k.contacts_24h,
           k.cap_frees_at,
           CASE WHEN k.refusal IS NULL THEN (
             ${openBundleSql(organizationId, sql`k.id`, sql`k.load_id`)}) END AS open_bundle,
           CASE WHEN k.refusal IS NULL THEN coalesce(k.dispatcher_phone, k.phone, (
             SELECT cc.phone FROM carrier_contacts cc
             WHERE cc.carrier_id = k.id AND cc.phone IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) END AS phone,
           CASE WHEN k.refusal IS NULL THEN coalesce(k.dispatcher_email, k.email, (
             SELECT cc.email FROM carrier_contacts cc
             WHERE cc.carrier_id = k.id AND cc.email IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) END AS email
    FROM checked k
    ORDER BY k.ord`,
  );
}

export async function loadLane(db: DbOrTx, organizationId: string, loadId: string): Promise<LoadLane | null> {
  const result = await db.execute<LoadLane>(sql`
    SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
    FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}`);
  return result.rows[0] ?? null;
}
