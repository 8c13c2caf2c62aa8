// The agent's review items (offers within the ceiling waiting for a rep) read with their offer and
// load: which offers to raise one for, which items are due for escalation, the open ones. The agent
// writes its review items around these reads, in one statement each.

import { type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { workableSql } from './workable-loads.js';

export type ReviewItem = {
  offer_id: string;
  organization_id: string;
  load_id: string;
  load_number: string | null;
  carrier_id: string | null;
  offer_amount: number;
  requested_at: Date;
  escalated_at: Date | null;
};

const l = sql.identifier('l');

/**
 * An open review item: its offer still pending (no counter of ours out, not waiting for the
 * carrier's confirmation) on a workable load.
 */
const openSql = sql`o.status = 'pending' AND o.counter_amount IS NULL
  AND o.held_for IS DISTINCT FROM 'confirmation' AND ${workableSql(l)}`;

const itemColumns = sql`r.offer_id, r.organization_id, r.load_id, o.load_number, o.carrier_id,
  o.offer_amount::float8 AS offer_amount, r.requested_at, r.escalated_at`;

const offersOfOrganization = (organizationId?: string) =>
  organizationId ? sql`AND o.organization_id = ${organizationId}` : sql``;

/**
 * Offers the agent recorded in the last 30 days within max_buy_rate (or held for vetting), open,
 * without a review item yet, as (offer_id, organization_id, load_id) rows.
 */
export const offersToReviewSql = (
  organizationId?: string,
) => sql`SELECT o.id, o.organization_id, o.load_id FROM offers o JOIN loads l ON l.id = o.load_id
        WHERE o.source = 'agent' AND ${openSql} ${offersOfOrganization(organizationId)}
          AND o.created_at > envoy_now() - interval '30 days'
          AND (l.max_buy_rate IS NULL OR o.offer_amount <= l.max_buy_rate OR o.held_for = 'vetting')
          AND NOT EXISTS (SELECT 1 FROM agent_review_items x WHERE x.offer_id = o.id)`;

/**
 * The offer ids of open review items not escalated that waited longer than their organization's
 * review_escalation_minutes (`defaultMinutes` where it set none), locked (SKIP LOCKED).
 */
export const reviewItemsDueSql = (defaultMinutes: number, organizationId?: string) => sql`
          SELECT r2.offer_id FROM agent_review_items r2
          JOIN offers o ON o.id = r2.offer_id JOIN loads l ON l.id = r2.load_id
          LEFT JOIN agent_settings s ON s.organization_id = r2.organization_id
          CROSS JOIN LATERAL (SELECT coalesce(s.review_escalation_minutes,
                                              ${defaultMinutes}) AS minutes) m
          WHERE r2.escalated_at IS NULL AND ${openSql} ${offersOfOrganization(organizationId)} AND m.minutes > 0
            AND r2.requested_at <= envoy_now() - make_interval(mins => m.minutes)
          FOR UPDATE OF r2 SKIP LOCKED`;

/** The review items of `rows` (review item rows the caller's statement names) as ReviewItem rows. */
export const reviewItemsOfSql = (rows: SQL) =>
  sql`SELECT ${itemColumns} FROM ${rows} r JOIN offers o ON o.id = r.offer_id`;

/**
 * The organization's open review items, escalated ones first, then oldest first; `escalated`
 * narrows to escalated or not.
 */
export async function openReviewItemRows(
  db: DbOrTx,
  organizationId: string,
  q: { escalated?: boolean | undefined; limit: number },
): Promise<ReviewItem[]> {
  const escalated =
    q.escalated === undefined
      ? sql``
      : q.escalated
        ? sql`AND r.escalated_at IS NOT NULL`
        : sql`AND r.escalated_at IS NULL`;
  const rows = await db.execute<ReviewItem>(sql`
    SELECT ${itemColumns} FROM agent_review_items r
    JOIN offers o ON o.id = r.offer_id JOIN loads l ON l.id = r.load_id
    WHERE r.organization_id = ${organizationId} AND ${openSql} ${escalated}
    ORDER BY r.escalated_at IS NULL, r.requested_at, r.offer_id LIMIT ${q.limit}`);
  return rows.rows;
}
