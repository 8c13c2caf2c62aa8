import { and, eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { takesCarrierOffers } from '../../domain/freight.js';
import { newId } from '../../domain/ids.js';
import { amountOf, type Decision, type OfferDecision } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Clock } from '../../lib/clock.js';
import { LOAD_ID_IN_BODY, requireLoad } from '../loads/index.js';
import { NEGOTIATED_LOAD_COLUMNS, negotiate, saveConversation } from './negotiation-state.js';
import { bookLoad } from './offer-booking.js';
import type { CarrierOffer, CarrierReply, OfferOutcome, OfferPolicy } from './offer-types.js';
import { insertOffer } from './offers-repository.js';
import { emitOfferEvent } from './offers-service.js';
import { offers } from './offers-tables.js';

export type { CarrierOffer, CarrierReply, OfferChannel, OfferOutcome, OfferPolicy } from './offer-types.js';

/**
 * THE way a carrier's offer is recorded, whatever the channel (a call's `submit_offer`, an e-mail
 * or WhatsApp reply): the negotiation decision (domain/negotiation.ts `decide`) answers it, the offer
 * is stored with its decision and the conversation's new state, in one transaction holding the
 * load's row lock (so an automatic booking and a rep's accept cannot both win, and two replies of
 * one carrier cannot both take a round). An offer accepted on arrival books the load (bookLoad) in
 * the same transaction. An offer on a covered or closed load is answered `covered` and not recorded.
 */
export class OfferIntake {
  constructor(
    private readonly db: Db,
    private readonly policy: OfferPolicy,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
  ) {}

  async receive(scope: OrgScope, o: CarrierOffer): Promise<OfferOutcome> {
    const policy = await this.policy.of(scope.organizationId);
    return this.db.transaction(async (tx) => {
      const load = await requireLoad(
        tx,
        scope,
        o.loadId,
        LOAD_ID_IN_BODY,
        ['tms_load_id', 'load_number', 'load_status', ...NEGOTIATED_LOAD_COLUMNS],
        true,
      );
      if (await this.covered(tx, o.loadId, load.load_status)) {
        // Covered, or past booking: the carrier hears so, and nothing is recorded.
        this.log.info(
          { loadId: o.loadId, carrierId: o.carrierId, amount: o.amount },
          'agent: offer on a covered load',
        );
        return { offerId: null, decision: { kind: 'covered' } as const, status: null, amount: o.amount };
      }
      const step = await negotiate(
        tx,
        scope,
        policy,
        o.loadId,
        load,
        o.carrierId,
        { kind: 'offer', amount: o.amount },
        this.clock.now(),
      );
      const { decision } = step;
      const status = statusOf(decision);
      const offer = await insertOffer(tx, scope, {
        id: newId('offer'),
        load_id: o.loadId,
        tms_load_id: load.tms_load_id,
        load_number: load.load_number,
        offer_amount: o.amount,
        status,
        source: 'agent',
        channel: o.channel,
        carrier_id: o.carrierId,
        call_id: o.callId ?? null,
        email_conversation_id: o.channel === 'email' ? (o.conversationId ?? null) : null,
        email_message_id: o.emailMessageId ?? null,
        notes: o.notes ?? null,
        counter_amount: decision.kind === 'counter' || decision.kind === 'final' ? decision.amount : null,
        accepted_at: status === 'accepted' ? this.clock.now() : null,
        accepted_by: status === 'accepted' ? 'agent' : null,
      });
      await saveConversation(tx, scope, o.loadId, o.carrierId, step.conversation);
      await emitOfferEvent(tx, scope, 'offer.created', offer);
      if (offer.status === 'accepted') await bookLoad(tx, scope, offer);
      this.log.info(
        {
          loadId: o.loadId,
          carrierId: o.carrierId,
          offerId: offer.id,
          amount: o.amount,
          decision: decision.kind,
          said: amountOf(decision),
          rounds: step.conversation.rounds,
        },
        'agent: offer received',
      );
      return { offerId: offer.id, decision, status, amount: o.amount };
    });
  }

  /**
   * A carrier's reply that names no rate, through the same decision: a refusal is noted (no rate is
   * asked of that carrier again), anything else gets the standing answer (a question for a rate only
   * when none was quoted). Nothing is recorded as an offer.
   */
  async hear(scope: OrgScope, r: CarrierReply): Promise<OfferDecision> {
    const policy = await this.policy.of(scope.organizationId);
    return this.db.transaction(async (tx) => {
      const load = await requireLoad(
        tx,
        scope,
        r.loadId,
        LOAD_ID_IN_BODY,
        ['load_status', ...NEGOTIATED_LOAD_COLUMNS],
        true,
      );
      if (r.said === 'no_rate' && (await this.covered(tx, r.loadId, load.load_status)))
        return { kind: 'covered' } as const;
      const step = await negotiate(
        tx,
        scope,
        policy,
        r.loadId,
        load,
        r.carrierId,
        { kind: r.said },
        this.clock.now(),
      );
      await saveConversation(tx, scope, r.loadId, r.carrierId, step.conversation);
      return step.decision;
    });
  }

  /** The load is booked, or past booking. */
  private async covered(tx: DbOrTx, loadId: string, loadStatus: string | null) {
    const [booked] = await tx
      .select({ id: offers.id })
      .from(offers)
      .where(and(eq(offers.load_id, loadId), eq(offers.status, 'accepted')));
    return !!booked || !takesCarrierOffers(loadStatus);
  }
}

/** How the offer is stored: booked, rejected (a pass, or the earlier rule's decline), else pending. */
const statusOf = (d: Decision): 'pending' | 'accepted' | 'rejected' =>
  d.kind === 'accept' ? 'accepted' : d.kind === 'pass' || d.kind === 'decline' ? 'rejected' : 'pending';
