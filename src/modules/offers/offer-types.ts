// The shapes of the offer intake that other modules name, apart from the intake's code.

import type { DbOrTx } from '../../db/client.js';
import type { CarrierSaid, OfferDecision } from '../../domain/negotiation.js';
import type { NegotiationPolicy } from '../../domain/negotiation-policy.js';
import type { OrgScope } from '../../domain/scope.js';
import type { GateVerdict } from '../outreaches/index.js';

/** The channel a carrier named the rate on: a call, an e-mail, WhatsApp. */
export type OfferChannel = 'voice' | 'email' | 'messaging';

export interface CarrierOffer {
  loadId: string;
  carrierId: string | null;
  amount: number;
  channel: OfferChannel;
  callId?: string | null;
  notes?: string | null;
  conversationId?: string | null;
  emailMessageId?: string | null;
  /** The carrier's yes to the amount the agent asked it to confirm (only a confirmed amount books). */
  confirmed?: boolean;
  /**
   * false when nobody can ask the carrier to confirm (an amount the post-call analysis heard after
   * the call ended): an amount that would book waits for a rep instead.
   */
  confirmable?: boolean;
}

/** What a carrier said about one load in one turn, with the gate's verdict on it (OfferIntake.take). */
export interface OfferTurn extends Omit<CarrierOffer, 'amount' | 'confirmed'> {
  said: CarrierSaid;
  verdict: GateVerdict;
  /** A quote held for vetting, released: the decision is written on that offer instead of a new one. */
  replaces?: string;
  /** Whether the carrier passed vetting (PASSED, low risk), when the caller has read it already. */
  carrierPassed?: boolean;
}

export interface OfferOutcome {
  offerId: string | null;
  decision: OfferDecision;
  status: 'pending' | 'accepted' | 'rejected' | null;
  /** The carrier's amount, when it said one. */
  amount: number | null;
  /** Why the gate refused the carrier on this load (OfferIntake.receive), when it did. */
  refused?: string;
}

/**
 * What the organization decided about carriers' offers: its negotiation policy, and whether one at
 * or under the posted rate books the load at once. The agent's settings hold it; the composition
 * gives it to the intake.
 */
export interface OfferPolicy {
  of(
    organizationId: string,
  ): Promise<{ autoAcceptAtOrUnderPostedRate: boolean; negotiation: NegotiationPolicy }>;
}

/**
 * Takes a carrier's offer on its own (OfferIntake.receive) or one load of a carrier's turn
 * (OfferIntake.take); given to other modules by the composition root.
 */
export interface OfferReceiver {
  receive(scope: OrgScope, o: CarrierOffer): Promise<OfferOutcome>;
  /** The organization's offer policy, read once per turn and handed to `take`. */
  policyOf(organizationId: string): Promise<OfferPolicyOf>;
  /** One load of a carrier's turn, in the turn's transaction. */
  take(tx: DbOrTx, scope: OrgScope, policy: OfferPolicyOf, t: OfferTurn): Promise<OfferOutcome>;
}

export type OfferPolicyOf = Awaited<ReturnType<OfferPolicy['of']>>;

/** The conversation an offer was made in, where a rep's counter is said. */
export interface CounterConversation {
  outreachId: string;
  modality: 'email' | 'whatsapp';
}

/** A rep's counter as the carrier hears it: a counter, or the final round. */
export interface SaidCounter {
  kind: 'counter' | 'final';
  amount: number;
}

/** The offer a rep counters, as the channel needs it to find its conversation. */
export interface CounteredOffer {
  load_id: string;
  carrier_id: string;
  channel: 'email' | 'messaging';
  email_conversation_id: string | null;
}

/**
 * Where a rep's counter-offer is said: the offer's own conversation on its channel, through the
 * agent's messenger (the agent module fills it; the composition root hands it over).
 */
export interface CounterChannel {
  /** The e-mail or WhatsApp conversation the offer came from, or null when there is none. */
  conversationOf(
    scope: OrgScope,
    offer: {
      load_id: string;
      carrier_id: string;
      channel: 'email' | 'messaging';
      email_conversation_id: string | null;
    },
  ): Promise<CounterConversation | null>;
  /** Says the counter in that conversation and keeps the message; throws when it could not be sent. */
  say(
    scope: OrgScope,
    conversation: CounterConversation,
    counter: SaidCounter,
  ): Promise<{ messageId: string | null }>;
}
