import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { escalateOfferReviews } from '../loads/index.js';
import { emitOfferEvents } from '../offers/index.js';
import {
  offersToReviewSql,
  openReviewItemRows,
  type ReviewItem,
  reviewItemsDueSql,
  reviewItemsOfSql,
} from '../read-side/index.js';
import { DEFAULT_AGENT_SETTINGS } from './agent-settings.js';

export type { ReviewItem };

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
    const raised = await tx.execute<ReviewItem>(sql`
      WITH added AS (
        INSERT INTO agent_review_items (offer_id, organization_id, load_id)
        ${offersToReviewSql(organizationId)}
        ON CONFLICT DO NOTHING
        RETURNING *)
      ${reviewItemsOfSql(sql`added`)}`);
    const escalated = await tx.execute<ReviewItem>(sql`
      WITH due AS (
        UPDATE agent_review_items r SET escalated_at = envoy_now()
        WHERE r.escalated_at IS NULL AND r.offer_id IN (${reviewItemsDueSql(
          DEFAULT_AGENT_SETTINGS.review_escalation_minutes,
          organizationId,
        )})
        RETURNING *)
      ${reviewItemsOfSql(sql`due`)}`);
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
  const rows = await openReviewItemRows(db, organizationId, q);
  return rows.map(asItem).map(({ organization_id: _o, ...item }) => item);
}
