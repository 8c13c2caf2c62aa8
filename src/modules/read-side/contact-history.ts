// A carrier's contact history as the agent's planning reads it, as SQL fragments the planning's
// reads share: whether it heard of a load within the re-contact window, its automated contacts of
// the last day, and its queued message with room for one more load.

import { type SQL, sql } from 'drizzle-orm';

/**
 * The re-contact window (hours), and after how many minutes a carrier that did not answer its
 * contact about a load picked up within URGENT_PICKUP_HOURS hears of it once more (0: never).
 */
export type ContactWindow = { hours: number; followUpMinutes: number };

/** Within this many hours of its pickup a load is urgent (the agent's planning-rules.ts says what that changes). */
export const URGENT_PICKUP_HOURS = 12;

/** Most loads one contact offers, on a call and in writing. */
export type MostLoads = { call: number; message: number };

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
 * for one more load (fewer than `most.call` loads on a call, `most.message` in writing), as JSON,
 * or null: a load due now for the carrier can join it (the message or call names each load with
 * its lane). Only a bundle whose first outreach is still queued: one the dispatcher has taken is on
 * its way.
 */
export const openBundleSql = (
  organizationId: string | SQL,
  carrier: SQL,
  loadId: SQL,
  most: MostLoads,
) => sql`
  SELECT json_build_object('bundle_id', o.id, 'modality', o.modality,
           'address', o.address, 'conversation_id', o.conversation_id, 'send_after', o.send_after)
  FROM outreaches o
  WHERE o.organization_id = ${organizationId} AND o.carrier_id = ${carrier} AND o.is_automated
    AND o.bundle_id IS NULL AND o.status = 'pending' AND o.cancelled_at IS NULL AND o.load_id <> ${loadId}
    AND (SELECT count(*) FROM outreaches b WHERE b.bundle_id = o.id AND b.cancelled_at IS NULL)
        < CASE WHEN o.modality = 'call' THEN ${sql.raw(String(most.call - 1))}
          ELSE ${sql.raw(String(most.message - 1))} END
  ORDER BY o.send_after LIMIT 1`;
