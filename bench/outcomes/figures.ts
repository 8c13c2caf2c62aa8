import { z } from 'zod';
import { CarrierModel, type MarketLoad } from '../../src/integrations/simulation/carrier-model.js';
import { defined } from '../../src/lib/defined.js';
import { localMinutes, timeZoneOfState } from '../../src/lib/time-zones.js';
import type { Market, SimCarrier, SimLoad } from './market.js';
import { type MissedPair, whyMissed } from './missed.js';
import type { RunResult } from './run-policy.js';

/** What one policy's run achieved, measured as a broker would: from what the service recorded. */
export interface Figures {
  loads: number;
  booked: number;
  coverage: number;
  willingLoads: number;
  coverageOfWilling: number;
  ttcP50Min: number | null;
  ttcP90Min: number | null;
  rateToCeilingP50: number | null;
  rateToCeilingP90: number | null;
  rateToMarketP50: number | null;
  rateToMarketP90: number | null;
  contacts: number;
  contactsPerBooking: number | null;
  /** Loads a contact offered, on average (a message naming several loads of a lane offers each). */
  loadsPerContact: number | null;
  offersPerBooking: number | null;
  roundsPerBooking: number | null;
  perCarrierHourP99: number;
  maxConversations10Min: number;
  /** The same, counting contacts whose placement failed too. */
  maxContacts10Min: number;
  pendingForRep: number;
  leftUncontacted: number;
  /** Offers the service recorded at an amount the carrier never said about that load. */
  wrongAmounts: number;
  /** The carriers' answers the market wrote, and those the service could not read a rate from. */
  answers: number;
  /** Up to five of the wrong amounts: what was said, what was recorded. */
  wrongExamples: string[];
  forbidden: Record<string, number>;
  /** Up to three examples of each kind of forbidden contact. */
  forbiddenExamples: string[];
  failures: number;
  /** Why: the agent's last planning outcome of each uncovered load, and the skip reasons it recorded. */
  diagnostics: {
    uncoveredOutcomes: Record<string, number>;
    skipReasons: Record<string, number>;
    /** Booked of handed, by the hour the load arrived (Chicago) and by its lead time to pickup. */
    byArrivalHour: Record<string, string>;
    byLeadHours: Record<string, string>;
    /** Bookings at or under the posted rate, of all bookings; the median booked rate / posted. */
    atPosted: string;
    missedCarriers: Record<string, number>;
    /**
     * Of those pairs, how long the carrier was in its hours and under its cap while the load was
     * open (15-minute samples), by band: the time the agent had to reach it.
     */
    missedWindow: Record<string, number>;
    /** Why the agent never contacted those carriers about those loads (see missed.ts), with examples. */
    missedWhy: { causes: Record<string, number>; examples: string[] };
  };
}

type Sent = {
  carrier_id: string;
  load_id: string;
  sent_at: Date;
  created_at: Date;
  modality: string;
  key: string;
  /** The message: loads offered together in one message share it (the outreaches' bundle). */
  message: string;
  status: string;
  /** When the carrier first answered the contact (a reply in its conversation, the call picked up). */
  answered_at: Date | null;
};

const HOUR = 3_600_000;
/**
 * A contact's sent_at is the simulation step that sent it, up to a minute after its send_after:
 * a gap is counted as within a 24-hour cap or a re-contact window only when it is shorter by more
 * than that (two contacts queued for the end of quiet hours on consecutive days are 24 hours apart,
 * give or take the step).
 */
const STEP_TOLERANCE_MS = 60_000;

export async function figuresOf(market: Market, run: RunResult): Promise<Figures> {
  const { pool } = run.database;
  const model = new CarrierModel(market.seed, 'realistic');
  const s = z
    .object({
      channel_order: z.array(z.string()),
      daily_cap_per_carrier: z.number(),
      recontact_window_hours: z.number(),
      follow_up_unanswered_minutes: z.number(),
      quiet_hours_start: z.number(),
      quiet_hours_end: z.number(),
    })
    .parse(run.settings);
  const loadIndex = new Map(run.loadIds.map((id, i) => [id, i]));
  const carrierIndex = new Map(run.carrierIds.map((id, i) => [id, i]));
  const sent = (
    await pool.query<Sent>(
      `SELECT carrier_id, load_id, sent_at, created_at, modality, coalesce(conversation_id, call_id, id) AS key,
         coalesce(bundle_id, id) AS message, status,
         least((SELECT min(m.created_at) FROM agent_messages m JOIN outreaches x ON x.id = m.outreach_id
                WHERE x.conversation_id = o.conversation_id AND m.direction = 'inbound'),
               (SELECT c.call_start_time FROM calls c WHERE c.id = o.call_id AND o.carrier_engaged)) AS answered_at
       FROM outreaches o WHERE is_automated AND sent_at IS NOT NULL ORDER BY sent_at`,
    )
  ).rows;
  const offers = (
    await pool.query<{
      load_id: string;
      carrier_id: string;
      offer_amount: number;
      status: string;
      counter_amount: number | null;
      accepted_at: Date | null;
    }>(
      `SELECT load_id, carrier_id, offer_amount::float8 AS offer_amount, status, counter_amount::float8 AS counter_amount, accepted_at
       FROM offers`,
    )
  ).rows;
  const carriers = new Map(
    (
      await pool.query<{
        id: string;
        stop_contact_requested_at: Date | null;
        compliance_status: string;
        is_active: boolean;
      }>('SELECT id, stop_contact_requested_at, compliance_status, is_active FROM carriers')
    ).rows.map((c) => [c.id, c]),
  );

  // Bookings before pickup.
  const bookedBy = new Map<number, (typeof offers)[number]>();
  for (const o of offers) {
    const l = defined(
      market.loads[defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')],
      'market.loads[loadIndex.get(o.load_id)]',
    );
    if (o.status === 'accepted' && o.accepted_at && o.accepted_at.getTime() <= l.pickupAt)
      bookedBy.set(l.index, o);
  }
  const willing = market.loads.filter((l) => lanesCarriers(market, l).some((c) => willingOn(model, c, l)));
  const booked = [...bookedBy.entries()];
  const ttc = booked.map(
    ([i, o]) =>
      (defined(o.accepted_at, 'o.accepted_at').getTime() -
        defined(market.loads[i], 'market.loads[i]').arrivesAt) /
      60_000,
  );
  const toCeiling = booked.map(
    ([i, o]) => o.offer_amount / defined(market.loads[i], 'market.loads[i]').ceiling,
  );
  const toMarket = booked.map(
    ([i, o]) => o.offer_amount / defined(market.loads[i], 'market.loads[i]').market,
  );
  const winnerOffers = booked.map(
    ([, o]) => offers.filter((x) => x.load_id === o.load_id && x.carrier_id === o.carrier_id).length,
  );
  const offersOnBooked = offers.filter((o) =>
    bookedBy.has(defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')),
  ).length;

  // Contacts per carrier: per clock hour, and separate conversations in any 10 minutes.
  // A message naming several loads is one contact for the carrier (as the agent's cap counts it).
  const perHour = new Map<string, number>();
  const byCarrier = new Map<string, Sent[]>();
  const messagesOf = new Map<string, Sent[]>();
  const seenMessages = new Set<string>();
  for (const o of sent) {
    byCarrier.set(o.carrier_id, [...(byCarrier.get(o.carrier_id) ?? []), o]);
    if (seenMessages.has(o.message)) continue;
    seenMessages.add(o.message);
    const k = `${o.carrier_id}|${Math.floor(o.sent_at.getTime() / HOUR)}`;
    perHour.set(k, (perHour.get(k) ?? 0) + 1);
    messagesOf.set(o.carrier_id, [...(messagesOf.get(o.carrier_id) ?? []), o]);
  }
  // A conversation is a contact that reached the carrier: a placement that failed (a dead number,
  // a bounced e-mail, a WhatsApp number that is a landline) never rang or arrived.
  const mostIn10Min = (reached: boolean) => {
    let most = 0;
    for (const all of byCarrier.values()) {
      const list = reached ? all.filter((o) => o.status !== 'failed') : all;
      list.forEach((from, i) => {
        const keys = new Set<string>();
        for (const o of list.slice(i)) {
          if (o.sent_at.getTime() - from.sent_at.getTime() >= 10 * 60_000) break;
          keys.add(o.key);
        }
        most = Math.max(most, keys.size);
      });
    }
    return most;
  };
  const maxConversations = mostIn10Min(true);
  const maxContacts10Min = mostIn10Min(false);

  // Forbidden contacts.
  const forbidden = {
    stop_contact: 0,
    restricted_or_blocked: 0,
    daily_cap: 0,
    quiet_hours: 0,
    recontact_window: 0,
    above_ceiling: 0,
  };
  const examples: string[] = [];
  const breach = (kind: keyof typeof forbidden, o: Sent, others: Sent[] = []) => {
    if (forbidden[kind]++ < 3) {
      const at = (x: Sent) =>
        `${x.modality} about ${x.load_id} created ${x.created_at.toISOString()} sent ${x.sent_at.toISOString()}`;
      examples.push(`${kind}: carrier ${o.carrier_id}: ${[...others, o].map(at).join('; ')}`);
    }
  };
  for (const list of byCarrier.values()) {
    for (let i = 0; i < list.length; i++) {
      const o = defined(list[i], 'list[i]');
      const c = defined(
        market.carriers[defined(carrierIndex.get(o.carrier_id), 'carrierIndex.get(o.carrier_id)')],
        'market.carriers[carrierIndex.get(o.carrier_id)]',
      );
      const row = defined(carriers.get(o.carrier_id), 'carriers.get(o.carrier_id)');
      const l = defined(
        market.loads[defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')],
        'market.loads[loadIndex.get(o.load_id)]',
      );
      if (row.stop_contact_requested_at && row.stop_contact_requested_at < o.sent_at)
        breach('stop_contact', o);
      const membership = c.lanes.find((m) => m.lane === l.lane);
      if (membership?.preference === 'restricted' || !row.is_active || row.compliance_status === 'BLOCKED') {
        breach('restricted_or_blocked', o);
      }
      const inDay = (messagesOf.get(o.carrier_id) ?? []).filter(
        (x) =>
          x.sent_at <= o.sent_at && o.sent_at.getTime() - x.sent_at.getTime() < 24 * HOUR - STEP_TOLERANCE_MS,
      );
      if (inDay.length > s.daily_cap_per_carrier) breach('daily_cap', o, inDay.slice(0, -1));
      if (quiet(o.sent_at.getTime(), c, s.quiet_hours_start, s.quiet_hours_end)) breach('quiet_hours', o);
      const earlier = list
        .slice(0, i)
        .filter(
          (x) =>
            x.load_id === o.load_id &&
            x.key !== o.key &&
            o.sent_at.getTime() - x.sent_at.getTime() < s.recontact_window_hours * HOUR - STEP_TOLERANCE_MS,
        );
      // The one follow-up the settings allow: an urgent load, one earlier contact never answered.
      const first = earlier[0];
      const followUp =
        earlier.length === 1 &&
        first !== undefined &&
        s.follow_up_unanswered_minutes > 0 &&
        (first.answered_at === null || first.answered_at > o.sent_at) &&
        first.status !== 'failed' &&
        o.sent_at.getTime() - first.sent_at.getTime() >= s.follow_up_unanswered_minutes * 60_000 &&
        l.pickupAt - o.sent_at.getTime() < 12 * HOUR + STEP_TOLERANCE_MS;
      if (earlier.length && !followUp) breach('recontact_window', o, earlier);
    }
  }
  for (const o of offers) {
    const l = defined(
      market.loads[defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')],
      'market.loads[loadIndex.get(o.load_id)]',
    );
    if ((o.status === 'accepted' && o.offer_amount > l.ceiling) || (o.counter_amount ?? 0) > l.ceiling) {
      forbidden.above_ceiling++;
    }
  }

  // Loads not covered that had an eligible, reachable carrier never contacted about them, in its
  // hours and under its daily cap at some moment while the load was open.
  const contacted = new Set(sent.map((o) => `${o.carrier_id}|${o.load_id}`));
  const sentTimes = new Map([...messagesOf].map(([id, list]) => [id, list.map((o) => o.sent_at.getTime())]));
  const underCap = (carrierId: string, t: number) => {
    const times = sentTimes.get(carrierId) ?? [];
    return countBetween(times, t - 24 * HOUR, t) < s.daily_cap_per_carrier;
  };
  let leftUncontacted = 0;
  /** The carriers behind `leftUncontacted`: without a working e-mail (reached by calls, one load each) or with one. */
  const missedCarriers: Record<string, number> = {};
  const missedPairs: MissedPair[] = [];
  const missedWindow: Record<string, number> = {};
  const STEP = 15 * 60_000;
  for (const l of market.loads) {
    if (bookedBy.has(l.index)) continue;
    const loadId = defined(run.loadIds[l.index], 'run.loadIds[l.index]');
    /** Minutes the carrier could have been contacted about the load: in its hours, under its cap. */
    const reachableMinutes = (c: SimCarrier, id: string) => {
      let samples = 0;
      for (let t = l.arrivesAt; t < l.pickupAt; t += STEP) {
        if (!quiet(t, c, s.quiet_hours_start, s.quiet_hours_end) && underCap(id, t)) samples++;
      }
      return (samples * STEP) / 60_000;
    };
    const missedBy = lanesCarriers(market, l).flatMap((c): { c: SimCarrier; minutes: number }[] => {
      const id = defined(run.carrierIds[c.index], 'run.carrierIds[c.index]');
      const row = defined(carriers.get(id), 'carriers.get(id)');
      if (contacted.has(`${id}|${loadId}`)) return [];
      if (c.lanes.find((m) => m.lane === l.lane)?.preference !== 'primary') return [];
      if (row.stop_contact_requested_at && row.stop_contact_requested_at.getTime() < l.pickupAt) return [];
      if (!row.is_active || row.compliance_status === 'BLOCKED') return [];
      if (!reachable(c, s.channel_order)) return [];
      const minutes = reachableMinutes(c, id);
      if (minutes === 0) return [];
      const band = minutes < 30 ? 'under 30 min' : minutes < 120 ? '30 min to 2 h' : '2 h or more';
      missedWindow[band] = (missedWindow[band] ?? 0) + 1;
      return [{ c, minutes }];
    });
    if (missedBy.length) leftUncontacted++;
    for (const { c, minutes } of missedBy) {
      missedPairs.push({ load: l, carrier: c, minutes });
      const kind = !c.email || c.persona.badEmail ? 'no_working_email' : 'with_email';
      missedCarriers[kind] = (missedCarriers[kind] ?? 0) + 1;
    }
  }
  const pendingForRep = new Set(
    offers
      .filter(
        (o) =>
          o.status === 'pending' &&
          o.offer_amount <=
            defined(
              market.loads[defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')],
              'market.loads[loadIndex.get(o.load_id)]',
            ).ceiling,
      )
      .filter((o) => !bookedBy.has(defined(loadIndex.get(o.load_id), 'loadIndex.get(o.load_id)')))
      .map((o) => o.load_id),
  ).size;

  const share = (key: (l: SimLoad) => string) => {
    const all = new Map<string, [number, number]>();
    for (const l of market.loads) {
      const k = key(l);
      const [b, n] = all.get(k) ?? [0, 0];
      all.set(k, [b + (bookedBy.has(l.index) ? 1 : 0), n + 1]);
    }
    return Object.fromEntries([...all].sort().map(([k, [b, n]]) => [k, `${b}/${n}`]));
  };
  const counts = async (text: string) =>
    Object.fromEntries(
      (await pool.query<{ k: string; n: number }>(text, [run.loadIds])).rows.map((r) => [r.k ?? 'none', r.n]),
    );
  const uncoveredIds = market.loads.filter((l) => !bookedBy.has(l.index)).map((l) => run.loadIds[l.index]);
  const diagnostics = {
    uncoveredOutcomes: Object.fromEntries(
      (
        await pool.query<{ k: string; n: number }>(
          `SELECT coalesce(last_outcome, 'never planned') AS k, count(*)::int AS n FROM agent_load_states
           WHERE load_id = ANY($1::text[]) GROUP BY 1 ORDER BY 2 DESC`,
          [uncoveredIds],
        )
      ).rows.map((r) => [r.k, r.n]),
    ),
    skipReasons: await counts(
      `SELECT split_part(reason, ':', 1) AS k, count(*)::int AS n FROM agent_activity
       WHERE kind = 'carrier_skipped' AND load_id = ANY($1::text[]) GROUP BY 1 ORDER BY 2 DESC LIMIT 8`,
    ),
    byArrivalHour: share((l) =>
      String(Math.floor(localMinutes(new Date(l.arrivesAt), 'America/Chicago') / 60)).padStart(2, '0'),
    ),
    atPosted: `${booked.filter(([i, o]) => o.offer_amount <= defined(market.loads[i], 'load').posted).length}/${booked.length}, median booked / posted ${(
      (pct(
        booked.map(([i, o]) => o.offer_amount / defined(market.loads[i], 'load').posted),
        50,
      ) ?? 0) * 100
    ).toFixed(1)}%`,
    missedCarriers,
    missedWindow,
    missedWhy: await whyMissed(
      pool,
      missedPairs,
      run.loadIds,
      run.carrierIds,
      new Map(market.loads.map((l) => [defined(run.loadIds[l.index], 'load id'), l.lane])),
    ),
    byLeadHours: share((l) => {
      const h = (l.pickupAt - l.arrivesAt) / HOUR;
      return h < 12 ? '04-12' : h < 36 ? '12-36' : '36-72';
    }),
  };
  const willingBooked = willing.filter((l) => bookedBy.has(l.index)).length;
  const wrong = wrongAmounts(market, run, offers);
  return {
    loads: market.loads.length,
    booked: booked.length,
    coverage: booked.length / market.loads.length,
    willingLoads: willing.length,
    coverageOfWilling: willing.length ? willingBooked / willing.length : 0,
    ttcP50Min: pct(ttc, 50),
    ttcP90Min: pct(ttc, 90),
    rateToCeilingP50: pct(toCeiling, 50),
    rateToCeilingP90: pct(toCeiling, 90),
    rateToMarketP50: pct(toMarket, 50),
    rateToMarketP90: pct(toMarket, 90),
    contacts: seenMessages.size,
    loadsPerContact: seenMessages.size ? sent.length / seenMessages.size : null,
    contactsPerBooking: booked.length ? seenMessages.size / booked.length : null,
    offersPerBooking: booked.length ? offersOnBooked / booked.length : null,
    roundsPerBooking: booked.length ? winnerOffers.reduce((a, b) => a + b, 0) / booked.length : null,
    perCarrierHourP99: pct([...perHour.values()], 99) ?? 0,
    maxConversations10Min: maxConversations,
    maxContacts10Min,
    pendingForRep,
    leftUncontacted,
    wrongAmounts: wrong.count,
    wrongExamples: wrong.examples,
    answers: run.events.filter((e) => e.kind === 'said').length,
    forbidden,
    forbiddenExamples: examples,
    failures: run.failures.length,
    diagnostics,
  };
}

/**
 * Offers recorded at an amount the carrier never said about the load (a quote, or a yes to a
 * counter): the reader took another number (ours echoed, another load's, a phone number) for the
 * carrier's price.
 */
function wrongAmounts(
  market: Market,
  run: RunResult,
  offers: { load_id: string; carrier_id: string; offer_amount: number }[],
) {
  const said = new Map<string, Set<number>>();
  for (const e of run.events) {
    if (e.kind !== 'said' || e.amount === null) continue;
    const k = `${e.carrierKey}|${e.loadNumber}`;
    said.set(k, (said.get(k) ?? new Set()).add(e.amount));
  }
  const keyOf = new Map(
    run.carrierIds.map((id, i) => [id, `mc:${defined(market.carriers[i], 'carrier').mc}`]),
  );
  const numberOf = new Map(run.loadIds.map((id, i) => [id, defined(market.loads[i], 'load').number]));
  let count = 0;
  const examples: string[] = [];
  for (const o of offers) {
    const k = `${keyOf.get(o.carrier_id)}|${numberOf.get(o.load_id)}`;
    if (said.get(k)?.has(o.offer_amount)) continue;
    count++;
    if (examples.length < 5)
      examples.push(
        `${k}: said ${[...(said.get(k) ?? [])].join(', ') || 'no amount'}; recorded ${o.offer_amount}`,
      );
  }
  return { count, examples };
}

/** The carriers on the load's lane. */
function lanesCarriers(market: Market, l: SimLoad): SimCarrier[] {
  return market.carriers.filter((c) => c.lanes.some((m) => m.lane === l.lane));
}

/** Eligible (primary on the lane, active, not stopped or blocked), reachable, and willing at or under the ceiling. */
function willingOn(model: CarrierModel, c: SimCarrier, l: SimLoad): boolean {
  const m = c.lanes.find((x) => x.lane === l.lane);
  if (
    m?.preference !== 'primary' ||
    !c.active ||
    c.stopped ||
    c.persona.asksToStop ||
    c.compliance === 'blocked'
  )
    return false;
  if (!reachable(c, ['call', 'email', 'whatsapp'])) return false;
  const facts = marketLoadOf(l, m.tier);
  return model.hasTruck(c.persona, facts) && model.reservation(c.persona, facts) <= l.ceiling;
}

/** The load as the product's simulated market knows it (what the product records of it). */
export const marketLoadOf = (l: SimLoad, tier: number | null): MarketLoad => ({
  number: l.number,
  postedRate: l.posted,
  suggestedMarketRate: l.suggested,
  distance: l.miles,
  equipment: l.equipment,
  pickupAt: l.pickupAt,
  handedAt: l.arrivesAt,
  tier,
});

/** Whether the carrier has a working address for a channel of the order. */
function reachable(c: SimCarrier, order: string[]): boolean {
  return order.some((ch) =>
    ch === 'email'
      ? !!c.email && !c.persona.badEmail
      : ch === 'call'
        ? !!c.phone && !c.persona.deadPhone
        : !!c.phone && !c.persona.landline && !c.persona.deadPhone,
  );
}

function quiet(at: number, c: SimCarrier, start: number, end: number): boolean {
  if (start === end) return false;
  const minute = localMinutes(new Date(at), timeZoneOfState(c.homeState) ?? 'America/Chicago');
  return start < end ? minute >= start * 60 && minute < end * 60 : minute >= start * 60 || minute < end * 60;
}

/** How many of the sorted `times` are in (from, to]. */
function countBetween(times: number[], from: number, to: number): number {
  const upper = (x: number) => {
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (defined(times[mid], 'times[mid]') <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return upper(to) - upper(from);
}

function pct(values: number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return defined(
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)],
    'sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]',
  );
}
