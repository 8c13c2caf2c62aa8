import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { agentLoadStates } from '../../src/modules/agent/agent-tables.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import { events } from '../../src/modules/webhooks/webhooks-tables.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  agentStateOf,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  carrierEmail,
  type Headers,
  hoursBegin,
  laneCarrier,
  messagesOf,
  nextWaveNow,
  outreachesOf,
  QUIET_NIGHT,
  reply,
  reviewWaited,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { stopPayload } from '../helpers/load-factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

// No loop runs the agent here: each test runs its rounds with `agentRound` and asserts what one did.
const env = { ...agentEnv, WORKERS_ENABLED: 'false' };

type Entry = { kind: string; wave: number | null; carrier_id: string | null; reason: string | null };

// On a manual clock at an evening in Chicago: quiet hours hold there, and every time the agent
// sets is exact (the clock stands still unless a test moves it).
describe('the agent plans around the clock, one conversation per carrier', () => {
  const t = useTestApp({ env, clock: CHICAGO_EVENING });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  const activity = async (h: Headers, loadId: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${loadId}/agent-activity`,
      headers: h,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ status: string; timeline: Entry[] }>();
  };
  const automated = async (h: Headers, loadId: string) =>
    (await outreachesOf(t, h, loadId)).filter((o) => o.is_automated);
  /** The load's automated contacts made and sent `ago` (an interval) before now. */
  const sentAgo = (loadId: string, ago: string) =>
    t.database.db
      .update(outreaches)
      .set({ sent_at: sql`envoy_now() - ${ago}::interval`, created_at: sql`envoy_now() - ${ago}::interval` })
      .where(eq(outreaches.load_id, loadId));
  const loadNumber = () => `PL${randomBytes(3).toString('hex').toUpperCase()}`;
  const numbersOf = (h: Headers, ids: string[]) =>
    Promise.all(
      ids.map(
        async (id) =>
          z
            .object({ load_number: z.string() })
            .parse((await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: h })).json())
            .load_number,
      ),
    );
  const inHours = (hours: number) => new Date(t.clock.ms() + hours * 3_600_000).toISOString();
  /** A load of the lane picked up `hours` from now, delivered 90 hours from now. */
  const pickingUpIn = (h: Headers, hours: number) =>
    agentLoad(t, h, {
      stops: [stopPayload('Pickup', { date: inHours(hours) }), stopPayload('Dropoff', { date: inHours(90) })],
    });
  /** The carrier's second lane, Illinois to Georgia, and a load on it. */
  const onGeorgiaLane = async (h: Headers, carrier: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier}/lane-preferences`,
      headers: h,
      payload: { origin: { state: 'IL' }, destination: { state: 'GA' } },
    });
  const georgiaLoad = (h: Headers) =>
    agentLoad(t, h, {
      stops: [stopPayload('Pickup'), stopPayload('Dropoff', { city: 'Atlanta', state: 'GA' })],
    });

  it('follows up once a carrier that did not answer about a load picked up within 12 hours, and no one else', async () => {
    // Only e-mail, so each carrier's contacts are on one channel; one load per tenant, so no
    // message of a lane carries another load.
    const setup = async (pickupHours: number) => {
      const { h } = await tenant(t, { channel_order: ['email'], group_lane_loads: false });
      const carrier = await laneCarrier(t, h);
      const loadId = await pickingUpIn(h, pickupHours);
      await agentRound(t);
      expect(await automated(h, loadId)).toHaveLength(1);
      return { h, carrier, loadId };
    };
    const laterRound = async (loadId: string, ago: string) => {
      await sentAgo(loadId, ago);
      await nextWaveNow(t, loadId);
      await agentRound(t);
    };
    // Unanswered for 95 minutes, pickup in 6 hours: heard of once more, and only once.
    const silent = await setup(6);
    await laterRound(silent.loadId, '80 minutes');
    expect(await automated(silent.h, silent.loadId)).toHaveLength(1);
    await laterRound(silent.loadId, '95 minutes');
    const followed = await automated(silent.h, silent.loadId);
    expect(followed.map((o) => o.carrier_id)).toEqual([silent.carrier, silent.carrier]);
    expect(new Set(followed.map((o) => o.conversation_id)).size).toBe(2);
    await laterRound(silent.loadId, '3 hours');
    expect(await automated(silent.h, silent.loadId)).toHaveLength(2);
    // A carrier that answered ("no trucks") is not asked again.
    const answered = await setup(6);
    const [first] = await automated(answered.h, answered.loadId);
    const res = await reply(
      t,
      defined(first, 'first'),
      await carrierEmail(t, answered.h, answered.carrier),
      'No trucks today, sorry.',
    );
    expect(res.statusCode, res.body).toBe(200);
    await laterRound(answered.loadId, '3 hours');
    expect(await automated(answered.h, answered.loadId)).toHaveLength(1);
    // A load picked up in 30 hours keeps the re-contact window whole.
    const later = await setup(30);
    await laterRound(later.loadId, '3 hours');
    expect(await automated(later.h, later.loadId)).toHaveLength(1);
  });

  it('contacts carriers in their hours in the same round while the first-ranked wait out quiet hours', async () => {
    const { h } = await tenant(t, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
      wave_size: 2,
    });
    const quiet = [
      await laneCarrier(t, h, { home_state: 'IL', routing_guide_tier: 1 }),
      await laneCarrier(t, h, { home_state: 'IL', routing_guide_tier: 1 }),
    ];
    // 18:30 in Honolulu: in its hours.
    const awake = await laneCarrier(t, h, { home_state: 'HI', routing_guide_tier: 2 });
    const later = await laneCarrier(t, h, { home_state: 'HI', routing_guide_tier: 2 });
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    const list = await automated(h, loadId);
    const byCarrier = new Map(list.map((o) => [o.carrier_id, o]));
    // The in-hours carriers went out at once; the first-ranked are queued for their hours.
    expect(byCarrier.get(awake)).toMatchObject({ status: 'active' });
    expect(byCarrier.get(later)).toMatchObject({ status: 'active' });
    for (const id of quiet) {
      expect(byCarrier.get(id)).toMatchObject({ status: 'pending' });
      expect(byCarrier.get(id)?.send_after).toBe(CHICAGO_MORNING.toISOString());
    }
    // The load is not held behind the queued contacts: the next wave is due after the wave wait.
    const state = await agentStateOf(t, loadId);
    expect(defined(state, 'state').next_wave_at).toEqual(new Date(CHICAGO_EVENING.getTime() + 30 * 60_000));
    expect((await activity(h, loadId)).status).toBe('contacting');

    // A later round while the contacts still wait adds carriers in their hours, no second waiting wave.
    const third = await laneCarrier(t, h, { home_state: 'IL', routing_guide_tier: 1 });
    const fourth = await laneCarrier(t, h, { home_state: 'CA', routing_guide_tier: 3 });
    await nextWaveNow(t, loadId);
    await agentRound(t);
    const next = new Map((await automated(h, loadId)).map((o) => [o.carrier_id, o]));
    expect(next.has(third)).toBe(false);
    expect(next.get(fourth)).toMatchObject({ status: 'active' });
  });

  it('skips a carrier unreachable on every channel once, with its reason, and never picks it again', async () => {
    const { h } = await tenant(t, { wave_size: 1, channel_order: ['email', 'whatsapp'] });
    const unreachable = await laneCarrier(t, h, { routing_guide_tier: 1, email: null, phone: null });
    const reachable = await laneCarrier(t, h, { routing_guide_tier: 2 });
    const second = await laneCarrier(t, h, { routing_guide_tier: 2 });
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    // The wave of one is the next carrier, not a wave stalled on the unreachable one.
    expect((await automated(h, loadId)).map((o) => o.carrier_id)).toEqual([reachable]);
    await nextWaveNow(t, loadId);
    await agentRound(t);
    expect((await automated(h, loadId)).map((o) => o.carrier_id).sort()).toEqual([reachable, second].sort());
    await nextWaveNow(t, loadId);
    await agentRound(t);
    const entries = (await activity(h, loadId)).timeline.filter((e) => e.carrier_id === unreachable);
    expect(entries).toEqual([
      expect.objectContaining({
        kind: 'carrier_skipped',
        wave: 1,
        reason: 'unreachable: no address for email, whatsapp',
      }),
    ]);
    expect((await automated(h, loadId)).some((o) => o.carrier_id === unreachable)).toBe(false);
  });

  it('offers a lane’s three due loads in one message and books the answer on the loads it names', async () => {
    const { h } = await tenant(t);
    const carrier = await laneCarrier(t, h);
    const email = await carrierEmail(t, h, carrier);
    const numbers = [loadNumber(), loadNumber(), loadNumber()];
    const loadIds: string[] = [];
    for (const n of numbers) loadIds.push(await agentLoad(t, h, { load_number: n }));
    await agentRound(t);
    const contacts = (await Promise.all(loadIds.map((id) => automated(h, id)))).flat();
    expect(contacts).toHaveLength(3);
    expect(contacts.map((o) => o.status)).toEqual(['active', 'active', 'active']);
    // One conversation, one message: the same channel message for the three outreaches.
    expect(new Set(contacts.map((o) => o.conversation_id)).size).toBe(1);
    const rows = await t.database.db
      .select({ id: outreaches.external_message_id })
      .from(outreaches)
      .where(
        inArray(
          outreaches.id,
          contacts.map((o) => o.id),
        ),
      );
    expect(new Set(rows.map((r) => r.id)).size).toBe(1);
    const [first] = await messagesOf(t, h, defined(contacts[0], 'contacts[0]').id);
    for (const n of numbers) expect(defined(first, 'first').body).toContain(n);
    expect(defined(first, 'first').body).not.toMatch(/2,?400|2,?900|500/); // max_buy_rate, customer_rate, margin

    const res = await reply(
      t,
      defined(contacts[0], 'contacts[0]'),
      email,
      `We can take ${numbers[0]} at $1,950 and ${numbers[2]} too.`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const offersOf = async (loadId: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })).json<{
        data: { offer_amount: number; carrier_id: string }[];
      }>().data;
    const [a, b, c] = await Promise.all(loadIds.map(offersOf));
    expect(defined(a, 'a').map((o) => [o.carrier_id, Number(o.offer_amount)])).toEqual([[carrier, 1950]]);
    expect(b).toEqual([]);
    expect(defined(c, 'c').map((o) => [o.carrier_id, Number(o.offer_amount)])).toEqual([[carrier, 1950]]);
    // One answer naming both loads.
    const answer = defined(
      (await messagesOf(t, h, defined(contacts[0], 'contacts[0]').id)).at(-1),
      '(await messagesOf(t, h, contacts[0].id)).at(-1)',
    );
    expect(answer.direction).toBe('outbound');
    expect(answer.body).toContain(numbers[0]);
    expect(answer.body).toContain(numbers[2]);
  });

  it('offers a carrier every open load of its lane in one e-mail, or in one call when it prefers calls', async () => {
    const { h } = await tenant(t, { channel_order: ['call', 'email'] });
    const writes = await laneCarrier(t, h, { phone: '+14155550931' });
    const calls = await laneCarrier(t, h, { phone: '+14155550932', preferred_channel: 'call' });
    const first = await agentLoad(t, h);
    const second = await agentLoad(t, h);
    // A load of a lane the carriers are not on is never named in their message.
    const otherLane = await agentLoad(t, h, {
      stops: [stopPayload('Pickup'), stopPayload('Dropoff', { city: 'Atlanta', state: 'GA' })],
    });
    await agentRound(t);
    const contacts = [...(await automated(h, first)), ...(await automated(h, second))];
    const written = contacts.filter((o) => o.carrier_id === writes);
    expect(written.map((o) => o.modality)).toEqual(['email', 'email']);
    expect(new Set(written.map((o) => o.conversation_id)).size).toBe(1);
    const [message] = await messagesOf(t, h, written[0]?.id ?? '');
    const numbers = await numbersOf(h, [first, second, otherLane]);
    expect(message?.body).toContain(numbers[0]);
    expect(message?.body).toContain(numbers[1]);
    expect(message?.body).not.toContain(numbers[2]);
    // A carrier that prefers calls is called about both loads, on one call.
    const called = contacts.filter((o) => o.carrier_id === calls);
    expect(called.map((o) => o.modality)).toEqual(['call', 'call']);
    expect(new Set(called.map((o) => o.call_id)).size).toBe(1);
    // Each load's timeline says why the carrier was offered it: chosen for one, offered with it the other.
    const reasons = await Promise.all(
      [first, second].map(async (id) =>
        (await activity(h, id)).timeline
          .filter((e) => e.carrier_id === writes && e.kind === 'carrier_chosen')
          .map((e) => e.reason),
      ),
    );
    const offeredWith = reasons.flat().filter((r) => r?.startsWith('offered with load'));
    expect(reasons.flat()).toHaveLength(2);
    const sweptFirst = reasons[0]?.some((r) => r?.startsWith('offered'));
    expect(offeredWith).toEqual([
      `offered with load ${sweptFirst ? numbers[1] : numbers[0]} of the same lane, in one message`,
    ]);
  });

  it('offers a carrier on several lanes the open loads of all of them in one e-mail or one call', async () => {
    const { h } = await tenant(t, { channel_order: ['call', 'email'] });
    const onBoth = await laneCarrier(t, h, { phone: '+14155550941' });
    await onGeorgiaLane(h, onBoth);
    const texasOnly = await laneCarrier(t, h, { phone: '+14155550942' });
    const calls = await laneCarrier(t, h, { phone: '+14155550943', preferred_channel: 'call' });
    await onGeorgiaLane(h, calls);
    const texas = await agentLoad(t, h);
    const georgia = await georgiaLoad(h);
    await agentRound(t);
    const contacts = [...(await automated(h, texas)), ...(await automated(h, georgia))];
    // One e-mail names both loads: the carrier's daily contacts are not spent one lane at a time.
    const written = contacts.filter((o) => o.carrier_id === onBoth);
    expect(written.map((o) => o.modality)).toEqual(['email', 'email']);
    expect(new Set(written.map((o) => o.conversation_id)).size).toBe(1);
    const numbers = await numbersOf(h, [texas, georgia]);
    const [message] = await messagesOf(t, h, written[0]?.id ?? '');
    expect(message?.body).toContain(numbers[0]);
    expect(message?.body).toContain(numbers[1]);
    expect(message?.body).toContain('on your lanes');
    const reasons = [...(await activity(h, texas)).timeline, ...(await activity(h, georgia)).timeline].filter(
      (e) => e.carrier_id === onBoth && e.reason?.startsWith('offered with load'),
    );
    expect(reasons.map((e) => e.reason?.replace(/load \S+/, 'load N'))).toEqual([
      'offered with load N of another of the carrier’s lanes, in one message',
    ]);
    // A carrier on the Texas lane alone is offered only its load; one call offers both lanes' loads.
    expect((await automated(h, texas)).filter((o) => o.carrier_id === texasOnly)).toHaveLength(1);
    expect((await automated(h, georgia)).filter((o) => o.carrier_id === texasOnly)).toEqual([]);
    const called = contacts.filter((o) => o.carrier_id === calls);
    expect(called.map((o) => o.modality)).toEqual(['call', 'call']);
    expect(called[0]?.call_id).toBeTruthy();
    expect(new Set(called.map((o) => o.call_id)).size).toBe(1);
  });

  it('adds a load to the queued message of a carrier at its daily cap: joining is no new contact', async () => {
    const { h } = await tenant(t, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
      daily_cap_per_carrier: 1,
    });
    const carrier = await laneCarrier(t, h, { home_state: 'IL' });
    const first = await agentLoad(t, h);
    await agentRound(t);
    const [queued] = await automated(h, first);
    expect(queued).toMatchObject({ carrier_id: carrier, status: 'pending' });
    // Its one contact of the day is queued for the morning; a load due now joins it.
    const second = await agentLoad(t, h);
    await agentRound(t);
    const [joined] = await automated(h, second);
    expect(joined).toMatchObject({
      carrier_id: carrier,
      status: 'pending',
      conversation_id: queued?.conversation_id,
      send_after: queued?.send_after,
    });
    // Once that contact has gone out, the cap holds: the next load is not offered to the carrier.
    await t.database.db
      .update(outreaches)
      .set({ status: 'active', sent_at: sql`envoy_now()` })
      .where(eq(outreaches.carrier_id, carrier));
    const third = await agentLoad(t, h);
    await agentRound(t);
    expect(await automated(h, third)).toEqual([]);
    const skipped = (await activity(h, third)).timeline.find((e) => e.carrier_id === carrier);
    expect(skipped).toMatchObject({ kind: 'carrier_skipped', reason: 'daily_cap' });
  });

  it('adds to a queued message, as it goes out, a load of the lane that came in after it was planned', async () => {
    const { h } = await tenant(t, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
      wave_size: 1,
    });
    const second = await laneCarrier(t, h, { home_state: 'IL', routing_guide_tier: 2 });
    const first = await agentLoad(t, h);
    await agentRound(t);
    const [queued] = await automated(h, first);
    expect(queued).toMatchObject({ carrier_id: second, status: 'pending' });
    // A better-ranked carrier joins the lane; the next load's wave of one picks it, not the first.
    const best = await laneCarrier(t, h, { home_state: 'IL', routing_guide_tier: 1 });
    const later = await agentLoad(t, h);
    await agentRound(t);
    expect((await automated(h, later)).map((o) => [o.carrier_id, o.status])).toEqual([[best, 'pending']]);

    // Morning: the queued message offers the load that came in overnight too.
    await hoursBegin(t, h, [second, best]);
    await agentRound(t);
    const added = (await automated(h, later)).find((o) => o.carrier_id === second);
    expect(added).toMatchObject({
      status: 'active',
      modality: 'email',
      conversation_id: queued?.conversation_id,
    });
    const [message] = await messagesOf(t, h, defined(queued, 'the queued message').id);
    const numbers = await numbersOf(h, [first, later]);
    for (const n of numbers) expect(message?.body).toContain(n);
    const reason = (await activity(h, later)).timeline.find(
      (e) => e.carrier_id === second && e.kind === 'carrier_chosen',
    )?.reason;
    expect(reason).toBe(`offered with load ${numbers[0]} of the same lane, in one message`);
    // One message: the carrier got nothing else.
    expect((await messagesOf(t, h, defined(added, 'the added outreach').id)).map((m) => m.body)).toEqual([
      message?.body,
    ]);
  });

  it('fills a full message with loads the carrier was never offered before offering one again', async () => {
    const { h } = await tenant(t, {});
    const carrier = await laneCarrier(t, h);
    const onLane = (hours: number) => pickingUpIn(h, hours);
    // The soonest load was offered to the carrier 26 hours ago: past the re-contact window.
    const offered = await onLane(30);
    await agentRound(t);
    expect((await automated(h, offered)).map((o) => o.carrier_id)).toEqual([carrier]);
    await sentAgo(offered, '26 hours');
    // Eight loads it never heard of fill the message (at most eight loads); the old one waits.
    const fresh: string[] = [];
    for (let i = 0; i < 8; i++) fresh.push(await onLane(40 + i));
    await agentRound(t);
    for (const id of fresh) expect((await automated(h, id)).map((o) => o.carrier_id)).toEqual([carrier]);
    expect(await automated(h, offered)).toHaveLength(1);
  });

  it('fills a full call with the loads picked up within a day that the fewest carriers have heard of', async () => {
    const { h } = await tenant(t, { channel_order: ['call', 'email'] });
    const onLane = (hours: number) => pickingUpIn(h, hours);
    // Four loads picked up soon, each offered to one carrier already (in one message).
    const other = await laneCarrier(t, h);
    const heard: string[] = [];
    for (let i = 0; i < 4; i++) heard.push(await onLane(3 + i));
    await agentRound(t);
    for (const id of heard) expect((await automated(h, id)).map((o) => o.carrier_id)).toEqual([other]);
    // A load picked up in ten hours: nobody hears of it (the carrier is within its contact gap),
    // and it is not due again for an hour.
    const unheard = await onLane(10);
    await agentRound(t);
    expect(await automated(h, unheard)).toEqual([]);
    const notDue = await t.database.db
      .update(agentLoadStates)
      .set({ next_wave_at: sql`envoy_now() + interval '1 hour'` })
      .where(eq(agentLoadStates.load_id, unheard))
      .returning();
    expect(notDue).toHaveLength(1);
    // A carrier reached only by phone joins the lane, and a load picked up in two hours is planned.
    const phoneOnly = await laneCarrier(t, h, { email: null, phone: '+14155550176' });
    const first = await onLane(2);
    await agentRound(t);
    // Its call names four loads: the planned one, the one nobody had heard of, and the two
    // soonest of those offered already.
    const called = await t.database.db
      .select({ load: outreaches.load_id, modality: outreaches.modality, bundle: outreaches.bundle_id })
      .from(outreaches)
      .where(and(eq(outreaches.carrier_id, phoneOnly), eq(outreaches.is_automated, true)));
    expect(new Set(called.map((o) => o.modality))).toEqual(new Set(['call']));
    expect(called.filter((o) => o.bundle === null).map((o) => o.load)).toEqual([first]);
    expect(new Set(called.map((o) => o.load))).toEqual(
      new Set([first, unheard, defined(heard[0], 'heard[0]'), defined(heard[1], 'heard[1]')]),
    );
  });

  it("fills a full call first with the loads picked up before the carrier's cap next frees", async () => {
    const { h } = await tenant(t, { channel_order: ['call', 'email'] });
    const onLane = (hours: number) => pickingUpIn(h, hours);
    // A carrier reached only by phone is called about a load; that call will have been 20 hours ago,
    // so a contact of its daily cap frees in four hours.
    const phoneOnly = await laneCarrier(t, h, { email: null, phone: '+14155550177' });
    const earlier = await onLane(30);
    await agentRound(t);
    expect((await automated(h, earlier)).map((o) => [o.carrier_id, o.modality])).toEqual([
      [phoneOnly, 'call'],
    ]);
    // Three loads picked up within four hours, offered to another carrier in one message (the
    // phone-only carrier is within its contact gap).
    const other = await laneCarrier(t, h);
    const beforeFree = [await onLane(2.5), await onLane(3), await onLane(3.5)];
    await agentRound(t);
    for (const id of beforeFree) expect((await automated(h, id)).map((o) => o.carrier_id)).toEqual([other]);
    // A load picked up in ten hours, which nobody hears of (both carriers within their gap) and
    // which is not due again for an hour.
    const afterFree = await onLane(10);
    await agentRound(t);
    expect(await automated(h, afterFree)).toEqual([]);
    await t.database.db
      .update(agentLoadStates)
      .set({ next_wave_at: sql`envoy_now() + interval '1 hour'` })
      .where(eq(agentLoadStates.load_id, afterFree));
    await sentAgo(earlier, '20 hours');
    // A load picked up in two hours: the call names it and the three loads picked up before the
    // cap frees, though one carrier has heard of each; the load nobody has heard of waits for the
    // freed contact.
    const first = await onLane(2);
    await agentRound(t);
    const called = await t.database.db
      .select({ load: outreaches.load_id, bundle: outreaches.bundle_id })
      .from(outreaches)
      .where(
        and(
          eq(outreaches.carrier_id, phoneOnly),
          eq(outreaches.is_automated, true),
          sql`${outreaches.created_at} > envoy_now() - interval '1 hour'`,
        ),
      );
    expect(called.filter((o) => o.bundle === null).map((o) => o.load)).toEqual([first]);
    expect(new Set(called.map((o) => o.load))).toEqual(new Set([first, ...beforeFree]));
  });

  it('keeps the least gap between contacts of one carrier across loads and lanes', async () => {
    const { h } = await tenant(t, { carrier_min_gap_minutes: 30 });
    const carrier = await laneCarrier(t, h);
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier}/lane-preferences`,
      headers: h,
      payload: { origin: { state: 'IL' }, destination: { state: 'GA' } },
    });
    const first = await agentLoad(t, h);
    await agentRound(t);
    expect((await automated(h, first)).map((o) => o.status)).toEqual(['active']);
    // Another lane, and the same lane once its message went out: both wait for the gap.
    const otherLane = await agentLoad(t, h, {
      stops: [stopPayload('Pickup'), stopPayload('Dropoff', { city: 'Atlanta', state: 'GA' })],
    });
    const sameLane = await agentLoad(t, h);
    await agentRound(t);
    expect(await automated(h, otherLane)).toEqual([]);
    expect(await automated(h, sameLane)).toEqual([]);
    const skipped = (await activity(h, otherLane)).timeline.find((e) => e.carrier_id === carrier);
    expect(skipped).toMatchObject({ kind: 'carrier_skipped', reason: 'carrier_gap' });
    const state = await agentStateOf(t, otherLane);
    expect(defined(state, 'state').last_outcome).toBe('deferred');
    // The gap passes: the two loads are due at once, on two lanes of the carrier; one contact goes
    // out, naming both.
    await sentAgo(first, '31 minutes');
    await nextWaveNow(t, otherLane);
    await nextWaveNow(t, sameLane);
    await agentRound(t);
    const both = [...(await automated(h, otherLane)), ...(await automated(h, sameLane))];
    expect(both).toHaveLength(2);
    expect(new Set(both.map((o) => o.conversation_id)).size).toBe(1);
    const sends = await t.database.db
      .select({
        sent: outreaches.sent_at,
        message: sql<string>`coalesce(${outreaches.bundle_id}, ${outreaches.id})`,
      })
      .from(outreaches)
      .where(and(eq(outreaches.carrier_id, carrier), eq(outreaches.is_automated, true)));
    const messages = new Map(sends.map((s) => [s.message, defined(s.sent, 's.sent').getTime()]));
    expect(messages.size).toBe(2);
    const times = [...messages.values()].sort();
    for (let i = 1; i < times.length; i++)
      expect(defined(times[i], 'times[i]') - defined(times[i - 1], 'times[i - 1]')).toBeGreaterThanOrEqual(
        30 * 60_000,
      );
  });

  it('paces a carrier’s daily contacts over its hours, except for a load picked up soon', async () => {
    // No quiet hours and three contacts a day: one contact every eight hours at most, for loads
    // picked up later than twelve hours from now.
    const { h } = await tenant(t, { carrier_min_gap_minutes: 30, daily_cap_per_carrier: 3 });
    const carrier = await laneCarrier(t, h);
    const inDays = (days: number) => new Date(t.clock.ms() + days * 86_400_000).toISOString();
    const onLane = (pickup: string) =>
      agentLoad(t, h, {
        stops: [stopPayload('Pickup', { date: pickup }), stopPayload('Dropoff', { date: inDays(4) })],
      });
    const first = await onLane(inDays(3));
    await agentRound(t);
    expect((await automated(h, first)).map((o) => o.carrier_id)).toEqual([carrier]);
    // Its contact went out 31 minutes ago: past the gap, not past the pace.
    await sentAgo(first, '31 minutes');
    const later = await onLane(inDays(2));
    await agentRound(t);
    expect(await automated(h, later)).toEqual([]);
    expect((await activity(h, later)).timeline.find((e) => e.carrier_id === carrier)).toMatchObject({
      kind: 'carrier_skipped',
      reason: 'carrier_pace',
    });
    const state = defined(await agentStateOf(t, later), 'state');
    expect(state.last_outcome).toBe('deferred');
    // Planned again when the pace lets the carrier be contacted: 8 hours after its contact.
    const due = defined(state.next_wave_at, 'next_wave_at').getTime() - t.clock.ms();
    expect(due).toBe(8 * 3_600_000 - 31 * 60_000);
    // A load picked up in six hours is not held to the pace: its contact offers the other one too.
    const soon = await onLane(new Date(t.clock.ms() + 6 * 3_600_000).toISOString());
    await agentRound(t);
    const [urgent] = await automated(h, soon);
    expect(urgent).toMatchObject({ carrier_id: carrier, status: 'active' });
    const [offeredWith] = await automated(h, later);
    expect(offeredWith).toMatchObject({
      carrier_id: carrier,
      conversation_id: defined(urgent, 'urgent').conversation_id,
    });
  });

  it('reaches a carrier on its own preferred channel before the organization’s order', async () => {
    const { h } = await tenant(t, { channel_order: ['email', 'whatsapp'] });
    const prefers = await laneCarrier(t, h, { phone: '+14155550911', preferred_channel: 'whatsapp' });
    const plain = await laneCarrier(t, h, { phone: '+14155550912' });
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${prefers}`, headers: h })
    ).json();
    expect(carrier.preferred_channel).toBe('whatsapp');
    const bad = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${plain}`,
      headers: h,
      payload: { preferred_channel: 'fax' },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('preferred_channel');
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    const byCarrier = new Map((await automated(h, loadId)).map((o) => [o.carrier_id, o]));
    expect(defined(byCarrier.get(prefers), 'byCarrier.get(prefers)').modality).toBe('whatsapp');
    expect(defined(byCarrier.get(plain), 'byCarrier.get(plain)').modality).toBe('email');
  });

  it('raises a review item for an offer waiting for a rep, and escalates it once', async () => {
    const { h } = await tenant(t, { review_escalation_minutes: 15 });
    const endpoint = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: h,
      payload: { url: (await rx).url, event_types: ['offer.review_requested', 'offer.review_escalated'] },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const carrier = await laneCarrier(t, h);
    const email = await carrierEmail(t, h, carrier);
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    const outreach = defined((await automated(h, loadId))[0], 'the automated outreach');
    // Under the posted rate, automatic booking off: it waits for a rep.
    const answered = await reply(t, outreach, email, '1950 works for us');
    const offerId = answered.json<{ offer_id: string }>().offer_id;
    expect(offerId).toBeTruthy();
    await agentRound(t);
    await agentRound(t);
    const eventsOf = async (type: 'offer.review_requested' | 'offer.review_escalated') =>
      t.database.db
        .select({ data: events.data })
        .from(events)
        .where(and(eq(events.type, type), sql`${events.data}->>'offer_id' = ${offerId}`));
    expect(await eventsOf('offer.review_requested')).toEqual([
      {
        data: expect.objectContaining({
          offer_id: offerId,
          load_id: loadId,
          offer_amount: 1950,
          escalated_at: null,
        }),
      },
    ]);
    expect(await eventsOf('offer.review_escalated')).toEqual([]);
    const open = await t.app.inject({ method: 'GET', url: '/api/v1/agent/reviews', headers: h });
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json().data).toEqual([expect.objectContaining({ offer_id: offerId, escalated_at: null })]);
    expect((await activity(h, loadId)).status).toBe('offers_pending_review');

    // Twenty minutes on: escalated once, however many rounds run.
    await reviewWaited(t, offerId, 20);
    await agentRound(t);
    await agentRound(t);
    expect(await eventsOf('offer.review_escalated')).toHaveLength(1);
    const escalated = await t.app.inject({
      method: 'GET',
      url: '/api/v1/agent/reviews?escalated=true',
      headers: h,
    });
    expect(escalated.json().data).toEqual([
      expect.objectContaining({ offer_id: offerId, escalated_at: expect.any(String) }),
    ]);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/agent/reviews?escalated=false', headers: h })).json()
        .data,
    ).toEqual([]);

    // A rep decides: the item leaves the list.
    const decided = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offerId}`,
      headers: h,
      payload: { status: 'rejected' },
    });
    expect(decided.statusCode, decided.body).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/agent/reviews', headers: h })).json().data,
    ).toEqual([]);
  });
});
