import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { refusalSql } from '../outreaches/contact-guard.js';

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

/** Contact types that speak for the carrier about booking a load, best first; drivers are not asked. */
const BOOKING_CONTACT_TYPES = sql.raw(`ARRAY['DISPATCHER','QUOTING','TENDERING','CARRIER','OTHER']`);

/**
 * The next wave for one load, in one statement. Candidates: carriers with an active primary lane
 * preference on a lane matching the load's first pickup and last drop (city and equipment when the
 * lane names them), then carriers that offered on earlier loads between the same states. Kept:
 * equipment matches (or the carrier lists none), the contact guard allows contact, no outbound
 * contact about this load within the re-contact window, fewer automated contacts than the daily cap
 * in the last 24 hours. Ranked by effective tier (untiered last), then on-time performance; the
 * wave is the best-ranked tier's first `waveSize` carriers, so a tier is worked before the next.
 */
export async function selectWave(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  rules: SelectionRules,
): Promise<Candidate[]> {
  const result = await db.execute<Candidate>(sql`
    WITH ld AS (
      SELECT id, organization_id, origin_city, origin_state, destination_city, destination_state, equipment_type
      FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}
    ),
    on_lane AS (
      SELECT lp.carrier_id, min(lp.routing_guide_tier) AS lane_tier
      FROM ld
      JOIN lanes l ON l.organization_id = ld.organization_id
        AND l.origin_state = ld.origin_state AND l.destination_state = ld.destination_state
        AND (l.origin_city IS NULL OR lower(l.origin_city) = lower(ld.origin_city))
        AND (l.destination_city IS NULL OR lower(l.destination_city) = lower(ld.destination_city))
        AND (l.equipment_type IS NULL OR l.equipment_type = ld.equipment_type)
      JOIN lane_preferences lp ON lp.organization_id = ld.organization_id AND lp.lane_id = l.id
        AND lp.is_active AND NOT lp.dnu AND lp.preference_type = 'primary'
      GROUP BY lp.carrier_id
    ),
    from_history AS (
      SELECT DISTINCT o.carrier_id
      FROM ld
      JOIN loads h ON h.organization_id = ld.organization_id
        AND h.origin_state = ld.origin_state AND h.destination_state = ld.destination_state AND h.id <> ld.id
      JOIN offers o ON o.load_id = h.id AND o.carrier_id IS NOT NULL
    ),
    candidates AS (
      SELECT carrier_id, lane_tier, 'lane_preference' AS source FROM on_lane
      UNION ALL
      SELECT carrier_id, NULL, 'lane_history' FROM from_history
      WHERE carrier_id NOT IN (SELECT carrier_id FROM on_lane)
    ),
    ranked AS (
      -- Every candidate with the cheap facts (tier, on-time, equipment) in wave order, narrow rows
      -- from one carrier lookup each, so the costly checks below run lazily, best-ranked first,
      -- only until the wave is full.
      SELECT k.carrier_id AS id, coalesce(k.lane_tier, c.routing_guide_tier) AS tier,
             CASE WHEN c.on_time_pickup_pct IS NULL THEN c.on_time_delivery_pct
                  WHEN c.on_time_delivery_pct IS NULL THEN c.on_time_pickup_pct
                  ELSE (c.on_time_pickup_pct + c.on_time_delivery_pct) / 2 END AS on_time_pct,
             k.source, ld.id AS ld_id, ld.origin_city AS ld_origin_city, ld.origin_state AS ld_origin_state,
             ld.destination_city AS ld_destination_city, ld.destination_state AS ld_destination_state,
             ld.equipment_type AS ld_equipment_type
      FROM candidates k
      CROSS JOIN ld
      CROSS JOIN LATERAL (
        SELECT c.routing_guide_tier, c.on_time_pickup_pct, c.on_time_delivery_pct, c.equipment_types
        FROM carriers c WHERE c.id = k.carrier_id AND c.organization_id = ${organizationId}
        OFFSET 0) c
      WHERE (c.equipment_types IS NULL OR cardinality(c.equipment_types) = 0
             OR ld.equipment_type = ANY(c.equipment_types))
      ORDER BY 2 NULLS LAST, 3 DESC NULLS LAST, 1
    ),
    kept AS (
      -- The first waveSize candidates in that order that may be contacted. The best-ranked kept
      -- carrier has the best kept tier, and within a tier the order is on-time first: the wave is
      -- those of the kept rows that share the first one's tier.
      SELECT r.id, c.name, r.tier, r.on_time_pct, r.source, c.home_state, c.phone, c.email,
             c.dispatcher_phone, c.dispatcher_email
      FROM ranked r
      CROSS JOIN LATERAL (SELECT * FROM carriers c WHERE c.id = r.id OFFSET 0) c
      CROSS JOIN LATERAL (SELECT r.ld_id AS id, r.ld_origin_city AS origin_city,
                                 r.ld_origin_state AS origin_state, r.ld_destination_city AS destination_city,
                                 r.ld_destination_state AS destination_state,
                                 r.ld_equipment_type AS equipment_type) ld
      WHERE ${refusalSql(organizationId)} IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM outreaches o
          WHERE o.load_id = r.ld_id AND o.carrier_id = r.id AND o.direction = 'outbound'
            AND o.cancelled_at IS NULL
            AND o.created_at > now() - make_interval(hours => ${rules.recontactWindowHours}))
        AND (
          SELECT count(*) FROM outreaches o
          WHERE o.organization_id = ${organizationId} AND o.carrier_id = r.id AND o.is_automated
            AND o.cancelled_at IS NULL AND o.created_at > now() - interval '24 hours'
        ) < ${rules.dailyCapPerCarrier}
      ORDER BY r.tier NULLS LAST, r.on_time_pct DESC NULLS LAST, r.id
      LIMIT ${rules.waveSize}
    )
    SELECT c.id AS carrier_id, c.name, c.tier, c.on_time_pct, c.source, c.home_state,
           coalesce(c.dispatcher_phone, c.phone, (
             SELECT cc.phone FROM carrier_contacts cc
             WHERE cc.carrier_id = c.id AND cc.phone IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) AS phone,
           coalesce(c.dispatcher_email, c.email, (
             SELECT cc.email FROM carrier_contacts cc
             WHERE cc.carrier_id = c.id AND cc.email IS NOT NULL
               AND cc.contact_type = ANY(${BOOKING_CONTACT_TYPES})
             ORDER BY array_position(${BOOKING_CONTACT_TYPES}, cc.contact_type), cc.position LIMIT 1)) AS email
    FROM kept c
    WHERE c.tier IS NOT DISTINCT FROM (SELECT tier FROM kept ORDER BY tier NULLS LAST LIMIT 1)
    ORDER BY c.on_time_pct DESC NULLS LAST, c.id
    LIMIT ${rules.waveSize}`);
  return result.rows;
}
