// The shapes of the offer intake that other modules name, apart from the intake's code.

import type { OfferDecision } from '../../domain/negotiation.js';
import type { NegotiationPolicy } from '../../domain/negotiation-policy.js';
import type { OrgScope } from '../../domain/scope.js';

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
}

export interface OfferOutcome {
  offerId: string | null;
  decision: OfferDecision;
  status: 'pending' | 'accepted' | 'rejected' | null;
  amount: number;
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

/** A carrier's reply that names no rate: a refusal, or anything else. */
export interface CarrierReply {
  loadId: string;
  carrierId: string;
  said: 'declined' | 'no_rate';
}

/**
 * Takes a carrier's offer (OfferIntake.receive) or a reply without one (OfferIntake.hear); given to
 * other modules by the composition root.
 */
export interface OfferReceiver {
  receive(scope: OrgScope, o: CarrierOffer): Promise<OfferOutcome>;
  hear(scope: OrgScope, r: CarrierReply): Promise<OfferDecision>;
}
