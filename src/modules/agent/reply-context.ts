/**
 * What the agent's last message to the carrier said, for reading the carrier's answer about one
 * load: the load's number, pickup day and lane, the amounts the agent named, the load's distance,
 * and the other loads the same message offered.
 */

export interface OtherLoad {
  load_number: string;
  /** YYYY-MM-DD, when the load has a pickup date. */
  pickup_date: string | null;
  posted_rate: number | null;
  /** "City, ST", when known: a carrier may name a load by its places ("the Houston one"). */
  origin?: string | null;
  destination?: string | null;
}

export interface ReadingContext {
  load_number: string;
  /** YYYY-MM-DD, when the load has a pickup date. */
  pickup_date: string | null;
  /** The rate the agent's message said. */
  posted_rate: number | null;
  /** The agent's last counter-offer to this carrier on this load. */
  our_counter: number | null;
  /** Set when the agent's last message asked "to confirm: <load> at $X all in?". */
  confirm_amount: number | null;
  /** Miles, for per-mile quotes. */
  distance: number | null;
  /** The other loads the same conversation offered. */
  other_loads: OtherLoad[];
  /** "City, ST", when known. */
  origin?: string | null;
  destination?: string | null;
}

/** A context that knows nothing but the distance: a message read on its own. */
export const contextWithDistance = (distance: number | null): ReadingContext => ({
  load_number: '',
  pickup_date: null,
  posted_rate: null,
  our_counter: null,
  confirm_amount: null,
  distance,
  other_loads: [],
});
