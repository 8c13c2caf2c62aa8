// One carrier's negotiation on one load: read, decided (domain/negotiation.ts) and written back
// inside the intake's transaction, which holds the load's row lock.

import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import {
  type CarrierSaid,
  type Conversation,
  decide,
  NEW_CONVERSATION,
  type NegotiationStep,
} from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import { findCarrier } from '../carriers/index.js';
import type { OfferPolicy } from './offer-types.js';
import { negotiations } from './offers-tables.js';

/** The load's columns the negotiation reads (NEGOTIATED_LOAD_COLUMNS). */
export interface NegotiatedLoad {
  posted_rate: number | null;
  max_buy_rate: number | null;
  suggested_market_rate: number | null;
  pickup_date: Date | null;
}

export const NEGOTIATED_LOAD_COLUMNS = [
  'posted_rate',
  'max_buy_rate',
  'suggested_market_rate',
  'pickup_date',
] as const;

export async function conversationOf(db: DbOrTx, loadId: string, carrierId: string): Promise<Conversation> {
  const [row] = await db
    .select()
    .from(negotiations)
    .where(and(eq(negotiations.load_id, loadId), eq(negotiations.carrier_id, carrierId)));
  if (!row) return NEW_CONVERSATION;
  return {
    rounds: row.rounds,
    ask: row.ask,
    lastCounter: row.last_counter,
    lowestOffer: row.lowest_offer,
    lastOffer: row.last_offer,
    passed: row.passed,
    declined: row.declined,
    confirming: row.confirming,
  };
}

/**
 * The decision on what a carrier said about a load, from the organization's policy, the load's
 * numbers, the carrier's compliance and the conversation so far. A caller without a known carrier
 * (an unidentified inbound call) negotiates from scratch each time and is never booked automatically.
 */
export async function negotiate(
  tx: DbOrTx,
  scope: OrgScope,
  policy: Awaited<ReturnType<OfferPolicy['of']>>,
  loadId: string,
  load: NegotiatedLoad,
  carrierId: string | null,
  said: CarrierSaid,
  now: Date,
  /** The carrier's standing when the caller read it already (else it is read here). */
  known?: boolean,
): Promise<NegotiationStep> {
  const carrier = known === undefined && carrierId ? await findCarrier(tx, scope, carrierId) : null;
  const passed =
    known ?? (carrier?.compliance_status === 'PASSED' && (carrier.risk_level ?? 'low') === 'low');
  return decide({
    policy: policy.negotiation,
    autoAcceptAtOrUnderPostedRate: policy.autoAcceptAtOrUnderPostedRate,
    load: {
      posted: load.posted_rate,
      ceiling: load.max_buy_rate,
      market: load.suggested_market_rate,
      pickupAt: load.pickup_date,
    },
    // Booked automatically only when passed and low risk: a signal sent to review waits for a rep.
    carrierCompliancePassed: carrierId !== null && passed,
    now,
    conversation: carrierId ? await conversationOf(tx, loadId, carrierId) : NEW_CONVERSATION,
    said,
  });
}

/** Stores where the conversation stands (nothing for an unidentified caller). */
export async function saveConversation(
  tx: DbOrTx,
  scope: OrgScope,
  loadId: string,
  carrierId: string | null,
  c: Conversation,
) {
  if (!carrierId) return;
  const values = {
    rounds: c.rounds,
    ask: c.ask,
    last_counter: c.lastCounter,
    lowest_offer: c.lowestOffer,
    last_offer: c.lastOffer,
    passed: c.passed,
    declined: c.declined,
    confirming: c.confirming,
  };
  await tx
    .insert(negotiations)
    .values({ load_id: loadId, carrier_id: carrierId, organization_id: scope.organizationId, ...values })
    .onConflictDoUpdate({
      target: [negotiations.load_id, negotiations.carrier_id],
      set: { ...values, updated_at: productNow },
    });
}
