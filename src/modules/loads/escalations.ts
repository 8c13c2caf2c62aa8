// Escalations raised and settled inside other modules' transactions: the agent's review of an
// offer, carrier vetting's booked carrier turned high risk, a rep's decision on an offer.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import { bookingsToEscalate } from '../read-side/index.js';

/** An offer whose review item waited too long for a rep (the agent's review sweep). */
export interface OfferReviewEscalation {
  organization_id: string;
  load_id: string;
  load_number: string | null;
  offer_id: string;
  carrier_id: string | null;
  offer_amount: number;
}

/** What a person answering for `scope` is recorded as: the user, or nobody for an API key. */
export const responderOf = (scope: OrgScope) =>
  scope.principal.kind === 'bearer' ? scope.principal.userId : null;

const dollars = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/**
 * An ACTIVE `offer_review` escalation (agent_type CARRIER_SALES) for each offer, unless its offer
 * has one ACTIVE already. Returns how many were raised.
 */
export async function escalateOfferReviews(tx: DbOrTx, items: OfferReviewEscalation[]): Promise<number> {
  let raised = 0;
  for (const i of items) {
    const message =
      `Offer ${i.offer_id} of ${dollars(i.offer_amount)} from carrier ${i.carrier_id ?? 'unknown'} on load ` +
      `${i.load_number ?? i.load_id} waits for a rep: accept, reject or counter it.`;
    const inserted = await tx.execute(sql`
      INSERT INTO escalations (id, organization_id, load_id, agent_type, escalation_type, message, offer_id, reason)
      SELECT ${newId('escalation')}, ${i.organization_id}, ${i.load_id}, 'CARRIER_SALES', 'offer_review',
             ${message}, ${i.offer_id}, 'The offer waited longer than review_escalation_minutes for a rep'
      WHERE NOT EXISTS (SELECT 1 FROM escalations e WHERE e.offer_id = ${i.offer_id}
                          AND e.escalation_type = 'offer_review' AND e.status = 'ACTIVE')`);
    raised += inserted.rowCount ?? 0;
  }
  return raised;
}

/**
 * An ACTIVE `carrier_high_risk` escalation (agent_type CARRIER_VETTING) on each load whose accepted
 * offer is the carrier's (a booking to look at again), unless one with the same reason is already
 * ACTIVE. Returns the loads escalated.
 */
export async function escalateLoadsBookedTo(
  tx: DbOrTx,
  organizationId: string,
  carrierId: string,
  reason: string,
): Promise<string[]> {
  const rows = await bookingsToEscalate(tx, organizationId, carrierId, reason);
  for (const r of rows) {
    const message =
      `Load ${r.load_number ?? r.load_id} is booked with carrier ${carrierId}, which turned high risk: ` +
      'keep the booking or book another carrier.';
    await tx.execute(sql`
      INSERT INTO escalations (id, organization_id, load_id, agent_type, escalation_type, message, offer_id, reason)
      VALUES (${newId('escalation')}, ${organizationId}, ${r.load_id}, 'CARRIER_VETTING', 'carrier_high_risk',
              ${message}, ${r.offer_id}, ${reason})`);
  }
  return rows.map((r) => r.load_id);
}

/**
 * A rep decided an offer (`decision` says how): the ACTIVE escalations about it (its review, or
 * its booking's vetting) are RESPONDED with the decision, by the rep. When it was accepted, the
 * other offers' reviews on the load are CANCELLED: the load is booked.
 */
export async function offerDecided(
  tx: DbOrTx,
  scope: OrgScope,
  offer: { id: string; load_id: string; status: string },
  decision: string,
): Promise<void> {
  await tx.execute(sql`
    UPDATE escalations SET status = 'RESPONDED', response_message = ${decision},
      response_user_id = ${responderOf(scope)}, responded_at = envoy_now(), resolved_at = envoy_now(),
      updated_at = envoy_now()
    WHERE organization_id = ${scope.organizationId} AND offer_id = ${offer.id} AND status = 'ACTIVE'`);
  if (offer.status === 'accepted') {
    await tx.execute(sql`
      UPDATE escalations SET status = 'CANCELLED', resolved_at = envoy_now(), updated_at = envoy_now()
      WHERE organization_id = ${scope.organizationId} AND load_id = ${offer.load_id}
        AND escalation_type = 'offer_review' AND offer_id IS DISTINCT FROM ${offer.id} AND status = 'ACTIVE'`);
  }
}
