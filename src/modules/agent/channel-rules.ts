import { and, desc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import { carriers } from '../carriers/carriers-tables.js';
import { loads } from '../loads/loads-tables.js';
import { emitOfferEvent } from '../offers/offers-service.js';
import { offers } from '../offers/offers-tables.js';
import { cancelAutomatedOutreaches } from '../outreaches/outreaches-repository.js';
import { readAgentSettings } from './agent-settings.js';
import { decideOffer, type OfferDecision } from './negotiation.js';

/** Load statuses the agent works (spec, "What the service does" 2). */
export const WORKABLE_STATUSES = ['Created', 'Unassigned', 'Quotes Received'] as const;

/** The channel a carrier named the rate on: a call, an e-mail, WhatsApp. */
export type OfferChannel = 'voice' | 'email' | 'messaging';

export interface OfferIntake {
  loadId: string;
  carrierId: string | null;
  amount: number;
  channel: OfferChannel;
  callId?: string | null;
  notes?: string | null;
  conversationId?: string | null;
  emailMessageId?: string | null;
}

export interface OfferOutcome {
  offerId: string | null;
  decision: OfferDecision;
  status: 'pending' | 'accepted' | 'rejected' | null;
  amount: number;
}

/**
 * The rules every channel (calls, e-mail, WhatsApp) applies to what a carrier says: an offer goes
 * through the one negotiation rule, and a request not to be contacted is honoured the same way.
 */

/**
 * THE way a carrier's offer is recorded, whatever the channel (a call's `submit_offer`, an e-mail
 * or WhatsApp reply): the negotiation rule decides, the offer is stored with its decision, in one
 * transaction holding the load's row lock (so an automatic booking and a rep's accept cannot both
 * win). Booking withdraws the load's queued contacts in the same transaction. An offer on a covered
 * or closed load is answered `covered` and not recorded.
 */
export async function receiveOffer(
  db: Db,
  log: FastifyBaseLogger,
  scope: OrgScope,
  o: OfferIntake,
): Promise<OfferOutcome> {
  const settings = await readAgentSettings(db, scope.organizationId);
  return db.transaction(async (tx) => {
    const [load] = await tx
      .select({
        tms_load_id: loads.tms_load_id,
        load_number: loads.load_number,
        load_status: loads.load_status,
        posted_rate: loads.posted_rate,
        max_buy_rate: loads.max_buy_rate,
      })
      .from(loads)
      .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, o.loadId)))
      .for('update');
    const countered = o.carrierId ? await counterOffered(tx, o.loadId, o.carrierId) : null;
    const [booked] = await tx
      .select({ id: offers.id })
      .from(offers)
      .where(and(eq(offers.load_id, o.loadId), eq(offers.status, 'accepted')));
    const open =
      load!.load_status === null || (WORKABLE_STATUSES as readonly string[]).includes(load!.load_status);
    if (booked || !open) {
      // Covered, or past booking: the carrier hears so, and nothing is recorded.
      log.info(
        { loadId: o.loadId, carrierId: o.carrierId, amount: o.amount },
        'agent: offer on a covered load',
      );
      return { offerId: null, decision: { kind: 'covered' } as const, status: null, amount: o.amount };
    }
    const decision = decideOffer({
      amount: o.amount,
      postedRate: load!.posted_rate,
      maxBuyRate: load!.max_buy_rate,
      alreadyCountered: countered !== null,
      autoAccept: settings.auto_accept_at_or_under_posted_rate,
    });
    const status: 'pending' | 'accepted' | 'rejected' =
      decision.kind === 'decline' ? 'rejected' : decision.kind === 'accept' ? 'accepted' : 'pending';
    const [offer] = await tx
      .insert(offers)
      .values({
        id: newId('offer'),
        organization_id: scope.organizationId,
        load_id: o.loadId,
        tms_load_id: load!.tms_load_id,
        load_number: load!.load_number,
        offer_amount: o.amount,
        status,
        source: 'agent',
        channel: o.channel,
        carrier_id: o.carrierId,
        call_id: o.callId ?? null,
        email_conversation_id: o.channel === 'email' ? (o.conversationId ?? null) : null,
        email_message_id: o.emailMessageId ?? null,
        notes: o.notes ?? null,
        counter_amount: decision.kind === 'counter' ? decision.amount : null,
        accepted_at: status === 'accepted' ? sql`now()` : null,
      })
      .returning();
    await emitOfferEvent(tx, scope, 'offer.created', offer!);
    if (status === 'accepted') {
      await cancelAutomatedOutreaches(
        tx,
        { loadId: o.loadId },
        `cancelled: load booked on offer ${offer!.id}`,
      );
    }
    log.info(
      {
        loadId: o.loadId,
        carrierId: o.carrierId,
        offerId: offer!.id,
        amount: o.amount,
        decision: decision.kind,
      },
      'agent: offer received',
    );
    return { offerId: offer!.id, decision, status, amount: o.amount };
  });
}

/** The agent's latest counter-offer to this carrier on this load, or null when it made none. */
export async function counterOffered(db: DbOrTx, loadId: string, carrierId: string): Promise<number | null> {
  const [countered] = await db
    .select({ counter: offers.counter_amount })
    .from(offers)
    .where(
      and(
        eq(offers.load_id, loadId),
        eq(offers.carrier_id, carrierId),
        sql`${offers.counter_amount} IS NOT NULL`,
      ),
    )
    .orderBy(desc(offers.created_at))
    .limit(1);
  return countered?.counter ?? null;
}

/**
 * A carrier asked not to be contacted (on a call, by e-mail or WhatsApp): stamped once, and its
 * queued automated contacts withdrawn, in one transaction.
 */
export async function stopContactRequested(db: Db, organizationId: string, carrierId: string) {
  await db.transaction(async (tx) => {
    await tx
      .update(carriers)
      .set({
        stop_contact_requested_at: sql`coalesce(${carriers.stop_contact_requested_at}, now())`,
        updated_at: sql`now()`,
      })
      .where(and(eq(carriers.organization_id, organizationId), eq(carriers.id, carrierId)));
    await cancelAutomatedOutreaches(
      tx,
      { carrierId, organizationId },
      'cancelled: the carrier asked not to be contacted',
    );
  });
}
