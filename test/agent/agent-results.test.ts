import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseCsv } from '../../src/lib/csv.js';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  carrierEmail,
  type Headers,
  laneCarrier,
  loadBody,
  type Outreach,
  outreachesOf,
  passing,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';

/** What the test knows of each handed load, from what it did and what the API answered. */
interface Known {
  id: string;
  lane: string;
  equipment: string;
  customer: string;
  rep: string | null;
  pickup: Date | null;
  posted: number;
  market: number;
  max: number;
  customerRate: number;
  contacts: number;
  connects: number;
  offers: number;
  counters: number;
  handoff: boolean;
  handedAt: Date;
  /** The booking still standing, if any. */
  booking: { by: 'agent' | 'user'; afterContact: boolean; amount: number; at: Date } | null;
  /** The booking's carrier tier and channel, kept by a booking that fell off too. */
  tier: number | null;
  channel: string | null;
  bookings: number;
  fallOffs: number;
}

/** PostgreSQL's percentile_cont: linear interpolation between the sorted values. */
function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return (
    defined(sorted[lo], 'sorted[lo]') +
    (defined(sorted[hi], 'sorted[hi]') - defined(sorted[lo], 'sorted[lo]')) * (at - lo)
  );
}

const r4 = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));
const r3 = (v: number | null) => (v === null ? null : Number(v.toFixed(3)));
const ratio = (n: number, d: number) => (d > 0 ? r4(n / d) : null);

/** The figures of one group, computed from the known loads alone (the oracle the API is held to). */
function expectedRow(group: string | null, loads: Known[], margins: boolean) {
  const covered = loads.filter((l) => l.booking && (l.booking.by === 'agent' || l.booking.afterContact));
  const amounts = (d: (l: Known) => number) =>
    covered.map((l) => defined(l.booking, 'l.booking').amount / d(l));
  const contacts = loads.reduce((s, l) => s + l.contacts, 0);
  const aboveMax = covered.filter((l) => defined(l.booking, 'l.booking').amount > l.max);
  return {
    group,
    loads_handed: loads.length,
    booked_by_agent: loads.filter((l) => l.booking?.by === 'agent').length,
    booked_by_user_after_contact: loads.filter((l) => l.booking?.by === 'user' && l.booking.afterContact)
      .length,
    booked_by_user_without_contact: loads.filter((l) => l.booking?.by === 'user' && !l.booking.afterContact)
      .length,
    covered: covered.length,
    coverage_rate: ratio(covered.length, loads.length),
    agent_coverage_rate: ratio(loads.filter((l) => l.booking?.by === 'agent').length, loads.length),
    time_to_cover_p50_seconds: r3(
      percentile(
        covered.map((l) => (defined(l.booking, 'l.booking').at.getTime() - l.handedAt.getTime()) / 1000),
        0.5,
      ),
    ),
    time_to_cover_p90_seconds: r3(
      percentile(
        covered.map((l) => (defined(l.booking, 'l.booking').at.getTime() - l.handedAt.getTime()) / 1000),
        0.9,
      ),
    ),
    booking_lead_time_p50_seconds: r3(
      percentile(
        covered
          .filter((l) => l.pickup)
          .map(
            (l) =>
              (defined(l.pickup, 'l.pickup').getTime() - defined(l.booking, 'l.booking').at.getTime()) / 1000,
          ),
        0.5,
      ),
    ),
    booked_vs_posted_median: r4(
      percentile(
        amounts((l) => l.posted),
        0.5,
      ),
    ),
    booked_vs_posted_count: covered.length,
    booked_vs_market_median: r4(
      percentile(
        amounts((l) => l.market),
        0.5,
      ),
    ),
    booked_vs_market_count: covered.length,
    booked_vs_max_buy_median: r4(
      percentile(
        amounts((l) => l.max),
        0.5,
      ),
    ),
    booked_vs_max_buy_count: covered.length,
    booked_above_max_buy: aboveMax.length,
    booked_above_max_buy_rate: ratio(aboveMax.length, covered.length),
    agent_booked_above_max_buy: aboveMax.filter((l) => defined(l.booking, 'l.booking').by === 'agent').length,
    margin_pct_median: margins
      ? r4(
          percentile(
            covered.map((l) => (l.customerRate - defined(l.booking, 'l.booking').amount) / l.customerRate),
            0.5,
          ),
        )
      : null,
    margin_count: margins ? covered.length : null,
    contacts: { call: 0, email: contacts, whatsapp: 0, total: contacts },
    contacts_per_booking: {
      call: ratio(0, covered.length),
      email: ratio(contacts, covered.length),
      whatsapp: ratio(0, covered.length),
      total: ratio(contacts, covered.length),
    },
    connects: loads.reduce((s, l) => s + l.connects, 0),
    connect_rate: ratio(
      loads.reduce((s, l) => s + l.connects, 0),
      contacts,
    ),
    offers: loads.reduce((s, l) => s + l.offers, 0),
    offers_per_load: ratio(
      loads.reduce((s, l) => s + l.offers, 0),
      loads.length,
    ),
    rounds: covered.reduce((s, l) => s + l.offers + l.counters, 0),
    rounds_per_booking: ratio(
      covered.reduce((s, l) => s + l.offers + l.counters, 0),
      covered.length,
    ),
    bookings: loads.reduce((s, l) => s + l.bookings, 0),
    fall_offs: loads.reduce((s, l) => s + l.fallOffs, 0),
    fall_off_rate: ratio(
      loads.reduce((s, l) => s + l.fallOffs, 0),
      loads.reduce((s, l) => s + l.bookings, 0),
    ),
    loads_with_handoff: loads.filter((l) => l.handoff).length,
    handoff_rate: ratio(loads.filter((l) => l.handoff).length, loads.length),
  };
}

const GROUPS: Record<string, (l: Known) => string> = {
  lane: (l) => l.lane,
  equipment_type: (l) => l.equipment,
  tier: (l) => (l.tier === null ? 'none' : String(l.tier)),
  channel: (l) => l.channel ?? 'none',
  customer_name: (l) => l.customer,
  carrier_rep_user_id: (l) => l.rep ?? 'none',
  day: (l) => l.handedAt.toISOString().slice(0, 10),
  week: (l) => {
    const monday = new Date(l.handedAt);
    monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7));
    return monday.toISOString().slice(0, 10);
  },
};

function expectedRows(groupBy: string | null, loads: Known[], margins = true) {
  if (!groupBy) return [expectedRow(null, loads, margins)];
  const groups = new Map<string, Known[]>();
  for (const l of loads) {
    const key = defined(GROUPS[groupBy], 'GROUPS[groupBy]')(l);
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  return [...groups.keys()]
    .sort()
    .map((key) => expectedRow(key, defined(groups.get(key), 'groups.get(key)'), margins));
}

describe('the agent’s results', () => {
  const t = useTestApp({ env: { ...agentEnv, WORKERS_ENABLED: 'false' } });

  const get = async (h: Headers, url: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: h });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const patchOffer = async (h: Headers, id: string, status: string) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${id}`,
      headers: h,
      payload: { status },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  /** Ten loads handed to the agent, six booked (two by a user), one of them falling off. */
  async function history() {
    const { user, h } = await tenant(t, {
      auto_accept_at_or_under_posted_rate: true,
      daily_cap_per_carrier: 100,
      // One conversation per load: each reply below answers about its own load.
      carrier_min_gap_minutes: 0,
      group_lane_loads: false,
      // The two tier 1 carriers fill the first wave (the loads pick up soon: a wave may cross tiers).
      wave_size: 2,
    });
    const carriers = [
      await laneCarrier(t, h, { routing_guide_tier: 1, ...passing() }),
      await laneCarrier(t, h, { routing_guide_tier: 1, ...passing() }),
      await laneCarrier(t, h),
    ];
    const emails = new Map(
      await Promise.all(carriers.map(async (c) => [c, await carrierEmail(t, h, c)] as const)),
    );
    const rates = { posted_rate: 2000, max_buy_rate: 2400, suggested_market_rate: 2100, customer_rate: 2900 };
    const ilTx = [];
    for (let i = 0; i < 6; i++) {
      ilTx.push(
        await agentLoad(t, h, {
          ...rates,
          customer_name: i < 3 ? 'Acme Foods' : 'Globex',
          carrier_rep_user_id: i % 2 ? 'usr_rep_b' : 'usr_rep_a',
        }),
      );
    }
    // No carrier runs this lane: the agent has no one to contact.
    const caAz = [];
    for (let i = 0; i < 4; i++) {
      caAz.push(
        await agentLoad(t, h, {
          ...rates,
          equipment_type: 'REEFER',
          customer_name: 'Acme Foods',
          stops: [
            {
              type: 'Pickup',
              location: { city: 'Fresno', state: 'CA' },
              expected_date: '2026-12-01T15:00:00Z',
            },
            {
              type: 'Dropoff',
              location: { city: 'Phoenix', state: 'AZ' },
              expected_date: '2026-12-02T15:00:00Z',
            },
          ],
        }),
      );
    }
    await agentRound(t);
    const contacted = new Map<string, Outreach[]>();
    for (const id of [...ilTx, ...caAz]) {
      contacted.set(
        id,
        (await outreachesOf(t, h, id)).filter((o) => o.is_automated && o.status === 'active'),
      );
    }
    const out = (loadId: string, carrierId: string) =>
      defined(
        defined(contacted.get(loadId), 'contacted.get(loadId)').find((o) => o.carrier_id === carrierId),
        'contacted.get(loadId).find((o) => o.carrier_id === carrierId)',
      );
    // The agent books four loads on the carriers' replies (at or under the posted rate).
    const amounts = [1900, 2000, 1800, 1950];
    for (const [i, amount] of amounts.entries()) {
      const o = out(defined(ilTx[i], 'ilTx[i]'), defined(carriers[i % 2], 'carriers[i % 2]'));
      const res = await reply(
        t,
        o,
        defined(emails.get(o.carrier_id), 'emails.get(o.carrier_id)'),
        `We can do ${amount} all in`,
      );
      // The posted rate itself is the agent's own number: booked at once. Under it, the carrier's
      // yes to "to confirm: ...?" books it.
      if (amount === 2000) {
        expect(res.json(), res.body).toMatchObject({ reason: 'accept' });
        continue;
      }
      expect(res.json(), res.body).toMatchObject({ reason: 'confirm' });
      const yes = await reply(t, o, defined(emails.get(o.carrier_id), 'emails.get(o.carrier_id)'), 'yes');
      expect(yes.json(), yes.body).toMatchObject({ reason: 'accept' });
    }
    // The fifth: countered, the carrier comes down within the agent's next step (over the posted
    // rate, so not booked automatically), and it is left for a rep (a handoff), who accepts it.
    const o5 = out(defined(ilTx[4], 'ilTx[4]'), defined(carriers[0], 'carriers[0]'));
    expect(
      (
        await reply(
          t,
          o5,
          defined(emails.get(o5.carrier_id), 'emails.get(o5.carrier_id)'),
          '2300 and we roll',
        )
      ).json(),
    ).toMatchObject({
      reason: 'counter',
    });
    expect(
      (
        await reply(
          t,
          o5,
          defined(emails.get(o5.carrier_id), 'emails.get(o5.carrier_id)'),
          'Best I can do is 2100',
        )
      ).json(),
    ).toMatchObject({
      reason: 'review',
    });
    const orgId = z.string().parse((await get(user.headers, '/auth/me')).active_organization.id);
    const rep = await createUser(t, orgId, 'ADMIN');
    const l5Offers = (await get(h, `/loads/${ilTx[4]}/offers?status=pending`)).data;
    await patchOffer(rep.headers, l5Offers[0].id, 'accepted');
    // The sixth: a rep enters a carrier's phoned-in offer, above the ceiling, and books it.
    const phoned = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: ilTx[5], offer_amount: 2500, carrier_id: carriers[2] },
    });
    expect(phoned.statusCode, phoned.body).toBe(201);
    await patchOffer(h, phoned.json().id, 'accepted');
    // The TMS cancels the fourth load after it was booked: the booking falls off.
    const cancelled = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: h,
      payload: { ...(await loadBody(t, h, defined(ilTx[3], 'ilTx[3]'))), tms_status: 'Cancelled' },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);

    // What the test knows, read back through the API where a time is involved.
    const known: Known[] = [];
    for (const id of [...ilTx, ...caAz]) {
      const load = await get(h, `/loads/${id}`);
      const activity = await get(h, `/loads/${id}/agent-activity`);
      const offers = z
        .array(
          z.object({
            id: z.string(),
            status: z.string(),
            offer_amount: z.number(),
            accepted_at: z.string().nullable(),
            counter_offer_amount: z.number().nullable(),
            source: z.string(),
            channel: z.string().nullable(),
            carrier_id: z.string().nullable(),
          }),
        )
        .parse((await get(h, `/loads/${id}/offers?page_size=100`)).data);
      const accepted = offers.find((o) => o.status === 'accepted');
      const i = ilTx.indexOf(id);
      const fellOff = i === 3;
      const byAgent = i >= 0 && i < 4;
      const contacts = defined(contacted.get(id), 'contacted.get(id)').length;
      known.push({
        id,
        lane: i >= 0 ? 'IL-TX' : 'CA-AZ',
        equipment: i >= 0 ? 'VAN' : 'REEFER',
        customer: load.customer_name,
        rep: load.carrier_rep_user_id,
        // The first pickup stop's expected date.
        pickup: new Date(
          defined(
            z
              .array(z.object({ type: z.string(), expected_date: z.string() }))
              .parse(load.stops)
              .find((s) => s.type === 'Pickup'),
            'the pickup stop',
          ).expected_date,
        ),
        posted: 2000,
        market: 2100,
        max: 2400,
        customerRate: 2900,
        contacts,
        connects: i >= 0 && i < 5 ? 1 : 0,
        offers: offers.length,
        counters: offers.filter((o) => o.counter_offer_amount !== null).length,
        handoff: i === 4,
        handedAt: new Date(activity.handed_at),
        booking:
          accepted && !fellOff
            ? {
                by: byAgent ? 'agent' : 'user',
                afterContact: contacts > 0,
                amount: accepted.offer_amount,
                at: new Date(defined(accepted.accepted_at, 'accepted.accepted_at')),
              }
            : null,
        // Tier 1 carriers are the wave; the third (untiered) is never contacted.
        tier: accepted && accepted.carrier_id !== carriers[2] ? 1 : null,
        channel: accepted?.channel ?? null,
        bookings: accepted ? 1 : 0,
        fallOffs: fellOff ? 1 : 0,
      });
    }
    return { orgId, h, rep, known, ilTx, caAz, carriers };
  }

  it('answers every figure of every grouping exactly, in JSON and in CSV', async () => {
    const { h, known } = await history();
    expect(known.filter((l) => l.booking).length).toBe(5);
    expect(known.map((l) => l.contacts)).toEqual([2, 2, 2, 2, 2, 2, 0, 0, 0, 0]);
    const from = new Date(Date.now() - 3600_000).toISOString();
    for (const groupBy of [null, ...Object.keys(GROUPS)]) {
      const query = `/agent/results?from=${from}${groupBy ? `&group_by=${groupBy}` : ''}`;
      const body = await get(h, query);
      expect(body.group_by).toBe(groupBy);
      expect(body.data, `group_by=${groupBy}`).toEqual(expectedRows(groupBy, known));
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/v1${query}`,
        headers: { ...h, accept: 'text/csv' },
      });
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
      const [header, ...rows] = parseCsv(csv.body);
      expect(rows).toHaveLength(body.data.length);
      // Every figure of every row, nested ones flattened, as the JSON has it.
      for (const [n, row] of rows.entries()) {
        const { contacts, contacts_per_booking, ...flat } = body.data[n];
        const expected: Record<string, unknown> = {
          ...flat,
          ...Object.fromEntries(Object.entries(contacts).map(([k, v]) => [`contacts_${k}`, v])),
          ...Object.fromEntries(
            Object.entries(contacts_per_booking).map(([k, v]) => [`contacts_per_booking_${k}`, v]),
          ),
        };
        expect([...defined(header, 'header')].sort()).toEqual(Object.keys(expected).sort());
        for (const [column, value] of Object.entries(expected)) {
          expect(row[defined(header, 'header').indexOf(column)], column).toBe(
            value === null ? '' : String(value),
          );
        }
      }
    }
  });

  it('hides margins from MEMBERs, as the loads do', async () => {
    const { orgId, known } = await history();
    const member = await createUser(t, orgId, 'MEMBER');
    const body = await get(member.headers, '/agent/results');
    expect(body.data).toEqual(expectedRows(null, known, false));
  });

  it('stays exact when bookings race on different loads', async () => {
    const { h } = await tenant(t, { daily_cap_per_carrier: 100 });
    const carrier = await laneCarrier(t, h);
    const loads = await Promise.all(Array.from({ length: 8 }, () => agentLoad(t, h)));
    const offers = await Promise.all(
      loads.map(async (load_id) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/offers',
          headers: h,
          payload: { load_id, offer_amount: 1990, carrier_id: carrier },
        });
        return res.json<{ id: string }>().id;
      }),
    );
    await Promise.all(offers.map((id) => patchOffer(h, id, 'accepted')));
    const [row] = (await get(h, '/agent/results')).data;
    expect(row).toMatchObject({ loads_handed: 8, bookings: 8, booked_by_user_without_contact: 8, offers: 8 });
    await Promise.all(offers.slice(0, 3).map((id) => patchOffer(h, id, 'rejected')));
    const [after] = (await get(h, '/agent/results')).data;
    expect(after).toMatchObject({ bookings: 8, fall_offs: 3, booked_by_user_without_contact: 5 });
  });

  it('validates the period and the grouping', async () => {
    const { h } = await tenant(t);
    const bad = async (query: string, param: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/agent/results?${query}`, headers: h });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error.param).toBe(param);
    };
    await bad('group_by=planet', 'group_by');
    await bad('from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from');
    await bad('from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from');
    await bad('form=2026-01-01T00:00:00Z', 'form');
    const empty = await get(h, '/agent/results');
    expect(empty.data).toHaveLength(1);
    expect(empty.data[0]).toMatchObject({ group: null, loads_handed: 0, coverage_rate: null });
  });
});
