import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const registry = registryFile([]);
type Headers = Record<string, string>;

async function offer(t: TestApp, headers: Headers, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: '/api/v1/offers', headers, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; accepted_at: string | null }>();
}

const patchOffer = (t: TestApp, headers: Headers, id: string, status: string) =>
  t.app.inject({ method: 'PATCH', url: `/api/v1/offers/${id}`, headers, payload: { status } });

async function accept(t: TestApp, headers: Headers, id: string, status = 'accepted') {
  const res = await patchOffer(t, headers, id, status);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ id: string; accepted_at: string | null }>();
}

async function getJson(t: TestApp, headers: Headers, url: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json();
}

const listIds = async (t: TestApp, headers: Headers, query: string) =>
  (await getJson(t, headers, `/loads?${query}&page_size=100`)).data.map((l: { id: string }) => l.id);

/** The load.booked and load.unbooked events stored for the organization, oldest first. */
async function bookingEvents(t: TestApp, orgId: string) {
  const { rows } = await t.database.pool.query<{ type: string; data: Record<string, unknown> }>(
    `SELECT type, data FROM events WHERE organization_id = $1 AND type IN ('load.booked', 'load.unbooked')
     ORDER BY txid, seq`,
    [orgId],
  );
  return rows;
}

/** The organization's tab counts in SQL: loads with an accepted offer, and with a pending one but none accepted. */
async function sqlTabs(t: TestApp, orgId: string) {
  const { rows } = await t.database.pool.query<{ booked: number; active: number }>(
    `SELECT
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id AND o.status = 'accepted'))::int AS booked,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id AND o.status = 'pending')
         AND NOT EXISTS (SELECT 1 FROM offers o WHERE o.load_id = l.id AND o.status = 'accepted'))::int AS active
     FROM loads l WHERE l.organization_id = $1`,
    [orgId],
  );
  return defined(rows[0], 'rows[0]');
}

describe('a load booked on an offer', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false', COMPLIANCE_REGISTRY_FILE: registry } });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  /** An organization with a webhook endpoint on the local receiver for the booking events. */
  async function bookingTenant() {
    const { orgId, user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const ep = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: key.headers,
      payload: { url: (await rx).url, event_types: ['load.booked', 'load.unbooked'] },
    });
    expect(ep.statusCode, ep.body).toBe(201);
    return { orgId, user, key };
  }

  const delivered = async (orgId: string, type: string) => {
    await drainWorker(t, 'webhooks');
    return (await rx).received.filter((r) => r.json.organization_id === orgId && r.json.type === type);
  };

  it("shows a rep's accept on the load, moves it from active_offers to booked, counts it, and says load.booked once", async () => {
    const { orgId, user, key } = await bookingTenant();
    const rep = await createUser(t, orgId, 'MEMBER', { name: 'Rita Rep' });
    const carrier = await createCarrier(t, user.headers, { name: 'Booked Freight', mc_number: '5550123' });
    const loadId = await createLoad(t, user.headers, { tms_load_id: 'TMS-B1', tms_status: 'Quoted' });
    const other = await createLoad(t, user.headers, { tms_status: 'Quoted' });
    const winner = await offer(t, user.headers, {
      load_id: loadId,
      offer_amount: 1875.5,
      carrier_id: carrier.id,
    });
    const runnerUp = await offer(t, user.headers, { load_id: loadId, offer_amount: 1990 });
    await offer(t, user.headers, { load_id: other, offer_amount: 1500 });

    const before = await getJson(t, user.headers, `/loads/${loadId}`);
    expect(before).toMatchObject({ load_status: 'Quotes Received', booked_offer: null });
    expect((await listIds(t, user.headers, 'tab=active_offers')).sort()).toEqual([loadId, other].sort());
    expect(await listIds(t, user.headers, 'tab=booked')).toEqual([]);
    expect((await getJson(t, user.headers, '/loads/stats')).by_tab).toMatchObject({
      active_offers: 2,
      booked: 0,
    });

    const accepted = await accept(t, rep.headers, winner.id);
    const booking = {
      offer_id: winner.id,
      carrier_id: carrier.id,
      carrier_name: 'Booked Freight',
      carrier_mc_number: '5550123',
      amount: 1875.5,
      booked_at: accepted.accepted_at,
      booked_by: 'user',
    };
    expect(accepted.accepted_at).toMatch(/Z$/);

    // The load view, every list item of it, and the load's status as the TMS left it.
    const after = await getJson(t, user.headers, `/loads/${loadId}`);
    expect(after.booked_offer).toEqual(booking);
    expect(after.load_status).toBe('Quotes Received');
    expect(after.tms_status).toBe('Quoted');
    const page = await getJson(t, key.headers, '/loads?page_size=100');
    const listed = z.array(z.object({ id: z.string(), booked_offer: z.unknown() })).parse(page.data);
    const byId = new Map(listed.map((l) => [l.id, l]));
    expect(byId.get(loadId)?.booked_offer).toEqual(booking);
    expect(byId.get(other)?.booked_offer).toBeNull();

    // Booked, and out of active_offers though the runner-up is still pending.
    expect(
      (await getJson(t, user.headers, `/offers/${runnerUp.id}`)).status,
      'the other offer is left as it was',
    ).toBe('pending');
    expect(await listIds(t, user.headers, 'tab=booked')).toEqual([loadId]);
    expect(await listIds(t, user.headers, 'tab=active_offers')).toEqual([other]);
    expect(await listIds(t, user.headers, 'tab=booked&status=Quotes%20Received')).toEqual([loadId]);
    expect(await listIds(t, user.headers, 'tab=active_offers&search=TMS-B1')).toEqual([]);
    const stats = await getJson(t, user.headers, '/loads/stats');
    expect(stats.by_tab).toMatchObject({ booked: 1, active_offers: 1, all: 2 });
    expect(stats.by_status['Quotes Received']).toBe(2);
    expect((await getJson(t, user.headers, '/loads/stats?status=Quotes%20Received')).by_tab).toMatchObject({
      booked: 1,
      active_offers: 1,
    });
    expect(await sqlTabs(t, orgId)).toEqual({ booked: 1, active: 1 });

    // Accepting the accepted offer again changes nothing and books nothing more.
    await accept(t, user.headers, winner.id);
    const events = await delivered(orgId, 'load.booked');
    expect(events).toHaveLength(1);
    expect(defined(events[0], 'events[0]').json.data).toEqual({
      load_id: loadId,
      tms_load_id: 'TMS-B1',
      external_id: null,
      load_number: before.load_number,
      load_status: 'Quotes Received',
      booked_offer: booking,
    });
    expect(await delivered(orgId, 'load.unbooked')).toEqual([]);
  });

  it('undoes the booking when the offer is rejected or reopened, and books again once on a new accept', async () => {
    const { orgId, user } = await bookingTenant();
    const loadId = await createLoad(t, user.headers, { tms_status: 'Quoted' });
    const first = await offer(t, user.headers, { load_id: loadId, offer_amount: 1800 });
    const second = await offer(t, user.headers, { load_id: loadId, offer_amount: 1850 });
    const tabs = async () => ({
      booked: await listIds(t, user.headers, 'tab=booked'),
      active: await listIds(t, user.headers, 'tab=active_offers'),
      offer: (await getJson(t, user.headers, `/loads/${loadId}`)).booked_offer?.offer_id ?? null,
    });

    const firstBooking = await accept(t, user.headers, first.id);
    expect(await tabs()).toEqual({ booked: [loadId], active: [], offer: first.id });
    // Rejected: not booked, and back in active_offers since the second offer is still pending.
    await accept(t, user.headers, first.id, 'rejected');
    expect(await tabs()).toEqual({ booked: [], active: [loadId], offer: null });
    expect(await sqlTabs(t, orgId)).toEqual({ booked: 0, active: 1 });

    await accept(t, user.headers, second.id);
    expect(await tabs()).toEqual({ booked: [loadId], active: [], offer: second.id });
    // Reopened (back to pending): in active_offers on its own pending offer.
    await accept(t, user.headers, second.id, 'pending');
    expect(await tabs()).toEqual({ booked: [], active: [loadId], offer: null });
    expect((await getJson(t, user.headers, '/loads/stats')).by_tab).toMatchObject({
      booked: 0,
      active_offers: 1,
    });

    const events = await bookingEvents(t, orgId);
    expect(events.map((e) => e.type)).toEqual([
      'load.booked',
      'load.unbooked',
      'load.booked',
      'load.unbooked',
    ]);
    expect(events.map((e) => e.data.booked_offer ?? e.data.previous_booked_offer)).toEqual(
      [first.id, first.id, second.id, second.id].map((id) => expect.objectContaining({ offer_id: id })),
    );
    expect(defined(events[1], 'events[1]').data).toMatchObject({
      load_id: loadId,
      load_status: 'Quotes Received',
      offer_status: 'rejected',
      previous_booked_offer: { offer_id: first.id, booked_at: firstBooking.accepted_at, booked_by: 'user' },
    });
    expect(defined(events[3], 'events[3]').data).toMatchObject({ offer_status: 'pending' });
    // Delivered as stored: each once.
    expect(await delivered(orgId, 'load.booked')).toHaveLength(2);
    expect(await delivered(orgId, 'load.unbooked')).toHaveLength(2);
    // The load's status never moved.
    expect((await getJson(t, user.headers, `/loads/${loadId}`)).load_status).toBe('Quotes Received');
  });

  it('books a load once when two of its offers, or one offer twice, are accepted at the same instant', async () => {
    const { orgId, user } = await bookingTenant();
    for (let round = 0; round < 4; round++) {
      const loadId = await createLoad(t, user.headers, { tms_status: 'Quoted' });
      const a = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const b = await offer(t, user.headers, { load_id: loadId, offer_amount: 1001 });
      const results = await Promise.all([
        patchOffer(t, user.headers, a.id, 'accepted'),
        patchOffer(t, user.headers, b.id, 'accepted'),
        patchOffer(t, user.headers, a.id, 'accepted'),
      ]);
      const codes = results.map((r) => r.statusCode);
      const won = codes[1] === 200 ? b.id : a.id;
      expect(codes.filter((c) => c === 200).length, String(codes)).toBe(won === a.id ? 2 : 1);
      const booked = (await getJson(t, user.headers, `/loads/${loadId}`)).booked_offer;
      expect(booked.offer_id).toBe(won);
      const events = (await bookingEvents(t, orgId)).filter((e) => e.data.load_id === loadId);
      expect(
        events.map((e) => [e.type, z.object({ offer_id: z.string() }).parse(e.data.booked_offer).offer_id]),
      ).toEqual([['load.booked', won]]);
    }
    expect(await delivered(orgId, 'load.booked')).toHaveLength(4);
  });

  it('books each load when offers of different loads are accepted at the same instant, with exact counts', async () => {
    const { orgId, user, key } = await bookingTenant();
    const reno = { stops: [stopPayload('Pickup', { city: 'Reno', state: 'NV' }), stopPayload('Dropoff')] };
    const loads: string[] = [];
    const offers: string[] = [];
    for (let n = 0; n < 8; n++) {
      const loadId = await createLoad(t, user.headers, { tms_status: 'Quoted', ...(n % 2 ? reno : {}) });
      loads.push(loadId);
      offers.push((await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 + n })).id);
      await offer(t, user.headers, { load_id: loadId, offer_amount: 2000 + n });
    }
    // Counts kept before the accepts, alone and with a filter, must follow them.
    const lists = [
      'tab=booked',
      'tab=active_offers',
      'tab=booked&origin_city=reno',
      'tab=active_offers&origin_city=reno',
    ];
    const total = async (query: string) =>
      z.number().parse((await getJson(t, key.headers, `/loads?${query}`)).pagination.total_count);
    expect(await Promise.all(lists.map(total))).toEqual([0, 8, 0, 4]);

    const results = await Promise.all([
      ...offers.map((id) => patchOffer(t, user.headers, id, 'accepted')),
      ...lists.map((q) => t.app.inject({ method: 'GET', url: `/api/v1/loads?${q}`, headers: key.headers })),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 200));
    expect(await Promise.all(lists.map(total))).toEqual([8, 0, 4, 0]);
    expect(await sqlTabs(t, orgId)).toEqual({ booked: 8, active: 0 });
    expect((await getJson(t, key.headers, '/loads/stats')).by_tab).toMatchObject({
      booked: 8,
      active_offers: 0,
    });
    const page = await getJson(t, key.headers, '/loads?tab=booked&page_size=100');
    expect(
      new Set(page.data.map((l: { booked_offer: { offer_id: string } }) => l.booked_offer.offer_id)),
    ).toEqual(new Set(offers));

    // Half of them un-booked at once: back in active_offers on their other pending offer.
    await Promise.all(offers.slice(0, 4).map((id) => accept(t, user.headers, id, 'rejected')));
    expect(await Promise.all(lists.map(total))).toEqual([4, 4, 2, 2]);
    expect(await sqlTabs(t, orgId)).toEqual({ booked: 4, active: 4 });
    expect((await getJson(t, key.headers, '/loads/stats')).by_tab).toMatchObject({
      booked: 4,
      active_offers: 4,
    });
    expect((await bookingEvents(t, orgId)).map((e) => e.type).sort()).toEqual([
      ...Array(8).fill('load.booked'),
      ...Array(4).fill('load.unbooked'),
    ]);
  });

  it('accepts booked in a saved view, and keeps another organization out', async () => {
    const { user } = await bookingTenant();
    const loadId = await createLoad(t, user.headers, { tms_status: 'Quoted' });
    await accept(t, user.headers, (await offer(t, user.headers, { load_id: loadId, offer_amount: 900 })).id);
    const view = await t.app.inject({
      method: 'POST',
      url: '/api/v1/load-views',
      headers: user.headers,
      payload: { name: 'Booked', filters: { tab: 'booked' } },
    });
    expect(view.statusCode, view.body).toBe(201);
    expect(await listIds(t, user.headers, `view_id=${view.json().id}`)).toEqual([loadId]);
    const stranger = await createTenant(t);
    expect(await listIds(t, stranger.user.headers, 'tab=booked')).toEqual([]);
    expect((await getJson(t, stranger.user.headers, '/loads/stats')).by_tab.booked).toBe(0);
  });
});
