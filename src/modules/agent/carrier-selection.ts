import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { executeNamed } from '../../db/prepared.js';
import { refusalSql } from '../outreaches/index.js';

export interface SelectionRules {
  waveSize: number;
  recontactWindowHours: number;
  dailyCapPerCarrier: number;
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
           k.source
    FROM candidates k
    -- One narrow lookup per candidate (a hash over every carrier would read them all).
    CROSS JOIN LATERAL (
      SELECT c.routing_guide_tier, c.on_time_pickup_pct, c.on_time_delivery_pct, c.equipment_types
      FROM carriers c WHERE c.id = k.carrier_id AND c.organization_id = ${organizationId}
      OFFSET 0) c
    WHERE c.equipment_types IS NULL OR cardinality(c.equipment_types) = 0
      OR ${load.equipment_type} = ANY(c.equipment_types)
    ORDER BY 2 NULLS LAST, 3 DESC NULLS LAST, 1`);
  return result.rows;
}

/**
 * The next wave for one load from its lane's ranked candidates: in rank order, the carriers the
 * contact guard allows, not contacted (outbound) about this load within the re-contact window, with
 * fewer automated contacts than the daily cap in the last 24 hours. The wave is the first
 * `waveSize` such carriers of the best tier that has one, so a tier is worked before the next.
 *
 * The checks run on a short slice of the ranking at a time. Carriers refused for reasons that hold
 * for every load of the lane (the guard, the cap) are added to `refused`, which the caller keeps
 * with the ranking, so the next load's pick skips them instead of checking them again: as the
 * busiest carriers reach their cap, picks stay one short statement.
 */
export async function pickWave(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  ranked: readonly RankedCandidate[],
  rules: SelectionRules,
  refused: RefusedCarriers = new RefusalMemo(),
  skipped: Skipped[] = [],
): Promise<Candidate[]> {
  const wave: Candidate[] = [];
  const open: RankedCandidate[] = [];
  for (const c of ranked) {
    const known = refused.reasonOf(c.id);
    if (known) skipped.push({ carrier_id: c.id, tier: c.tier, reason: known, known: true });
    else open.push(c);
  }
  let size = Math.max(2 * rules.waveSize, 10);
  for (let offset = 0; offset < open.length && wave.length < rules.waveSize; offset += size, size *= 2) {
    const slice = open.slice(offset, offset + size);
    // Ranked by tier first: once the wave has a tier, a slice starting with another cannot add to it.
    if (wave.length && slice[0]!.tier !== wave[0]!.tier) break;
    for (const c of await checkInOrder(db, organizationId, loadId, slice, rules)) {
      const reason = c.refusal
        ? c.refusal.split(':')[0]!
        : !c.cap_ok
          ? 'daily_cap'
          : !c.load_ok
            ? 'recently_contacted'
            : null;
      if (c.refusal) refused.add(c.carrier_id, 'guard', reason!);
      else if (!c.cap_ok) refused.add(c.carrier_id, 'cap', reason!);
      if (reason) {
        skipped.push({ carrier_id: c.carrier_id, tier: c.tier, reason });
        continue;
      }
      if (wave.length && c.tier !== wave[0]!.tier) break;
      if (wave.length < rules.waveSize) wave.push(c);
    }
  }
  return wave;
}

/** A carrier a pick considered and left out, and why (a guard refusal, the cap, a recent contact). */
export type Skipped = {
  carrier_id: string;
  tier: number | null;
  reason: string;
  /** Refused on the lane by an earlier pick, and not checked again for this load. */
  known?: true;
};

type Checked = Candidate & { refusal: string | null; cap_ok: boolean; load_ok: boolean };

/** Where a pick records carriers refused lane-wide, and why; the caller decides for how long. */
export interface RefusedCarriers {
  /** Why the carrier is known to be refused on the lane, or null. */
  reasonOf(carrierId: string): string | null;
  add(carrierId: string, why: 'guard' | 'cap', reason: string): unknown;
}

/** Refusals remembered for one pick only (a load planned on its own). */
class RefusalMemo implements RefusedCarriers {
  private readonly reasons = new Map<string, string>();
  reasonOf(id: string) {
    return this.reasons.get(id) ?? null;
  }
  add(id: string, _why: 'guard' | 'cap', reason: string) {
    this.reasons.set(id, reason);
  }
}

/** Every carrier of the slice, in order, with the outcome of the checks (details only for the kept). */
async function checkInOrder(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  slice: readonly RankedCandidate[],
  rules: SelectionRules,
): Promise<Checked[]> {
  // Thousands of picks a minute with the same text: planned once per connection.
  return executeNamed<Checked>(
    db,
    'agent_pick_wave_v3',
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
             c.phone, c.email, c.dispatcher_phone, c.dispatcher_email,
             ${refusalSql(organizationId, { carrier: sql.identifier('c'), load: sql.identifier('ld') })} AS refusal,
             (SELECT count(*) FROM outreaches o
              WHERE o.organization_id = ${organizationId} AND o.carrier_id = c.id AND o.is_automated
                AND o.cancelled_at IS NULL AND o.created_at > now() - interval '24 hours'
             ) < ${rules.dailyCapPerCarrier} AS cap_ok,
             NOT EXISTS (
               SELECT 1 FROM outreaches o
               WHERE o.load_id = ld.id AND o.carrier_id = c.id AND o.direction = 'outbound'
                 AND o.cancelled_at IS NULL
                 AND o.created_at > now() - make_interval(hours => ${rules.recontactWindowHours})) AS load_ok
      FROM r
      CROSS JOIN (SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
                  FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}) ld
      CROSS JOIN LATERAL (SELECT * FROM carriers c WHERE c.id = r.id AND c.organization_id = ${organizationId}
                          OFFSET 0) c
    )
    SELECT k.id AS carrier_id, k.name, k.tier, k.on_time_pct, k.source, k.home_state,
           k.refusal, k.cap_ok, k.load_ok,
           CASE WHEN k.refusal IS NULL AND k.cap_ok AND k.load_ok THEN coalesce(k.dispatcher_phone, k.phone, (
             SELECT cc.phone FROM carrier_contacts cc
             WHERE cc.carrier_id = k.id AND cc.phone IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) END AS phone,
           CASE WHEN k.refusal IS NULL AND k.cap_ok AND k.load_ok THEN coalesce(k.dispatcher_email, k.email, (
             SELECT cc.email FROM carrier_contacts cc
             WHERE cc.carrier_id = k.id AND cc.email IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) END AS email
    FROM checked k
    ORDER BY k.ord`,
  );
}

/** One load's next wave on its own: rank its lane, then pick (a round shares rankings by lane). */
export async function selectWave(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  rules: SelectionRules,
  skipped: Skipped[] = [],
): Promise<{ wave: Candidate[]; candidates: number }> {
  const load = await loadLane(db, organizationId, loadId);
  if (!load) return { wave: [], candidates: 0 };
  const ranked = await rankCandidates(db, organizationId, load);
  const wave = await pickWave(db, organizationId, loadId, ranked, rules, undefined, skipped);
  return { wave, candidates: ranked.length };
}

export async function loadLane(db: DbOrTx, organizationId: string, loadId: string): Promise<LoadLane | null> {
  const result = await db.execute<LoadLane>(sql`
    SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
    FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}`);
  return result.rows[0] ?? null;
}
