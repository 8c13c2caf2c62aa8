import { and, eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { takesCarrierOffers } from '../../domain/freight.js';
import { newId } from '../../domain/ids.js';
import { decideOffer } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import { LOAD_ID_IN_BODY, requireLoad } from '../loads/index.js';
import { bookLoad } from './offer-booking.js';
import { counterOffered } from './offer-queries.js';
import type { CarrierOffer, OfferOutcome, OfferPolicy } from './offer-types.js';
import { insertOffer } from './offers-repository.js';
import { emitOfferEvent } from './offers-service.js';
import { offers } from './offers-tables.js';

export type { CarrierOffer, OfferChannel, OfferOutcome, OfferPolicy } from './offer-types.js';

/**
 * THE way a carrier's offer is recorded, whatever the channel (a call's `submit_offer`, an e-mail
 * or WhatsApp reply): the negotiation rule decides, the offer is stored with its decision, in one
 * transaction holding the load's row lock (so an automatic booking and a rep's accept cannot both
 * win). An offer accepted on arrival books the load (bookLoad) in the same transaction. An offer on
 * a covered or closed load is answered `covered` and not recorded.
 */
export class OfferIntake {
  constructor(
    private readonly db: Db,
    private readonly policy: OfferPolicy,
    private readonly log: FastifyBaseLogger,
  ) {}

  async receive(scope: OrgScope, o: CarrierOffer): Promise<OfferOutcome> {
    const autoAccept = await this.policy.autoAccept(scope.organizationId);
    return this.db.transaction(async (tx) => {
      const load = await requireLoad(
        tx,
        scope,
        o.loadId,
        LOAD_ID_IN_BODY,
        ['tms_load_id', 'load_number', 'load_status', 'posted_rate', 'max_buy_rate'],
        true,
      );
      const countered = o.carrierId ? await counterOffered(tx, o.loadId, o.carrierId) : null;
      const [booked] = await tx
        .select({ id: offers.id })
        .from(offers)
        .where(and(eq(offers.load_id, o.loadId), eq(offers.status, 'accepted')));
      if (booked || !takesCarrierOffers(load.load_status)) {
        // Covered, or past booking: the carrier hears so, and nothing is recorded.
        this.log.info(
          { loadId: o.loadId, carrierId: o.carrierId, amount: o.amount },
          'agent: offer on a covered load',
        );
        return { offerId: null, decision: { kind: 'covered' } as const, status: null, amount: o.amount };
      }
      const decision = decideOffer({
        amount: o.amount,
        postedRate: load.posted_rate,
        maxBuyRate: load.max_buy_rate,
        alreadyCountered: countered !== null,
        autoAccept,
      });
      const status: 'pending' | 'accepted' | 'rejected' =
        decision.kind === 'decline' ? 'rejected' : decision.kind === 'accept' ? 'accepted' : 'pending';
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
        counter_amount: decision.kind === 'counter' ? decision.amount : null,
        accepted_at: status === 'accepted' ? new Date() : null,
        accepted_by: status === 'accepted' ? 'agent' : null,
      });
      await emitOfferEvent(tx, scope, 'offer.created', offer);
      if (offer.status === 'accepted') await bookLoad(tx, scope, offer);
      this.log.info(
        {
          loadId: o.loadId,
          carrierId: o.carrierId,
          offerId: offer.id,
          amount: o.amount,
          decision: decision.kind,
        },
        'agent: offer received',
      );
      return { offerId: offer.id, decision, status, amount: o.amount };
    });
  }
}
