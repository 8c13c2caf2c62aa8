import { and, eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { takesCarrierOffers } from '../../domain/freight.js';
import { newId } from '../../domain/ids.js';
import { amountOf, type CarrierSaid, type Decision, type OfferDecision } from '../../domain/negotiation.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { makeCheckDue } from '../carriers/index.js';
import { LOAD_ID_IN_BODY, requireLoad } from '../loads/index.js';
import { type GateVerdict, offerGate } from '../outreaches/index.js';
import { NEGOTIATED_LOAD_COLUMNS, negotiate, saveConversation } from './negotiation-state.js';
import { bookLoad } from './offer-booking.js';
import type { CarrierOffer, OfferOutcome, OfferPolicy, OfferPolicyOf, OfferTurn } from './offer-types.js';
import { insertOffer } from './offers-repository.js';
import { emitOfferEvent } from './offers-service.js';
import { type OfferHold, offers } from './offers-tables.js';

export type {
  CarrierOffer,
  OfferChannel,
  OfferOutcome,
  OfferPolicy,
  OfferTurn,
} from './offer-types.js';

type Policy = OfferPolicyOf;

/**
 * THE way what a carrier said about a load is taken, whatever the channel (a call's `submit_offer`,
 * an e-mail or WhatsApp reply, a quote released after vetting), inside the caller's transaction and
 * under the load's row lock (an automatic booking and a rep's accept cannot both win, two replies of
 * one carrier cannot both take a round):
 * - the load booked or past booking: `covered`, nothing recorded;
 * - the carrier not vetted under strict mode (`held` by the gate): a firm quote is recorded pending,
 *   held for vetting, a compliance check is made due, and no rate is discussed;
 * - else the negotiation decides (domain/negotiation.ts `decide`). An amount it would book is first
 *   confirmed with the carrier: recorded pending, held for confirmation, until the carrier's yes
 *   books it. An amount that is not firm is never recorded nor countered, only asked to confirm.
 * The gate's refusals never reach here: the caller answers them (or stays silent) itself.
 */
export class OfferIntake {
  constructor(
    private readonly db: Db,
    private readonly policy: OfferPolicy,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
  ) {}

  /** The organization's offer policy, read once per turn. */
  policyOf(organizationId: string): Promise<Policy> {
    return this.policy.of(organizationId);
  }

  async take(tx: DbOrTx, scope: OrgScope, policy: Policy, t: OfferTurn): Promise<OfferOutcome> {
    const said = t.said;
    const amount = 'amount' in said ? said.amount : null;
    const load = await requireLoad(
      tx,
      scope,
      t.loadId,
      LOAD_ID_IN_BODY,
      ['tms_load_id', 'load_number', 'load_status', ...NEGOTIATED_LOAD_COLUMNS],
      true,
    );
    const none = (decision: OfferDecision): OfferOutcome => ({
      offerId: null,
      decision,
      status: null,
      amount,
    });
    if (said.kind !== 'declined' && (await this.covered(tx, t.loadId, load.load_status))) {
      this.log.info({ loadId: t.loadId, carrierId: t.carrierId, amount }, 'agent: offer on a covered load');
      return none({ kind: 'covered' });
    }
    const record = (
      status: 'pending' | 'accepted' | 'rejected',
      decision: OfferDecision,
      hold: OfferHold | null,
    ) => this.record(tx, scope, t, load, status, decision, hold);

    if (t.verdict.kind === 'held' && said.kind !== 'declined') {
      // Kept for a rep, never trusted: no negotiation, no rate said, a compliance check made due.
      if (t.carrierId) await makeCheckDue(tx, scope, t.carrierId);
      if (said.kind !== 'offer') return none({ kind: 'held' });
      return record('pending', { kind: 'held' }, 'vetting');
    }

    const step = await negotiate(
      tx,
      scope,
      policy,
      t.loadId,
      load,
      t.carrierId,
      said,
      this.clock.now(),
      t.carrierPassed,
    );
    await saveConversation(tx, scope, t.loadId, t.carrierId, step.conversation);
    const { decision } = step;
    if (said.kind !== 'offer') return none(decision);
    if (said.confirmed && decision.kind === 'accept') {
      const waiting = await this.heldForConfirmation(tx, scope, t, said.amount);
      if (waiting) return this.book(tx, scope, waiting, decision);
    }
    // A firm amount that would book waits, pending, for the carrier's yes to "to confirm: ...?";
    // one nobody can ask about waits for a rep.
    if (decision.kind === 'confirm' && t.confirmable === false)
      return record('pending', { kind: 'review', amount: decision.amount }, null);
    if (decision.kind === 'confirm') return record('pending', decision, 'confirmation');
    return record(statusOf(decision), decision, null);
  }

  /** A quote on its own, in a transaction of its own, through the gate (a call's tool, a test). */
  async receive(scope: OrgScope, o: CarrierOffer): Promise<OfferOutcome> {
    const policy = await this.policy.of(scope.organizationId);
    return this.db.transaction(async (tx) => {
      const verdict = o.carrierId
        ? ((await offerGate(tx, scope, o.carrierId, [o.loadId])).get(o.loadId) ?? OPEN)
        : OPEN;
      if (verdict.kind === 'refused') {
        // Refused by the contact guard: the carrier hears it is not available to it; nothing is kept.
        return {
          offerId: null,
          decision: { kind: 'not_available' },
          status: null,
          amount: o.amount,
          refused: verdict.reason,
        };
      }
      const said: CarrierSaid = {
        kind: 'offer',
        amount: o.amount,
        ...(o.confirmed ? { confirmed: true } : {}),
      };
      return this.take(tx, scope, policy, { ...o, said, verdict });
    });
  }

  private async record(
    tx: DbOrTx,
    scope: OrgScope,
    t: OfferTurn,
    load: { tms_load_id: string | null; load_number: string | null },
    status: 'pending' | 'accepted' | 'rejected',
    decision: OfferDecision,
    hold: OfferHold | null,
  ): Promise<OfferOutcome> {
    const amount = 'amount' in t.said ? t.said.amount : 0;
    if (t.carrierId && !t.replaces) {
      // An earlier amount waiting for this carrier's confirmation is superseded by this one.
      await tx
        .update(offers)
        .set({ held_for: null })
        .where(
          and(
            eq(offers.load_id, t.loadId),
            eq(offers.carrier_id, t.carrierId),
            eq(offers.held_for, 'confirmation'),
          ),
        );
    }
    const values: Omit<typeof offers.$inferInsert, 'organization_id'> = {
      id: t.replaces ?? newId('offer'),
      load_id: t.loadId,
      tms_load_id: load.tms_load_id,
      load_number: load.load_number,
      offer_amount: amount,
      status,
      source: 'agent',
      channel: t.channel,
      carrier_id: t.carrierId,
      call_id: t.callId ?? null,
      email_conversation_id: t.channel === 'email' ? (t.conversationId ?? null) : null,
      email_message_id: t.emailMessageId ?? null,
      notes: t.notes ?? null,
      counter_amount: decision.kind === 'counter' || decision.kind === 'final' ? decision.amount : null,
      accepted_at: status === 'accepted' ? this.clock.now() : null,
      accepted_by: status === 'accepted' ? 'agent' : null,
      held_for: hold,
    };
    let offer: typeof offers.$inferSelect;
    if (t.replaces) {
      // A released quote: the same offer, now decided.
      const { id: _id, ...decided } = values;
      const [row] = await tx.update(offers).set(decided).where(eq(offers.id, t.replaces)).returning();
      offer = defined(row, 'the released offer');
      if (offer.status !== 'pending')
        await emitOfferEvent(tx, scope, 'offer.status_changed', offer, { previous_status: 'pending' });
    } else {
      offer = await insertOffer(tx, scope, values);
      await emitOfferEvent(tx, scope, 'offer.created', offer);
    }
    if (offer.status === 'accepted') await bookLoad(tx, scope, offer);
    this.log.info(
      {
        loadId: t.loadId,
        carrierId: t.carrierId,
        offerId: offer.id,
        amount,
        decision: decision.kind,
        said: amountOf(decision),
        held_for: hold,
      },
      'agent: offer received',
    );
    return { offerId: offer.id, decision, status, amount };
  }

  /** The carrier's pending offer at `amount` that waits for its confirmation. */
  private async heldForConfirmation(tx: DbOrTx, scope: OrgScope, t: OfferTurn, amount: number) {
    if (!t.carrierId) return null;
    const [row] = await tx
      .select()
      .from(offers)
      .where(
        and(
          eq(offers.organization_id, scope.organizationId),
          eq(offers.load_id, t.loadId),
          eq(offers.carrier_id, t.carrierId),
          eq(offers.held_for, 'confirmation'),
          eq(offers.status, 'pending'),
          eq(offers.offer_amount, amount),
        ),
      )
      .limit(1);
    return row ?? null;
  }

  /** The confirmed offer accepted and the load booked. */
  private async book(
    tx: DbOrTx,
    scope: OrgScope,
    waiting: typeof offers.$inferSelect,
    decision: Decision,
  ): Promise<OfferOutcome> {
    const [offer] = await tx
      .update(offers)
      .set({ status: 'accepted', held_for: null, accepted_at: this.clock.now(), accepted_by: 'agent' })
      .where(eq(offers.id, waiting.id))
      .returning();
    const booked = offer ?? waiting;
    await emitOfferEvent(tx, scope, 'offer.status_changed', booked, { previous_status: waiting.status });
    await bookLoad(tx, scope, booked);
    this.log.info(
      {
        loadId: booked.load_id,
        carrierId: booked.carrier_id,
        offerId: booked.id,
        amount: booked.offer_amount,
      },
      'agent: confirmed offer booked',
    );
    return { offerId: booked.id, decision, status: 'accepted', amount: booked.offer_amount };
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

const OPEN: GateVerdict = { kind: 'open' };

/** How the offer is stored: booked, rejected (a pass, or the earlier rule's decline), else pending. */
const statusOf = (d: OfferDecision): 'pending' | 'accepted' | 'rejected' =>
  d.kind === 'accept' ? 'accepted' : d.kind === 'pass' || d.kind === 'decline' ? 'rejected' : 'pending';
