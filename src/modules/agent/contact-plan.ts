// When and how one carrier can be contacted about a load, as pure functions: its channel (its
// own preference, then the organization's order), quiet hours in its local time, the least gap
// between two contacts of one carrier, and joining the carrier's written contact still queued.

import { defined } from '../../lib/defined.js';
import { nextContactTime, timeZoneOfState } from '../../lib/time-zones.js';

export type Channel = 'call' | 'email' | 'whatsapp';

/** Most loads one message offers. */
export const MOST_LOADS_PER_MESSAGE = 8;
/** Most loads one call offers: each is described and negotiated aloud, so fewer than in writing. */
export const MOST_LOADS_PER_CALL = 4;

/** Most loads one contact on `modality` offers (a call, else a message). */
export const mostLoadsOn = (modality: string): number =>
  modality === 'call' ? MOST_LOADS_PER_CALL : MOST_LOADS_PER_MESSAGE;

/** What the planner knows of a carrier when it plans a contact. */
export type Reach = {
  phone: string | null;
  email: string | null;
  preferred_channel: string | null;
  home_state: string | null;
  /** The carrier's latest automated contact (sent, or queued to go at `send_after`), any load. */
  last_contact_at: Date | string | null;
  /** A queued automated contact of the carrier about other loads, not sent yet, with room for one more. */
  open_bundle: OpenBundle | null;
  /** The carrier's automated contacts in the last 24 hours (for the pace); unknown: none. */
  contacts_24h?: number | null;
};

export type OpenBundle = {
  bundle_id: string;
  modality: Channel;
  address: string | null;
  conversation_id: string | null;
  send_after: Date | string;
};

export type ContactRules = {
  channelOrder: readonly Channel[];
  quietStart: number;
  quietEnd: number;
  gapMinutes: number;
  /**
   * Least minutes between a carrier's contacts once it has had one in the last 24 hours, when the
   * load is not urgent (0: only `gapMinutes`): its daily contacts spread over its hours, each
   * offering the lane loads that came in since, instead of all spent on the morning's first loads.
   */
  paceMinutes: number;
  groupLaneLoads: boolean;
  /** The zone of a carrier whose state is unknown (the load's origin, else the default). */
  fallbackZone: string;
};

export type ContactPlan =
  /** No address for any channel it may be reached on: never contacted about this load. */
  | { kind: 'unreachable'; channels: Channel[] }
  /**
   * Contacted less than the gap ago (or a contact is queued): not before `opensAt`; `paced`: held
   * by the pace of its daily contacts rather than the least gap alone.
   */
  | { kind: 'gap'; opensAt: Date; paced: boolean }
  /** Joins the carrier's queued message or call about other loads: one contact for all. */
  | { kind: 'join'; bundle: OpenBundle; sendAt: Date }
  /** Contacted on `channel` at `sendAt`: now, or when its quiet hours end. */
  | { kind: 'contact'; channel: Channel; address: string; sendAt: Date };

/** The channels to try, in order: the carrier's preference first when the organization uses it. */
export function channelsOf(preferred: string | null, order: readonly Channel[]): Channel[] {
  const first = order.find((c) => c === preferred);
  return first ? [first, ...order.filter((c) => c !== first)] : [...order];
}

/** The address a channel reaches the carrier at (WhatsApp goes to its phone number). */
export const addressOn = (c: Pick<Reach, 'phone' | 'email'>, channel: Channel) =>
  channel === 'email' ? c.email : c.phone;

/** When quiet hours let the carrier be contacted, at or after `now` (`now` itself when in hours). */
export function openTime(homeState: string | null, rules: ContactRules, now: Date): Date {
  const zone = timeZoneOfState(homeState) ?? rules.fallbackZone;
  return nextContactTime(now, zone, rules.quietStart, rules.quietEnd);
}

/** How the carrier can be contacted about a load at `now` (the caller has checked the guard and the cap). */
export function planContact(c: Reach, rules: ContactRules, now: Date): ContactPlan {
  const channels = channelsOf(c.preferred_channel, rules.channelOrder);
  const channel = channels.find((ch) => addressOn(c, ch));
  if (!channel) return { kind: 'unreachable', channels };
  const b = c.open_bundle;
  // Joins go out with the bundle: its send_after, so the dispatcher takes the bundle whole.
  if (rules.groupLaneLoads && b) return { kind: 'join', bundle: b, sendAt: new Date(b.send_after) };
  const paced = (c.contacts_24h ?? 0) > 0 && rules.paceMinutes > rules.gapMinutes;
  const gap = paced ? rules.paceMinutes : rules.gapMinutes;
  if (gap > 0 && c.last_contact_at) {
    const opensAt = new Date(new Date(c.last_contact_at).getTime() + gap * 60_000);
    if (opensAt > now) {
      const withinGap = opensAt.getTime() - (gap - rules.gapMinutes) * 60_000 > now.getTime();
      return { kind: 'gap', opensAt, paced: paced && !withinGap };
    }
  }
  return {
    kind: 'contact',
    channel,
    address: defined(addressOn(c, channel), 'addressOn(c, channel)'),
    sendAt: openTime(c.home_state, rules, now),
  };
}
