import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  agentRound,
  agentStateOf,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  carrierEmail,
  type Headers,
  inbound,
  laneCarrier,
  loadBody,
  messagesOf,
  nextEmail,
  nextWaveNow,
  outreachesOf,
  passing,
  QUIET_NIGHT,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createTenant, createUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';

// No loop runs the agent here: each test runs its rounds with `agentRound` and asserts what one did.
const env = { ...agentEnv, WORKERS_ENABLED: 'false' };

/** A load's stops: picked up `hours` after `now`, delivered a day later. */
const pickingUpIn = (now: Date, hours: number) => {
  const at = (h: number) => new Date(now.getTime() + h * 3_600_000).toISOString();
  return {
    stops: [stopPayload('Pickup', { date: at(hours) }), stopPayload('Dropoff', { date: at(hours + 24) })],
  };
};

// On a manual clock at an evening in Chicago: quiet hours hold there, and every time the agent
// sets is exact (the clock stands still unless a test moves it).
describe('the load-working agent', () => {
  const t = useTestApp({ env, clock: CHICAGO_EVENING });

  it('contacts only carriers the guard allows, on the lane, with the load’s equipment', async () => {
    const { h, user } = await tenant(t);
    const allowed = await laneCarrier(t, h, { name: 'Allowed Freight' });
    const untyped = await laneCarrier(t, h, { equipment_types: null });
    const stopped = await laneCarrier(t, h);
    await t.app.inject({ method: 'POST', url: `/api/v1/carriers/${stopped}/stop-contact`, headers: h });
    const disabled = await laneCarrier(t, h);
    const dis = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${disabled}/disable`,
      headers: user.headers,
      payload: { reason: 'carrier_pause' },
    });
    expect(dis.statusCode, dis.body).toBe(200);
    const blocked = await laneCarrier(t, h, { mc_number: '620001', dot_number: '720001' });
    const uninsured = await laneCarrier(t, h, { insurance_expiration: '2020-01-01T00:00:00Z' });
    const reefer = await laneCarrier(t, h, { equipment_types: ['REEFER'] });
    const restricted = await laneCarrier(t, h);
    const restrict = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${restricted}/lane-preferences`,
      headers: h,
      payload: {
        origin: { city: 'Chicago', state: 'IL' },
        destination: { state: 'TX' },
        preference_type: 'restricted',
      },
    });
    expect(restrict.statusCode, restrict.body).toBe(201);
    const otherLane = await laneCarrier(t, h, {}, { origin: { state: 'OH' } });
    const noEmail = await laneCarrier(t, h, { email: null });
    const adminDisabled = await laneCarrier(t, h);

    const loadId = await agentLoad(t, h, { assigned_to_ai_agent: false });
    const off = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${adminDisabled}/lane-preferences/disable-for-load`,
      headers: user.headers,
      payload: { load_id: loadId },
    });
    expect(off.statusCode, off.body).toBeLessThan(300);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: h,
      payload: { ...(await loadBody(t, h, loadId)), assigned_to_ai_agent: true },
    });

    const list = await afterRound(t, h, loadId);
    const contacted = list.map((o) => o.carrier_id).sort();
    // The carrier restricted on the lane also holds the generic primary preference: still refused.
    expect(contacted).toEqual([allowed, untyped].sort());
    for (const excluded of [
      stopped,
      disabled,
      blocked,
      uninsured,
      reefer,
      restricted,
      otherLane,
      noEmail,
      adminDisabled,
    ]) {
      expect(contacted).not.toContain(excluded);
    }
    expect(list.every((o) => o.is_automated && o.modality === 'email')).toBe(true);
    // Sent in the same round. The first message names the lane and the posted rate, never the
    // customer rate or the limit.
    expect(list.every((o) => o.status === 'active')).toBe(true);
    const sent = await messagesOf(t, h, defined(list[0], 'list[0]').id);
    expect(sent).toHaveLength(1);
    expect(defined(sent[0], 'sent[0]').body).toContain('$2,000');
    expect(defined(sent[0], 'sent[0]').body).not.toMatch(/\$2,?400|\$2,?900/);
  });

  it('works tier 1 before tier 2 and untiered carriers, one wave at a time, and holds while an acceptable offer waits', async () => {
    const { h } = await tenant(t, { wave_size: 2 });
    // Global tier 4, but tier 1 on this lane: the lane tier is the effective one.
    const laneTier1 = await laneCarrier(
      t,
      h,
      { routing_guide_tier: 4, on_time_pickup_pct: 70 },
      { routing_guide_tier: 1 },
    );
    const tier1Best = await laneCarrier(t, h, { routing_guide_tier: 1, on_time_pickup_pct: 99 });
    const tier1Third = await laneCarrier(t, h, { routing_guide_tier: 1, on_time_pickup_pct: 50 });
    const tier2 = await laneCarrier(t, h, {}, { routing_guide_tier: 2 });
    // Untiered, known only from an offer on an earlier load between the same states.
    const history = (await createCarrier(t, h, { email: nextEmail() })).id as string;
    const earlier = await createLoad(t, h, {});
    const offered = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: earlier, carrier_id: history, offer_amount: 2100 },
    });
    expect(offered.statusCode, offered.body).toBe(201);

    // Picked up in three days: its waves keep to one tier.
    const loadId = await agentLoad(t, h, pickingUpIn(t.clock.now(), 72));
    const wave1 = await afterRound(t, h, loadId);
    expect(wave1.map((o) => o.carrier_id).sort()).toEqual([tier1Best, laneTier1].sort());
    // The next wave is due after the wave wait (30 minutes): a round before then plans nothing more.
    const planned = defined(await agentStateOf(t, loadId), '(await agentStateOf(t, loadId))');
    expect(planned.waves_planned).toBe(1);
    expect(planned.next_wave_at).toEqual(new Date(t.clock.ms() + 30 * 60_000));
    expect(await afterRound(t, h, loadId)).toHaveLength(2);
    expect(defined(await agentStateOf(t, loadId), '(await agentStateOf(t, loadId))').waves_planned).toBe(1);

    // Once it is due, the same round plans it.
    await nextWaveNow(t, loadId);
    const wave2 = await afterRound(t, h, loadId);
    expect(wave2).toHaveLength(3);
    expect(wave2.map((o) => o.carrier_id)).toContain(tier1Third);
    expect(wave2.map((o) => o.carrier_id)).not.toContain(tier2);

    await nextWaveNow(t, loadId);
    const wave3 = await afterRound(t, h, loadId);
    expect(wave3).toHaveLength(4);
    expect(wave3.map((o) => o.carrier_id)).toContain(tier2);
    expect(wave3.map((o) => o.carrier_id)).not.toContain(history);

    // An offer at the posted rate is pending for a rep: the next wave waits.
    const hold = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: loadId, carrier_id: tier2, offer_amount: 1950 },
    });
    expect(hold.statusCode).toBe(201);
    await nextWaveNow(t, loadId);
    expect(await afterRound(t, h, loadId)).toHaveLength(4);
    // The round did take the load up, and held it for the offer.
    expect(defined(await agentStateOf(t, loadId), '(await agentStateOf(t, loadId))').last_decision).toBe(
      `holding: offer ${hold.json().id} (1950) is pending for a rep`,
    );
    const rejected = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${hold.json().id}`,
      headers: h,
      payload: { status: 'rejected' },
    });
    expect(rejected.statusCode).toBe(200);
    await nextWaveNow(t, loadId);
    const wave4 = await afterRound(t, h, loadId);
    expect(wave4).toHaveLength(5);
    expect(wave4.map((o) => o.carrier_id)).toContain(history);
  });

  it('fills the wave of a load picked up within twelve hours from the next tiers', async () => {
    const { h } = await tenant(t, { wave_size: 3 });
    const tier1 = await laneCarrier(t, h, { routing_guide_tier: 1 });
    const tier2 = await laneCarrier(t, h, { routing_guide_tier: 2 });
    const tier3 = await laneCarrier(t, h, { routing_guide_tier: 3 });
    const fourth = await laneCarrier(t, h, { routing_guide_tier: 3 });
    const soon = await agentLoad(t, h, pickingUpIn(t.clock.now(), 6));
    // One wave of three, best tier first, whatever the tiers: the fourth waits for the next wave.
    const wave = await afterRound(t, h, soon);
    expect(wave.map((o) => o.carrier_id).sort()).toEqual([tier1, tier2, tier3].sort());
    expect(wave.map((o) => o.carrier_id)).not.toContain(fourth);
    const state = defined(await agentStateOf(t, soon), 'the load’s state');
    expect(state.waves_planned).toBe(1);
  });

  it('plans a load picked up soon again when a carrier at its daily cap frees, not after the wave wait', async () => {
    const { h } = await tenant(t, { daily_cap_per_carrier: 1, group_lane_loads: false });
    const carrier = await laneCarrier(t, h);
    const first = await agentLoad(t, h, pickingUpIn(t.clock.now(), 48));
    expect((await afterRound(t, h, first)).map((o) => o.carrier_id)).toEqual([carrier]);
    // Its one contact of the day went out 23 h 50 min ago: the cap frees in ten minutes.
    await t.database.db
      .update(outreaches)
      .set({
        created_at: sql`envoy_now() - interval '23 hours 50 minutes'`,
        sent_at: sql`envoy_now() - interval '23 hours 50 minutes'`,
      })
      .where(eq(outreaches.carrier_id, carrier));
    const soon = await agentLoad(t, h, pickingUpIn(t.clock.now(), 3));
    const later = await agentLoad(t, h, pickingUpIn(t.clock.now(), 72));
    const now = t.clock.ms();
    expect(await afterRound(t, h, soon)).toEqual([]);
    const nextOf = async (id: string) =>
      defined(await agentStateOf(t, id), 'the load’s state').next_wave_at.getTime();
    // Picked up in three hours: planned again as the cap frees. In three days: after the wave wait.
    expect(await nextOf(soon)).toBe(now + 10 * 60_000);
    expect(await nextOf(later)).toBe(now + 30 * 60_000);
  });

  it('offers a load picked up before its next wave could go out to every carrier it can still reach', async () => {
    /** A wave of one, and three carriers of the lane; the load's pickup `hours` from now. */
    const scene = async (hours: number) => {
      const { h } = await tenant(t, { wave_size: 1, group_lane_loads: false });
      const carriers = [await laneCarrier(t, h), await laneCarrier(t, h), await laneCarrier(t, h)];
      const load = await agentLoad(t, h, pickingUpIn(t.clock.now(), hours));
      return { h, carriers, load };
    };
    // Picked up in 15 minutes, before the 30-minute wave wait ends: now or never, for all three.
    const now = await scene(0.25);
    // Picked up in five hours: a wave of one, the others in the next waves.
    const later = await scene(5);
    await agentRound(t);
    const contacted = async (s: typeof now) =>
      (await outreachesOf(t, s.h, s.load)).filter((o) => o.is_automated).map((o) => o.carrier_id);
    expect((await contacted(now)).sort()).toEqual([...now.carriers].sort());
    expect(await contacted(later)).toHaveLength(1);
  });

  it('never contacts a carrier twice about a load within the window, nor past its daily cap', async () => {
    // One contact per load, no gap: the cap and the window alone are under test.
    const { h } = await tenant(t, {
      daily_cap_per_carrier: 2,
      recontact_window_hours: 12,
      carrier_min_gap_minutes: 0,
      group_lane_loads: false,
    });
    const busy = await laneCarrier(t, h);
    const manual = await laneCarrier(t, h);
    const first = await agentLoad(t, h, { assigned_to_ai_agent: false });
    // A rep e-mailed `manual` about the first load an hour ago.
    const rep = await t.app.inject({
      method: 'POST',
      url: '/api/v1/outreaches',
      headers: h,
      payload: { carrier_id: manual, load_id: first, modality: 'email' },
    });
    expect(rep.statusCode, rep.body).toBe(201);
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: h,
      payload: { ...(await loadBody(t, h, first)), assigned_to_ai_agent: true },
    });
    // `manual` is inside the recontact window for the first load: only `busy` is contacted.
    const firstWave = (await afterRound(t, h, first)).filter((o) => o.is_automated);
    expect(firstWave.map((o) => o.carrier_id)).toEqual([busy]);
    const loadIds = [first, await agentLoad(t, h), await agentLoad(t, h)];
    // One round plans both new loads, one after the other under the carriers' locks.
    await agentRound(t);
    const lists = await Promise.all(loadIds.map((id) => outreachesOf(t, h, id)));
    const automated = lists.flat().filter((o) => o.is_automated);
    // Three loads, a cap of two: `busy` got two; `manual` was not contacted again about the first load.
    expect(automated.filter((o) => o.carrier_id === busy)).toHaveLength(2);
    expect(
      defined(lists[0], 'lists[0]')
        .filter((o) => o.carrier_id === manual)
        .map((o) => o.is_automated),
    ).toEqual([false]);
    expect(automated.filter((o) => o.carrier_id === manual)).toHaveLength(2);

    // A day later the cap and the window have passed: the next wave may contact them again.
    await t.database.db
      .update(outreaches)
      .set({ created_at: sql`envoy_now() - interval '25 hours'` })
      .where(
        sql`${outreaches.load_id} IN (${sql.join(
          loadIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
    await nextWaveNow(t, first);
    const again = await afterRound(t, h, first);
    const fresh = again.filter(
      (o) => o.is_automated && Date.parse(defined(o.send_after, 'o.send_after')) === t.clock.ms(),
    );
    expect(fresh.map((o) => o.carrier_id)).toContain(manual);
  });

  it('waits out quiet hours in the carrier’s local time, from its state', async () => {
    const { h } = await tenant(t, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
    });
    const chicago = await laneCarrier(t, h, { home_state: 'IL' });
    const honolulu = await laneCarrier(t, h, { home_state: 'hi' });
    const loadId = await agentLoad(t, h);
    // One round plans both and sends what is due: 22:30 in Chicago is quiet, 18:30 in Honolulu is
    // not, so its e-mail went out in the round that kept Chicago's queued until 07:00.
    const list = await afterRound(t, h, loadId);
    expect(list).toHaveLength(2);
    const byCarrier = new Map(list.map((o) => [o.carrier_id, o]));
    const hawaii = defined(byCarrier.get(honolulu), 'byCarrier.get(honolulu)');
    expect(hawaii.status).toBe('active');
    expect(hawaii.sent_at).not.toBeNull();
    const queued = defined(byCarrier.get(chicago), 'byCarrier.get(chicago)');
    expect(queued.status).toBe('pending');
    expect(queued.sent_at).toBeNull();
    expect(queued.send_after).toBe(CHICAGO_MORNING.toISOString());
    expect(hawaii.sent_at).toBe(CHICAGO_EVENING.toISOString());
  });

  it('stops working a load once it is booked, re-covered in the TMS or unassigned, withdrawing queued contacts', async () => {
    // Quiet hours in Chicago at the clock's evening (the load's origin; the carriers name no
    // state): contacts stay queued.
    const { h } = await tenant(t, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
    });
    const a = await laneCarrier(t, h);
    await laneCarrier(t, h);
    const booked = await agentLoad(t, h);
    const covered = await agentLoad(t, h);
    const unassigned = await agentLoad(t, h);
    await agentRound(t);
    for (const id of [booked, covered, unassigned]) {
      expect((await outreachesOf(t, h, id)).map((o) => o.status)).toEqual(['pending', 'pending']);
    }

    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: booked, carrier_id: a, offer_amount: 1900 },
    });
    const accept = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offer.json().id}`,
      headers: h,
      payload: { status: 'accepted' },
    });
    expect(accept.statusCode).toBe(200);
    // In the same transaction as the accept.
    const afterBooking = await outreachesOf(t, h, booked);
    expect(afterBooking.filter((o) => o.is_automated).map((o) => o.status)).toEqual(['failed', 'failed']);
    expect(defined(afterBooking[0], 'afterBooking[0]').error_reason).toMatch(/load booked/);

    const upd = async (id: string, patch: Record<string, unknown>) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/loads',
        headers: h,
        payload: { ...(await loadBody(t, h, id)), ...patch },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await upd(covered, { tms_status: 'Covered' });
    await upd(unassigned, { assigned_to_ai_agent: false });
    // Their contacts stay queued until the agent's next round, which withdraws them and, though
    // every load's next wave is due, plans no new wave for any of them.
    for (const id of [covered, unassigned]) {
      expect((await outreachesOf(t, h, id)).map((o) => o.status)).toEqual(['pending', 'pending']);
    }
    for (const id of [booked, covered, unassigned]) await nextWaveNow(t, id);
    await agentRound(t);
    for (const id of [covered, unassigned]) {
      const list = await outreachesOf(t, h, id);
      expect(list.map((o) => o.status)).toEqual(['failed', 'failed']);
      expect(list.every((o) => o.error_reason?.includes('no longer worked'))).toBe(true);
    }
    for (const id of [booked, covered, unassigned]) expect(await outreachesOf(t, h, id)).toHaveLength(2);
  });
});

describe('replies to the agent', () => {
  const t = useTestApp({ env });

  async function conversation(settings: Record<string, unknown> = {}, carrier: Record<string, unknown> = {}) {
    const { h, user } = await tenant(t, settings);
    const carrierId = await laneCarrier(t, h, carrier);
    const loadId = await agentLoad(t, h);
    // One round plans the contact and sends it.
    const [o] = await afterRound(t, h, loadId);
    expect(o).toMatchObject({ carrier_id: carrierId, status: 'active' });
    return {
      h,
      user,
      carrierId,
      loadId,
      outreach: defined(o, 'o'),
      o,
      email: await carrierEmail(t, h, carrierId),
    };
  }

  const offersOf = async (t: TestApp, h: Headers, loadId: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })).json<{
      data: {
        id: string;
        offer_amount: number;
        status: string;
        channel: string;
        source: string;
        counter_offer_amount: number | null;
        accepted_at: string | null;
      }[];
    }>().data;

  it('refuses the inbound webhook without the secret', async () => {
    expect((await inbound(t, { From: 'a@b.c' }, 'wrong-secret-wrong-secret')).statusCode).toBe(401);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/integrations/email/inbound',
      payload: {},
    });
    expect(res.statusCode).toBe(401);
  });

  it('keeps the earlier rule as the posted_rate_once strategy: one counter at the posted rate, then a rep; a decline over the limit', async () => {
    const { h, loadId, outreach, email } = await conversation({
      negotiation: { strategy: 'posted_rate_once' },
    });
    const first = await reply(t, outreach, email, 'We can do it for $2,200 all in.');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ status: 'replied', reason: 'counter' });
    let offers = await offersOf(t, h, loadId);
    expect(offers).toHaveLength(1);
    expect(offers[0]).toMatchObject({
      offer_amount: 2200,
      status: 'pending',
      channel: 'email',
      source: 'agent',
      counter_offer_amount: 2000,
    });
    let messages = await messagesOf(t, h, outreach.id);
    const counter = defined(messages.at(-1), 'messages.at(-1)');
    expect(counter).toMatchObject({ direction: 'outbound', intent: 'counter' });
    expect(counter.body).toContain('$2,000');

    const second = await reply(t, outreach, email, 'best I can do is 2300');
    expect(second.json()).toMatchObject({ reason: 'review' });
    offers = await offersOf(t, h, loadId);
    expect(offers.find((o) => o.offer_amount === 2300)).toMatchObject({
      status: 'pending',
      counter_offer_amount: null,
    });

    const third = await reply(t, outreach, email, 'Need 2.6k for this one');
    expect(third.json()).toMatchObject({ reason: 'decline' });
    expect(
      defined(
        (await offersOf(t, h, loadId)).find((o) => o.offer_amount === 2600),
        '(await offersOf(t, h, loadId)).find((o) => o.offer_amount === 2600)',
      ).status,
    ).toBe('rejected');
    messages = await messagesOf(t, h, outreach.id);
    for (const m of messages.filter((x) => x.direction === 'outbound')) {
      expect(m.body).not.toMatch(/\$2,?400|\$2,?900|margin|max buy|customer/i);
    }
    // The outreach is completed and the carrier engaged.
    const [o] = await outreachesOf(t, h, loadId);
    expect(o).toMatchObject({ status: 'completed' });
  });

  it('books at or under the posted rate where the organization opts in, and stops the load’s other contacts', async () => {
    const { h, loadId, carrierId, outreach, email } = await conversation(
      { auto_accept_at_or_under_posted_rate: true, wave_size: 1 },
      passing(),
    );
    // A subscriber, so the booking's event is stored (no worker delivers it here).
    const endpoint = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: h,
      payload: { url: 'http://127.0.0.1:9/hooks', event_types: ['load.booked'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const res = await reply(t, outreach, email, 'yes we have a truck, 1,950 + fuel');
    // Asked to confirm the amount first; the carrier's yes books it.
    expect(res.json()).toMatchObject({ reason: 'confirm' });
    expect((await messagesOf(t, h, outreach.id)).at(-1)?.body).toMatch(
      /To confirm: load \S+ at \$1,950 all in\?/,
    );
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'pending', held_for: 'confirmation' }),
    ]);
    const yes = await reply(t, outreach, email, 'yes confirmed, send the rate con');
    expect(yes.json()).toMatchObject({ reason: 'accept', offer_id: res.json().offer_id });
    const [offer] = await offersOf(t, h, loadId);
    expect(offer).toMatchObject({ offer_amount: 1950, status: 'accepted' });
    // The load shows the agent's booking, in the booked tab, its status still the TMS's.
    const load = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: h })).json();
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrierId}`, headers: h })
    ).json();
    const booking = {
      offer_id: defined(offer, 'offer').id,
      carrier_id: carrierId,
      carrier_name: carrier.name,
      carrier_mc_number: carrier.mc_number,
      amount: 1950,
      booked_at: defined(offer, 'offer').accepted_at,
      booked_by: 'agent',
    };
    expect(load).toMatchObject({ load_status: 'Unassigned', booked_offer: booking });
    const bookedTab = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=booked&page_size=100', headers: h })
    ).json();
    expect(bookedTab.data.map((l: { id: string }) => l.id)).toEqual([loadId]);
    const { rows: events } = await t.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE type = 'load.booked' AND data->>'load_id' = $1`,
      [loadId],
    );
    expect(events.map((e) => e.data.booked_offer)).toEqual([booking]);
    const messages = await messagesOf(t, h, outreach.id);
    expect(messages.at(-1)).toMatchObject({ intent: 'accept' });
    // Booked: a later quote hears the load is covered, and nothing is recorded.
    const late = await reply(t, outreach, email, 'we could also do 1800');
    expect(late.json()).toMatchObject({ reason: 'covered', offer_id: null });
    expect(await offersOf(t, h, loadId)).toHaveLength(1);
    expect(
      defined((await messagesOf(t, h, outreach.id)).at(-1), '(await messagesOf(t, h, outreach.id)).at(-1)')
        .body,
    ).toMatch(/already covered/);
  });

  it('never books a carrier whose compliance is not PASSED automatically: its offer waits for a rep', async () => {
    const { h, loadId, carrierId, outreach, email } = await conversation({
      auto_accept_at_or_under_posted_rate: true,
      negotiation: { auto_accept_at_or_under_ask: true },
    });
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrierId}`, headers: h })
    ).json();
    expect(carrier.compliance_status).toBe('UNVERIFIED');
    const res = await reply(t, outreach, email, 'yes we have a truck, 1,950 all in');
    expect(res.json()).toMatchObject({ reason: 'review' });
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1950, status: 'pending', accepted_at: null }),
    ]);
    expect(
      defined((await messagesOf(t, h, outreach.id)).at(-1), '(await messagesOf(t, h, outreach.id)).at(-1)')
        .body,
    ).toMatch(/\$1,950 .*A rep will confirm/);
  });

  it('takes the counter-offer when the carrier just says yes', async () => {
    const { h, loadId, outreach, email } = await conversation();
    await reply(t, outreach, email, '2350 all in');
    const res = await reply(t, outreach, email, 'Yes, we can do it. Send it over.');
    expect(res.json()).toMatchObject({ reason: 'review' });
    expect((await offersOf(t, h, loadId)).map((o) => o.offer_amount).sort()).toEqual([2000, 2350]);
  });

  it('stamps stop_contact_requested_at on "remove me" and withdraws the carrier’s queued contacts', async () => {
    const { h, carrierId, outreach, email } = await conversation();
    const res = await reply(t, outreach, email, 'Please remove me from your list.');
    expect(res.json()).toMatchObject({ status: 'replied', reason: 'stop_contact' });
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrierId}`, headers: h })
    ).json();
    expect(carrier.stop_contact_requested_at).not.toBeNull();
    // A later load on the lane: the agent never contacts the carrier again.
    const later = await agentLoad(t, h);
    expect(await afterRound(t, h, later)).toHaveLength(0);
    // The round did take the load up: it found no one it may contact.
    expect(await agentStateOf(t, later)).toMatchObject({
      last_decision: 'every carrier on this lane was contacted or refused',
      last_outcome: 'exhausted',
    });
  });

  it('sends an operational restriction notice to an inactive carrier on the restriction list, where opted in', async () => {
    const { h, user, carrierId, loadId, outreach, email } = await conversation(
      { restriction_notices_enabled: true, restriction_tms_statuses: ['Do Not Load'] },
      { tms_status: 'DO NOT LOAD' },
    );
    const disabled = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrierId}/disable`,
      headers: user.headers,
      payload: { reason: 'compliance' },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    const res = await reply(t, outreach, email, 'We can do 1900');
    expect(res.json()).toMatchObject({ status: 'restriction_notice' });
    expect(await offersOf(t, h, loadId)).toHaveLength(0);
    const notice = defined(
      (await messagesOf(t, h, outreach.id)).at(-1),
      '(await messagesOf(t, h, outreach.id)).at(-1)',
    );
    expect(notice).toMatchObject({ intent: 'restriction_notice' });
    expect(notice.body).toMatch(/on hold/);
    expect(notice.body).not.toContain('$');

    // Without the opt-in: recorded, not answered, no load talk.
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/agent/settings',
      headers: h,
      payload: { restriction_notices_enabled: false },
    });
    const quiet = await reply(t, outreach, email, 'hello?');
    expect(quiet.json()).toMatchObject({ status: 'recorded' });
    expect((await messagesOf(t, h, outreach.id)).at(-1)).toMatchObject({ direction: 'inbound' });
  });

  it('matches a reply by sender address only when one organization contacted it', async () => {
    const shared = nextEmail();
    const bare = (from: string, text: string) =>
      inbound(t, { From: from, To: 'dispatch@envoy.local', Subject: 'load', TextBody: text, Headers: [] });
    const first = await conversation({}, { email: shared });
    const alone = await bare(shared, 'we can do 1900');
    expect(alone.json()).toMatchObject({ status: 'replied', outreach_id: first.outreach.id });
    // A second brokerage e-mails the same dispatcher: an unthreaded reply could be for either.
    await conversation({}, { email: shared });
    const ambiguous = await bare(shared, 'we can do 1850');
    expect(ambiguous.json()).toMatchObject({ status: 'ignored', outreach_id: null });
  });

  it('marks the outreach on a bounce, leaving its status', async () => {
    const { h, loadId, outreach } = await conversation();
    const res = await inbound(t, {
      RecordType: 'Bounce',
      Type: 'HardBounce',
      TypeCode: 1,
      Email: 'nobody@carrier.example',
      Description: 'The server was unable to deliver your message',
      Details: '550 5.1.1 mailbox unavailable',
      BouncedAt: new Date().toISOString(),
      Metadata: { outreach_id: outreach.id },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [o] = await outreachesOf(t, h, loadId);
    expect(defined(o, 'o').delivery_failed_at).not.toBeNull();
    expect(defined(o, 'o').status).toBe('active');
  });
});

// On a manual clock at a working morning in Chicago (10:00 CST), which the test moves for the
// simulated carriers to answer.
describe('end to end on the simulated channels', () => {
  const t = useTestApp({
    env: { ...env, SIMULATION_PROFILE: 'cooperative' },
    clock: new Date('2026-11-17T16:00:00Z'),
  });

  it('covers an assigned load: outreaches go out, carriers answer, an offer books the load', async () => {
    const { h } = await tenant(t, {
      auto_accept_at_or_under_posted_rate: true,
      channel_order: ['email', 'whatsapp'],
    });
    const carriers = [
      await laneCarrier(t, h, { routing_guide_tier: 1, ...passing() }),
      await laneCarrier(t, h, { routing_guide_tier: 1, email: null, phone: '+14155550123', ...passing() }),
    ];
    const loadId = await agentLoad(t, h);
    // One round contacts both carriers; the simulated carriers then answer on their own timers.
    const contacted = await afterRound(t, h, loadId);
    expect(contacted.map((o) => o.carrier_id).sort()).toEqual([...carriers].sort());
    expect(contacted.map((o) => o.modality).sort()).toEqual(['email', 'whatsapp']);
    const accepted = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads/${loadId}/offers?status=accepted`,
          headers: h,
        })
      ).json<{ data: { carrier_id: string; channel: string; offer_amount: number }[] }>().data;
    // The clock moves a minute at a time, the agent's round after each, until an offer books the load.
    const clock = manualClockOf(t);
    let booked = await accepted();
    for (let minutes = 0; booked.length === 0; minutes++) {
      expect(minutes, 'minutes before an offer booked the load').toBeLessThan(240);
      await clock.advanceTo(clock.ms() + 60_000);
      await agentRound(t);
      booked = await accepted();
    }
    expect(booked).toHaveLength(1);
    expect(carriers).toContain(defined(booked[0], 'booked[0]').carrier_id);
    expect(['email', 'messaging']).toContain(defined(booked[0], 'booked[0]').channel);
    expect(defined(booked[0], 'booked[0]').offer_amount).toBeLessThanOrEqual(2000);
    const list = await outreachesOf(t, h, loadId);
    expect(list.length).toBeGreaterThanOrEqual(1);
    expect(list.every((o) => o.is_automated)).toBe(true);
    expect(list.some((o) => o.status === 'completed')).toBe(true);
  });
});

describe('agent settings and switches', () => {
  const t = useTestApp({ env });

  it('shows the defaults, changes only the fields sent, and validates naming the field', async () => {
    const { user } = await createTenant(t);
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/agent/settings', headers: user.headers });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toMatchObject({
      enabled: true,
      wave_size: 5,
      wave_wait_minutes: 30,
      channel_order: ['call', 'email', 'whatsapp'],
      recontact_window_hours: 24,
      daily_cap_per_carrier: 3,
      quiet_hours_start: 20,
      quiet_hours_end: 7,
      auto_accept_at_or_under_posted_rate: false,
      restriction_notices_enabled: false,
      restriction_tms_statuses: [],
    });
    const patch = (payload: Record<string, unknown>, headers = user.headers) =>
      t.app.inject({ method: 'PATCH', url: '/api/v1/agent/settings', headers, payload });
    const ok = await patch({ wave_size: 8, restriction_tms_statuses: [' DNU ', 'dnu', 'Hold'] });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      wave_size: 8,
      wave_wait_minutes: 30,
      restriction_tms_statuses: ['dnu', 'hold'],
    });
    const bad = await patch({ channel_order: ['email', 'fax'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.param).toBe('channel_order[1]');
    expect((await patch({ quiet_hours_start: 24 })).json().error.param).toBe('quiet_hours_start');
    expect((await patch({ channel_order: ['email', 'email'] })).statusCode).toBe(422);
    const member = await createUser(
      t,
      (await t.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: user.headers })).json()
        .active_organization.id,
      'MEMBER',
    );
    expect((await patch({ wave_size: 2 }, member.headers)).statusCode).toBe(403);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/agent/settings', headers: member.headers })).json()
        .wave_size,
    ).toBe(8);
  });

  it('leaves an organization’s loads alone while its agent is switched off, and picks them up when switched on', async () => {
    const { h } = await tenant(t, { enabled: false });
    await laneCarrier(t, h);
    const loadId = await agentLoad(t, h);
    // The same round works another organization's load.
    const other = await tenant(t);
    const otherCarrier = await laneCarrier(t, other.h);
    const otherLoad = await agentLoad(t, other.h);
    await agentRound(t);
    expect((await outreachesOf(t, other.h, otherLoad)).map((o) => o.carrier_id)).toEqual([otherCarrier]);
    expect(await outreachesOf(t, h, loadId)).toHaveLength(0);
    expect(await agentStateOf(t, loadId)).toBeUndefined();
    await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/agent/settings',
      headers: h,
      payload: { enabled: true },
    });
    expect(await afterRound(t, h, loadId)).toHaveLength(1);
  });
});

describe('an instance with the agent switched off', () => {
  // Its loops run: the test reads which ones.
  const t = useTestApp({ env: { ...agentEnv, AGENT_ENABLED: 'false' } });

  it('runs no agent loop, and a round of every worker it has plans nothing', async () => {
    const others = [
      'agent-outbox',
      'compliance',
      'compliance-monitor',
      'escalations',
      'event-stream-purge',
      'idempotency-purge',
      'inbound-receipts-purge',
      'outreach-sweeper',
      'scheduled-calls',
      'sessions-purge',
      'webhooks',
    ];
    expect(t.app.workers.names()).toEqual(others);
    expect(t.services.workers.map((w) => w.name).sort()).toEqual(others);
    const { h } = await tenant(t);
    await laneCarrier(t, h);
    const loadId = await agentLoad(t, h);
    for (const worker of t.services.workers) await worker.drain();
    expect(await outreachesOf(t, h, loadId)).toHaveLength(0);
    expect(await agentStateOf(t, loadId)).toBeUndefined();
  });
});
