import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { escalateOfferReviews } from '../loads/index.js';
import { emitOfferEvents } from '../offers/index.js';
import { workableSql } from './agent-repository.js';
import { DEFAULT_AGENT_SETTINGS } from './agent-settings.js';

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

const asItem = (r: ReviewItem): ReviewItem => ({
  ...r,
  requested_at: new Date(r.requested_at),
  escalated_at: r.escalated_at ? new Date(r.escalated_at) : null,
});

/**
 * Raises a review item for every offer the agent recorded within max_buy_rate that waits for a
 * rep (offer.review_requested, once per offer), and escalates those that waited longer than their
 * organization's review_escalation_minutes (offer.review_escalated, once, and an ACTIVE
 * `offer_review` escalation on its load); returns how many of each.
 */
export async function sweepReviewItems(db: Db, log: FastifyBaseLogger, organizationId?: string) {
  return db.transaction(async (tx) => {
    const org = organizationId ? sql`AND o.organization_id = ${organizationId}` : sql``;
    const raised = await tx.execute<ReviewItem>(sql`
      WITH added AS (
        INSERT INTO agent_review_items (offer_id, organization_id, load_id)
        SELECT o.id, o.organization_id, o.load_id FROM offers o JOIN loads l ON l.id = o.load_id
        WHERE o.source = 'agent' AND ${openSql} ${org}
          AND o.created_at > envoy_now() - interval '30 days'
          AND (l.max_buy_rate IS NULL OR o.offer_amount <= l.max_buy_rate OR o.held_for = 'vetting')
          AND NOT EXISTS (SELECT 1 FROM agent_review_items x WHERE x.offer_id = o.id)
        ON CONFLICT DO NOTHING
        RETURNING *)
      SELECT ${itemColumns} FROM added r JOIN offers o ON o.id = r.offer_id`);
    const escalated = await tx.execute<ReviewItem>(sql`
      WITH due AS (
        UPDATE agent_review_items r SET escalated_at = envoy_now()
        WHERE r.escalated_at IS NULL AND r.offer_id IN (
          SELECT r2.offer_id FROM agent_review_items r2
          JOIN offers o ON o.id = r2.offer_id JOIN loads l ON l.id = r2.load_id
          LEFT JOIN agent_settings s ON s.organization_id = r2.organization_id
          CROSS JOIN LATERAL (SELECT coalesce(s.review_escalation_minutes,
                                              ${DEFAULT_AGENT_SETTINGS.review_escalation_minutes}) AS minutes) m
          WHERE r2.escalated_at IS NULL AND ${openSql} ${org} AND m.minutes > 0
            AND r2.requested_at <= envoy_now() - make_interval(mins => m.minutes)
          FOR UPDATE OF r2 SKIP LOCKED)
        RETURNING *)
      SELECT ${itemColumns} FROM due r JOIN offers o ON o.id = r.offer_id`);
    await escalateOfferReviews(tx, escalated.rows.map(asItem));
    for (const [type, rows] of [
      ['offer.review_requested', raised.rows],
      ['offer.review_escalated', escalated.rows],
    ] as const) {
      const byOrg = new Map<string, ReviewItem[]>();
      for (const r of rows.map(asItem))
        byOrg.set(r.organization_id, [...(byOrg.get(r.organization_id) ?? []), r]);
      for (const [orgId, items] of byOrg) {
        await emitOfferEvents(
          tx,
          orgId,
          items.map(({ organization_id: _o, ...data }) => ({ type, data })),
        );
        for (const i of items) {
          log.info({ loadId: i.load_id, offerId: i.offer_id, event: type }, 'agent: offer waits for a rep');
        }
      }
    }
    return { raised: raised.rows.length, escalated: escalated.rows.length };
  });
}

/**
 * The organization's open review items, escalated ones first, then oldest first; `escalated`
 * narrows to escalated or not.
 */
export async function openReviewItems(
  db: DbOrTx,
  organizationId: string,
  q: { escalated?: boolean | undefined; limit: number },
): Promise<Omit<ReviewItem, 'organization_id'>[]> {
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
  return rows.rows.map(asItem).map(({ organization_id: _o, ...item }) => item);
}
