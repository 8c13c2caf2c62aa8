// The agent's candidates for a load: the carriers of its lane ranked by the cheap facts, then the
// per-load checks of a slice of them (the contact guard, the daily cap, the re-contact window, a
// queued message to join, the address to reach each by).

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { executeNamed } from '../../db/prepared.js';
import type { LoadLane } from '../../domain/load-lane.js';
import {
  type ContactWindow,
  contactCountsSql,
  type MostLoads,
  offeredWithinSql,
  openBundleSql,
} from './contact-history.js';
import { refusalSql } from './contact-refusal.js';

/** A candidate in wave order, with only the facts ranking needs. */
export type RankedCandidate = {
  id: string;
  tier: number | null;
  on_time_pct: number | null;
  source: CandidateRow<unknown>['source'];
  /** The carrier's state: its quiet hours are known before its checks run. */
  home_state: string | null;
};

/** `Bundle`: the shape the caller gives the queued message's JSON (see openBundleSql). */
export type CandidateRow<Bundle> = {
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
  open_bundle: Bundle | null;
};

export type CheckedRow<Bundle> = CandidateRow<Bundle> & {
  refusal: string | null;
  cap_ok: boolean;
  load_ok: boolean;
  /** When the oldest contact the cap counts leaves the 24 hours: the cap frees no earlier. */
  cap_frees_at: string | null;
};

/** Contact types that speak for the carrier about booking a load, best first; drivers are not asked. */
const BOOKING_CONTACT_TYPES = sql.raw(`ARRAY['DISPATCHER','QUOTING','TENDERING','CARRIER','OTHER']`);

/**
 * Every candidate for a lane, in wave order. Candidates: carriers with an active primary lane
 * preference on a lane matching the load's first pickup and last drop (city and equipment when the
 * lane names them), then carriers that offered on loads between the same states. Only the cheap
 * facts are read here (tier, on-time performance, equipment): ranked by effective tier (untiered
 * last), then on-time performance, then id. The agent's `pickWave` applies the costly per-load checks.
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

/** What the checks hold a carrier to: its daily cap and the re-contact window. */
export type CheckLimits = { dailyCapPerCarrier: number; contactWindow: ContactWindow };

/** Every carrier of the slice, in order, with the outcome of the checks (details only for the kept). */
export async function checkInOrder<Bundle>(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  slice: readonly RankedCandidate[],
  limits: CheckLimits,
  most: MostLoads,
): Promise<CheckedRow<Bundle>[]> {
  // Thousands of picks a minute with the same text: planned once per connection.
  return executeNamed<CheckedRow<Bundle>>(
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
             n.n < ${limits.dailyCapPerCarrier} AS cap_ok, n.n AS contacts_24h, n.last_at AS last_contact_at,
             n.cap_frees_at,
             NOT ${offeredWithinSql(sql`c.id`, sql`ld.id`, limits.contactWindow)} AS load_ok
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
             ${openBundleSql(organizationId, sql`k.id`, sql`k.load_id`, most)}) END AS open_bundle,
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
