import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  carrierEmail,
  type Headers,
  laneCarrier,
  nextWaveNow,
  outreachesOf,
  QUIET_NIGHT,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { manualClockOf, useTestApp } from '../helpers/app.js';
import { goodStanding, registryFile } from '../helpers/carrier-factories.js';

interface Entry {
  kind: string;
  carrier_id: string | null;
  reason: string | null;
  channel: string | null;
  tier: number | null;
  wave: number | null;
}

const blockedMc = '630001';

// On a manual clock at an evening in Chicago: quiet hours hold there, and the times shown are exact.
describe('a load’s agent activity', () => {
  const t = useTestApp({
    clock: CHICAGO_EVENING,
    env: {
      ...agentEnv,
      WORKERS_ENABLED: 'false',
      // One carrier's census record says it is out of service: compliance blocks it.
      COMPLIANCE_REGISTRY_FILE: registryFile([goodStanding(blockedMc, '730001', { out_of_service: true })]),
    },
  });

  const activity = async (h: Headers, loadId: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${loadId}/agent-activity`,
      headers: h,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{
      status: string;
      status_reason: string | null;
      next_wave_at: string | null;
      paused_until: string | null;
      handed_at: string | null;
      timeline: Entry[];
    }>();
  };
  const post = (h: Headers, url: string, payload?: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/v1${url}`, headers: h, ...(payload ? { payload } : {}) });

  it('shows each carrier chosen and each carrier skipped with the reason, wave by wave', async () => {
    const { user, h } = await tenant(t, {
      daily_cap_per_carrier: 2,
      wave_size: 20,
      // The busy carrier's two loads are two contacts, not one message naming both.
      carrier_min_gap_minutes: 0,
      group_lane_loads: false,
    });
    // The busy carrier has had its two automated contacts today, on two other loads.
    const busy = await laneCarrier(t, h, { routing_guide_tier: 1 });
    const earlier = [await agentLoad(t, h), await agentLoad(t, h)];
    await agentRound(t);
    for (const id of earlier) {
      expect((await outreachesOf(t, h, id)).map((o) => o.carrier_id)).toEqual([busy]);
    }
    const tier1 = { routing_guide_tier: 1 };
    const chosen = await laneCarrier(t, h, tier1);
    const stopped = await laneCarrier(t, h, tier1);
    expect((await post(h, `/carriers/${stopped}/stop-contact`)).statusCode).toBe(200);
    const disabled = await laneCarrier(t, h, tier1);
    expect(
      (await post(user.headers, `/carriers/${disabled}/disable`, { reason: 'carrier_pause' })).statusCode,
    ).toBe(200);
    const blocked = await laneCarrier(t, h, { ...tier1, mc_number: blockedMc });
    // Worked on the lane state to state, but restricted on the load's own cities.
    const restricted = await laneCarrier(t, h, tier1);
    const restriction = await post(h, `/carriers/${restricted}/lane-preferences`, {
      origin: { city: 'Chicago', state: 'IL' },
      destination: { city: 'Dallas', state: 'TX' },
      preference_type: 'restricted',
    });
    expect(restriction.statusCode, restriction.body).toBe(201);
    const adminDisabled = await laneCarrier(t, h, tier1);
    const noAddress = await laneCarrier(t, h, { ...tier1, email: null });
    const uninsured = await laneCarrier(t, h, { ...tier1, insurance_expiration: '2026-01-31T00:00:00Z' });

    const loadId = await agentLoad(t, h);
    const off = await post(user.headers, `/carriers/${adminDisabled}/lane-preferences/disable-for-load`, {
      load_id: loadId,
    });
    expect(off.statusCode, off.body).toBe(201);
    const before = await activity(h, loadId);
    expect(before).toMatchObject({ status: 'waiting_for_wave', next_wave_at: null });
    expect(before.timeline.map((e) => e.kind)).toEqual(['handed']);

    await agentRound(t);
    const first = await activity(h, loadId);
    expect(first.timeline.filter((e) => e.kind === 'wave')).toEqual([
      expect.objectContaining({ wave: 1, tier: 1, reason: '1 carriers' }),
    ]);
    expect(first.timeline.filter((e) => e.kind === 'carrier_chosen')).toEqual([
      expect.objectContaining({
        wave: 1,
        carrier_id: chosen,
        channel: 'email',
        tier: 1,
        reason: 'lane preference, tier 1',
      }),
    ]);
    const skipped = (a: typeof first, wave: number) =>
      Object.fromEntries(
        a.timeline
          .filter((e) => e.kind === 'carrier_skipped' && e.wave === wave)
          .map((e) => [e.carrier_id, e.reason]),
      );
    expect(skipped(first, 1)).toEqual({
      [busy]: 'daily_cap',
      [stopped]: 'stop_contact_requested',
      [disabled]: 'inactive',
      [blocked]: 'compliance_blocked',
      [restricted]: 'restricted_on_lane',
      [adminDisabled]: 'admin_disabled_on_lane',
      [noAddress]: 'unreachable: no address for email',
      [uninsured]: 'insurance_expired',
    });

    // The next wave, a second later (its entries come after the first round's on the timeline): the
    // carrier contacted is not contacted again within the window.
    await nextWaveNow(t, loadId);
    await manualClockOf(t).advanceTo(t.clock.ms() + 1000);
    await agentRound(t);
    const second = await activity(h, loadId);
    expect(skipped(second, 2)).toMatchObject({ [chosen]: 'recently_contacted' });
    // Carriers the first pick found refused on the lane are not checked again: they are counted.
    const known = second.timeline.find((e) => e.kind === 'carrier_skipped' && e.wave === 2 && !e.carrier_id);
    expect(known?.reason).toMatch(/^\d+ more carriers refused on this lane: .*daily_cap x1/);
    expect(second.timeline.at(-1)).toMatchObject({ kind: 'planning', reason: 'exhausted' });
  });

  it('walks a load through contacting, review, booking, and the statuses in between', async () => {
    const { h } = await tenant(t, { daily_cap_per_carrier: 100, wave_wait_minutes: 30 });
    const carrier = await laneCarrier(t, h);
    const email = await carrierEmail(t, h, carrier);
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    const contacting = await activity(h, loadId);
    expect(contacting).toMatchObject({ status: 'contacting' });
    const [outreach] = (await outreachesOf(t, h, loadId)).filter((o) => o.is_automated);
    expect(contacting.timeline.map((e) => e.kind)).toEqual(['handed', 'wave', 'carrier_chosen', 'contact']);
    expect(contacting.timeline.at(-1)).toMatchObject({
      kind: 'contact',
      carrier_id: carrier,
      reason: 'active',
    });

    // A quote under the posted rate with automatic booking off: it waits for a rep.
    await reply(t, defined(outreach, 'outreach'), email, '1950 works');
    const review = await activity(h, loadId);
    expect(review.status).toBe('offers_pending_review');
    expect(review.timeline.at(-1)).toMatchObject({
      kind: 'offer',
      amount: 1950,
      reason: 'left for a rep to decide',
    });

    const [offer] = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
    ).json().data;
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offer.id}`,
      headers: h,
      payload: { status: 'accepted' },
    });
    const booked = await activity(h, loadId);
    expect(booked.status).toBe('booked');
    expect(booked.timeline.at(-1)).toMatchObject({
      kind: 'booking',
      carrier_id: carrier,
      amount: 1950,
      offer_id: offer.id,
      reason: 'booked by the user',
    });
  });

  it('says why a load is not worked, and when there is no one to call', async () => {
    const { h } = await tenant(t);
    const unassigned = await agentLoad(t, h, { assigned_to_ai_agent: false });
    expect(await activity(h, unassigned)).toMatchObject({
      status: 'not_workable',
      status_reason: 'the load is not assigned to the agent',
      handed_at: null,
    });
    const delivered = await agentLoad(t, h, { tms_status: 'Delivered' });
    expect((await activity(h, delivered)).status_reason).toMatch(/Delivered, not open/);

    // Nobody runs CA -> AZ.
    const lonely = await agentLoad(t, h, {
      stops: [
        { type: 'Pickup', location: { city: 'Fresno', state: 'CA' }, expected_date: '2026-12-01T15:00:00Z' },
        {
          type: 'Dropoff',
          location: { city: 'Phoenix', state: 'AZ' },
          expected_date: '2026-12-02T15:00:00Z',
        },
      ],
    });
    await agentRound(t);
    const none = await activity(h, lonely);
    expect(none).toMatchObject({ status: 'no_eligible_carriers' });
    expect(none.timeline.at(-1)).toMatchObject({ kind: 'planning', reason: 'no_eligible_carriers' });
  });

  it('is exhausted once every carrier on the lane was contacted and answered, and paused in quiet hours', async () => {
    const { h } = await tenant(t, { daily_cap_per_carrier: 100 });
    const carrier = await laneCarrier(t, h);
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    await nextWaveNow(t, loadId);
    await agentRound(t);
    // The one carrier was contacted and its answer is awaited.
    expect((await activity(h, loadId)).status).toBe('contacting');
    const [outreach] = await outreachesOf(t, h, loadId);
    await reply(
      t,
      defined(outreach, 'outreach'),
      await carrierEmail(t, h, carrier),
      'Sorry, no trucks available this week.',
    );
    const exhausted = await activity(h, loadId);
    expect(exhausted.status).toBe('exhausted');
    expect(exhausted.status_reason).toBe('every carrier on this lane was contacted or refused');

    const { h: h2 } = await tenant(t, {
      daily_cap_per_carrier: 100,
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
    });
    await laneCarrier(t, h2, { home_state: 'IL' });
    const night = await agentLoad(t, h2);
    await agentRound(t);
    const paused = await activity(h2, night);
    expect(paused.status).toBe('paused');
    expect(paused.paused_until).toBe(CHICAGO_MORNING.toISOString());
    expect(
      defined(
        paused.timeline.find((e) => e.kind === 'carrier_chosen'),
        "paused.timeline.find((e) => e.kind === 'carrier_chosen')",
      ).reason,
    ).toMatch(`queued until quiet hours end at ${CHICAGO_MORNING.toISOString()}`);
  });

  it('is 404 for another organization’s load', async () => {
    const a = await tenant(t);
    const b = await tenant(t);
    const loadId = await agentLoad(t, a.h);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${loadId}/agent-activity`,
      headers: b.h,
    });
    expect(res.statusCode).toBe(404);
  });
});
