// What one load's agent activity reads: the load's standing with the agent, and the records of
// the agent's work on it (planning entries, contacts, offers), each with its carrier's name. Both
// join the load, its offers and outreaches, the agent's state and its results.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

export type LoadStanding = {
  assigned: boolean;
  load_status: string | null;
  booked: boolean;
  agent_enabled: boolean;
  next_wave_at: Date | null;
  last_outcome: string | null;
  last_decision: string | null;
  handed_at: Date | null;
  /** Offers waiting for a rep's decision: pending, without a counter of the agent's. */
  offers_for_review: number;
  /** The agent's contacts not sent yet, and the earliest time one may go. */
  queued: number;
  queued_from: Date | null;
  /** Contacts sent and still waiting for the carrier. */
  active: number;
};

/** The load's standing with the agent, or null when the organization has no such load. */
export async function loadStanding(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
): Promise<LoadStanding | null> {
  const result = await db.execute<LoadStanding>(sql`
    SELECT l.assigned_to_ai_agent AS assigned, l.load_status,
      EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id AND o.status = 'accepted') AS booked,
      NOT EXISTS (SELECT 1 FROM agent_settings a WHERE a.organization_id = l.organization_id AND NOT a.enabled) AS agent_enabled,
      s.next_wave_at, s.last_outcome, s.last_decision, r.handed_at,
      (SELECT count(*)::int FROM offers o WHERE o.load_id = l.id AND o.status = 'pending' AND o.counter_amount IS NULL) AS offers_for_review,
      (SELECT count(*)::int FROM outreaches q WHERE q.load_id = l.id AND q.is_automated AND q.status = 'pending') AS queued,
      (SELECT min(q.send_after) FROM outreaches q WHERE q.load_id = l.id AND q.is_automated AND q.status = 'pending') AS queued_from,
      (SELECT count(*)::int FROM outreaches q WHERE q.load_id = l.id AND q.is_automated AND q.status = 'active') AS active
    FROM loads l
    LEFT JOIN agent_load_states s ON s.load_id = l.id
    LEFT JOIN agent_load_results r ON r.load_id = l.id
    WHERE l.organization_id = ${organizationId} AND l.id = ${loadId}`);
  const row = result.rows[0];
  if (!row) return null;
  const date = (v: unknown) => (typeof v === 'string' || v instanceof Date ? new Date(v) : null);
  return {
    ...row,
    next_wave_at: date(row.next_wave_at),
    handed_at: date(row.handed_at),
    queued_from: date(row.queued_from),
  };
}

/** A timeline entry; `Kind` is the reader's name for the kinds the SQL below writes. */
export type TimelineRow<Kind extends string = string> = {
  at: string;
  /** agent_activity's kind (its column's enum), or the literal of the union's other branches. */
  kind: Kind;
  wave: number | null;
  carrier_id: string | null;
  carrier_name: string | null;
  channel: string | null;
  tier: number | null;
  reason: string | null;
  outreach_id: string | null;
  offer_id: string | null;
  amount: string | number | null;
};

/** Every record of the agent's work on the load, oldest first (at most `limit`). */
export async function timelineRows<Kind extends string>(
  db: DbOrTx,
  organizationId: string,
  loadId: string,
  limit: number,
): Promise<TimelineRow<Kind>[]> {
  const result = await db.execute<TimelineRow<Kind>>(sql`
    SELECT * FROM (
      SELECT a.created_at AS at, a.kind, a.wave, a.carrier_id, c.name AS carrier_name, a.channel, a.tier,
        a.reason, a.outreach_id, NULL::text AS offer_id, NULL::numeric AS amount, a.id AS seq
      FROM agent_activity a LEFT JOIN carriers c ON c.id = a.carrier_id
      WHERE a.organization_id = ${organizationId} AND a.load_id = ${loadId}
      UNION ALL
      SELECT coalesce(o.sent_at, o.updated_at), 'contact', NULL, o.carrier_id, c.name, o.modality, NULL,
        o.status || coalesce(': ' || o.error_reason, ''), o.id, NULL, NULL, o.id
      FROM outreaches o LEFT JOIN carriers c ON c.id = o.carrier_id
      WHERE o.organization_id = ${organizationId} AND o.load_id = ${loadId} AND o.is_automated
        AND o.status <> 'pending'
      UNION ALL
      SELECT f.created_at, 'offer', NULL, f.carrier_id, c.name, f.channel, NULL,
        CASE
          WHEN f.counter_amount IS NOT NULL THEN 'countered at ' || f.counter_amount
          WHEN f.status = 'rejected' THEN 'declined'
          WHEN f.status = 'accepted' THEN 'accepted by the ' || coalesce(f.accepted_by, 'user')
          ELSE 'left for a rep to decide'
        END, NULL, f.id, f.offer_amount, f.id
      FROM offers f LEFT JOIN carriers c ON c.id = f.carrier_id
      WHERE f.organization_id = ${organizationId} AND f.load_id = ${loadId}
      UNION ALL
      SELECT r.booked_at, 'booking', NULL, r.booked_carrier_id, c.name, r.booked_channel, r.booked_tier,
        'booked by the ' || r.booked_by || CASE WHEN r.booked_fell_off THEN '; fell off: the load was cancelled' ELSE '' END,
        NULL, r.booked_offer_id, r.booked_amount, r.booked_offer_id
      FROM agent_load_results r LEFT JOIN carriers c ON c.id = r.booked_carrier_id
      WHERE r.organization_id = ${organizationId} AND r.load_id = ${loadId} AND r.booked_at IS NOT NULL
    ) t
    -- Entries of one moment in the order the work happens; within a kind, as written (ids are time-ordered).
    ORDER BY at, array_position(ARRAY['wave', 'carrier_chosen', 'carrier_skipped', 'planning', 'contact', 'offer', 'booking'], kind), seq
    LIMIT ${limit}`);
  return result.rows;
}
