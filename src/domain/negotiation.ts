/**
 * Negotiation inside the load's numbers, as a pure decision. The agent may quote the posted rate
 * and nothing else: the customer rate, the margin and the max buy rate are never in a reply.
 */
export type OfferDecision =
  /** Recorded pending for a rep. */
  | { kind: 'review' }
  /** At or under the posted rate where the organization books automatically. */
  | { kind: 'accept' }
  /** Over the posted rate, within the limit: one counter-offer at the posted rate. */
  | { kind: 'counter'; amount: number }
  /** Over the max buy rate: recorded and declined politely. */
  | { kind: 'decline' }
  /** The load is booked or past booking: nothing to negotiate. */
  | { kind: 'covered' };

export interface OfferContext {
  amount: number;
  postedRate: number | null;
  maxBuyRate: number | null;
  /** The agent already countered this carrier on this load: no second counter. */
  alreadyCountered: boolean;
  autoAccept: boolean;
}

export function decideOffer(o: OfferContext): OfferDecision {
  if (o.maxBuyRate !== null && o.amount > o.maxBuyRate) return { kind: 'decline' };
  if (o.postedRate === null) return { kind: 'review' };
  if (o.amount <= o.postedRate) return o.autoAccept ? { kind: 'accept' } : { kind: 'review' };
  return o.alreadyCountered ? { kind: 'review' } : { kind: 'counter', amount: o.postedRate };
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

export type ReplyIntent =
  | 'first_contact'
  | 'review'
  | 'accept'
  | 'counter'
  | 'decline'
  | 'ask_rate'
  | 'not_available'
  | 'stop_confirmed'
  | 'restriction_notice'
  | 'covered';

export interface LoadSummary {
  load_number: string;
  equipment_type: string;
  origin: string;
  destination: string;
  pickup_date: Date | null;
  posted_rate: number | null;
}

/** One line describing the load: lane, equipment, pickup and posted rate. Nothing internal. */
export function describeLoad(l: LoadSummary): string {
  const pickup = l.pickup_date ? `, pickup ${l.pickup_date.toISOString().slice(0, 10)}` : '';
  const rate = l.posted_rate !== null ? `, posted rate ${usd(l.posted_rate)}` : '';
  return `load ${l.load_number}: ${l.origin} to ${l.destination}, ${l.equipment_type}${pickup}${rate}`;
}

/** The agent's default wording (an LLM may draft instead, from the same inputs). */
export function replyText(
  intent: ReplyIntent,
  load: LoadSummary,
  carrierName: string,
  amount?: number | null,
  detail?: string | null,
): string {
  const about = describeLoad(load);
  switch (intent) {
    case 'first_contact':
      return `Hi ${carrierName}, we have ${about}. Do you have a truck for it? Reply with your rate, all in.`;
    case 'review':
      return `Thanks, we have your rate of ${usd(amount ?? 0)} for load ${load.load_number}. A rep will confirm shortly.`;
    case 'accept':
      return `Thanks, load ${load.load_number} is booked with you at ${usd(amount ?? 0)}. A rep will send the rate confirmation.`;
    case 'counter':
      return `Thanks for the quote. We can do ${usd(amount ?? 0)} on load ${load.load_number}. Does that work for you?`;
    case 'decline':
      return `Thanks for the quote. ${usd(amount ?? 0)} is more than we can do on load ${load.load_number}, so we will pass this time. We will keep you in mind for the next one.`;
    case 'ask_rate':
      return `Thanks! What rate would you need for load ${load.load_number}, all in?`;
    case 'covered':
      return `Thanks for getting back to us. Load ${load.load_number} is already covered; we will reach out with the next one.`;
    case 'not_available':
      return `No problem, thanks for letting us know. We will reach out with the next one.`;
    case 'stop_confirmed':
      return `Understood. We have removed you from our outreach and will not contact you again.`;
    case 'restriction_notice':
      return `Hello ${carrierName}, our records show your account is currently on hold with us${detail ? ` (${detail})` : ''}. Please contact your carrier representative to resolve it; we cannot discuss loads until then.`;
  }
}
