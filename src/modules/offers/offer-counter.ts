import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { AppError, notFound, stateConflict, unprocessable } from '../../domain/errors.js';
import { takesCarrierOffers } from '../../domain/freight.js';
import { type RepCounterRefusal, repCounter } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { LOAD_ID_IN_PATH, offerDecided, requireLoad } from '../loads/index.js';
import { contactRefusal } from '../outreaches/index.js';
import { conversationOf, NEGOTIATED_LOAD_COLUMNS, saveConversation } from './negotiation-state.js';
import type { CounterChannel, CounterConversation, OfferPolicy, SaidCounter } from './offer-types.js';
import { emitEvent } from './offers-events.js';
import { acceptedOfferOf, findOffer, type OfferRow, setCounterAmount } from './offers-repository.js';
import type { OfferCounter } from './offers-schemas.js';
import { toOffers } from './offers-service.js';

const refusedAmount = (
  r: Exclude<RepCounterRefusal, { kind: 'rounds_exhausted' | 'conversation_ended' }>,
) => {
  switch (r.kind) {
    case 'above_ceiling':
      return unprocessable(
        'counter_above_ceiling',
        `amount is over the load's max_buy_rate (${r.ceiling}): a counter never goes over the ceiling`,
        'amount',
      );
    case 'not_below_ask':
      return unprocessable(
        'counter_not_below_offer',
        `amount must be under what the carrier asked (${r.asked}); to take the carrier's amount, accept the offer`,
        'amount',
      );
    case 'below_last_counter':
      return unprocessable(
        'counter_below_last_counter',
        `amount is under our last counter in this conversation (${r.lastCounter}); a counter never takes back what was said`,
        'amount',
      );
  }
};

function refused(offerId: string, r: RepCounterRefusal): AppError {
  if (r.kind === 'rounds_exhausted') {
    return stateConflict(
      'negotiation_rounds_exhausted',
      `Offer '${offerId}': every round of the negotiation policy (${r.maxRounds}) was said; accept or reject the offer`,
    );
  }
  if (r.kind === 'conversation_ended') {
    return stateConflict(
      'negotiation_ended',
      r.why === 'declined'
        ? `Offer '${offerId}': the carrier said it has no truck for this load`
        : `Offer '${offerId}': the conversation ended after our final round`,
    );
  }
  return refusedAmount(r);
}

/** What was written by a counter, so that it can be taken back if the message cannot be sent. */
interface Recorded {
  offer: OfferRow;
  counter: SaidCounter;
  round: number;
  maxRounds: number;
  conversation: CounterConversation;
  before: { conversation: Awaited<ReturnType<typeof conversationOf>>; counterAmount: number | null };
}

/**
 * A rep's counter-offer (POST /offers/{id}/counter): decided by the one negotiation module
 * (`repCounter`), recorded as a round of the carrier's conversation on the load, and said in the
 * offer's own conversation on its channel. The round is written under the load's row lock (as the
 * intake and PATCH take it), the message goes out after that commits (no call to a channel inside
 * a transaction), and `offer.countered` is emitted once it went out. A message that cannot be sent
 * takes the round back: the answer is 502 and nothing stays recorded.
 */
export class OfferCounters {
  constructor(
    private readonly db: Db,
    private readonly policy: OfferPolicy,
    private readonly channel: CounterChannel,
    private readonly log: FastifyBaseLogger,
  ) {}

  async counter(scope: OrgScope, offerId: string, amount: number): Promise<OfferCounter> {
    const offer = await findOffer(this.db, scope, offerId);
    if (!offer) throw notFound('Offer', offerId, 'offer_id');
    const conversation = await this.conversationFor(scope, offer);
    const recorded = await this.record(scope, offerId, amount, conversation);
    let messageId: string | null;
    try {
      ({ messageId } = await this.channel.say(scope, conversation, recorded.counter));
    } catch (err) {
      this.log.warn(
        { err, offerId, outreachId: conversation.outreachId },
        'counter: the message was not sent',
      );
      await this.takeBack(scope, recorded);
      throw new AppError(
        502,
        'counter_not_sent',
        `The counter on offer '${offerId}' could not be sent to the carrier; nothing was recorded, try again`,
      );
    }
    return this.db.transaction(async (tx) => {
      const result = await this.shape(tx, scope, recorded);
      await emitEvent(tx, scope.organizationId, 'offer.countered', () => result);
      await offerDecided(tx, scope, { ...offer, status: 'pending' }, `Countered at $${amount}`);
      this.log.info({ offerId, amount, round: recorded.round, messageId }, 'counter: sent by a rep');
      return result;
    });
  }

  /** The conversation to answer in: the offer's own, on e-mail or WhatsApp; else 409. */
  private async conversationFor(scope: OrgScope, offer: OfferRow): Promise<CounterConversation> {
    if (offer.channel === 'voice') {
      throw stateConflict(
        'counter_needs_call',
        `Offer '${offer.id}' was made on a call: a counter cannot be sent into a call that ended; call the carrier (POST /calls) instead`,
      );
    }
    const found =
      offer.channel && offer.carrier_id
        ? await this.channel.conversationOf(scope, {
            load_id: offer.load_id,
            carrier_id: offer.carrier_id,
            channel: offer.channel,
            email_conversation_id: offer.email_conversation_id,
          })
        : null;
    if (!found) {
      throw stateConflict(
        'no_conversation',
        `Offer '${offer.id}' has no e-mail or WhatsApp conversation with its carrier to answer in (it was entered by a rep or an API client)`,
      );
    }
    return found;
  }

  /** Checks every rule under the load's row lock and writes the round. */
  private async record(
    scope: OrgScope,
    offerId: string,
    amount: number,
    conversation: CounterConversation,
  ): Promise<Recorded> {
    const policy = await this.policy.of(scope.organizationId);
    return this.db.transaction(async (tx) => {
      const first = defined(await findOffer(tx, scope, offerId), 'offer');
      const load = await requireLoad(
        tx,
        scope,
        first.load_id,
        LOAD_ID_IN_PATH,
        ['load_status', ...NEGOTIATED_LOAD_COLUMNS],
        true,
      );
      const offer = defined(await findOffer(tx, scope, offerId, true), 'offer');
      await this.stillOpen(tx, scope, offer, load.load_status);
      const carrierId = defined(offer.carrier_id, 'offer.carrier_id');
      const before = await conversationOf(tx, offer.load_id, carrierId);
      const step = repCounter({
        policy: policy.negotiation,
        load: {
          posted: load.posted_rate,
          ceiling: load.max_buy_rate,
          market: load.suggested_market_rate,
          pickupAt: load.pickup_date,
        },
        conversation: before,
        offerAmount: offer.offer_amount,
        amount,
      });
      if (!step.ok) throw refused(offerId, step.refusal);
      await saveConversation(tx, scope, offer.load_id, carrierId, step.conversation);
      const updated = defined(
        await setCounterAmount(tx, scope, offerId, amount, scope.principal.userId),
        'setCounterAmount',
      );
      return {
        offer: updated,
        counter: step.decision,
        round: step.round,
        maxRounds: policy.negotiation.max_rounds,
        conversation,
        before: { conversation: before, counterAmount: offer.counter_amount },
      };
    });
  }

  /** 409 when the conversation can no longer take a counter: the offer, the load or the carrier. */
  private async stillOpen(tx: DbOrTx, scope: OrgScope, offer: OfferRow, loadStatus: string | null) {
    if (offer.status !== 'pending') {
      throw stateConflict(
        'offer_not_pending',
        `Offer '${offer.id}' is ${offer.status}: only a pending offer can be countered`,
      );
    }
    const booked = await acceptedOfferOf(tx, scope, offer.load_id, offer.id);
    if (booked) {
      throw stateConflict(
        'offer_already_accepted',
        `Load '${offer.load_id}' is already booked on offer '${booked}'`,
      );
    }
    if (!takesCarrierOffers(loadStatus)) {
      throw stateConflict(
        'load_not_bookable',
        `Load '${offer.load_id}' is ${loadStatus} and takes no more offers`,
      );
    }
    const refusal = await contactRefusal(tx, scope, defined(offer.carrier_id, 'carrier'), offer.load_id);
    if (refusal) {
      throw stateConflict(
        refusal.reason === 'stop_contact_requested' ? 'stop_contact_requested' : 'contact_not_allowed',
        `${refusal.message}: no counter can be sent`,
      );
    }
  }

  /** Undoes a round whose message never went out, unless something else wrote since. */
  private async takeBack(scope: OrgScope, r: Recorded) {
    const carrierId = defined(r.offer.carrier_id, 'carrier');
    await this.db.transaction(async (tx) => {
      await requireLoad(tx, scope, r.offer.load_id, LOAD_ID_IN_PATH, ['id'], true);
      const now = await conversationOf(tx, r.offer.load_id, carrierId);
      if (now.rounds !== r.round || now.lastCounter !== r.counter.amount) return;
      await saveConversation(tx, scope, r.offer.load_id, carrierId, r.before.conversation);
      await setCounterAmount(tx, scope, r.offer.id, r.before.counterAmount, r.offer.updated_by_id);
    });
  }

  private async shape(tx: DbOrTx, scope: OrgScope, r: Recorded): Promise<OfferCounter> {
    const fresh = defined(await findOffer(tx, scope, r.offer.id), 'offer');
    const [offer] = await toOffers(tx, scope, [fresh]);
    return {
      offer: defined(offer, 'offer'),
      amount: r.counter.amount,
      round: r.round,
      max_rounds: r.maxRounds,
      final: r.counter.kind === 'final',
      outreach_id: r.conversation.outreachId,
    };
  }
}
