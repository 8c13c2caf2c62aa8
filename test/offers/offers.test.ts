import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { addOffer, createLoad } from '../helpers/load-factories.js';

const registry = registryFile([]);
type Headers = Record<string, string>;

const postOffer = (t: TestApp, headers: Headers, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/offers', headers, payload: body });
const patchOffer = (t: TestApp, headers: Headers, id: string, status: string) =>
  t.app.inject({ method: 'PATCH', url: `/api/v1/offers/${id}`, headers, payload: { status } });

async function offer(t: TestApp, headers: Headers, body: Record<string, unknown>) {
  const res = await postOffer(t, headers, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('offers', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });

  it('creates a pending api offer with the nested carrier, contact and rep, and keeps the load aggregates', async () => {
    const { orgId, user } = await createTenant(t);
    const rep = await createUser(t, orgId, 'MEMBER', { name: 'Rita Rep' });
    const carrier = await createCarrier(t, user.headers, {
      mc_number: '777001',
      contacts: [{ contact_type: 'DISPATCHER', name: 'Dee Spatch', phone: '(312) 555-0101' }],
    });
    const loadId = await createLoad(t, user.headers, { tms_load_id: 'TMS-1' });
    const created = await offer(t, rep.headers, {
      load_id: loadId,
      offer_amount: 1850.5,
      carrier_id: carrier.id,
      contact_id: carrier.contacts[0].id,
      notes: 'Can pick up tomorrow',
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^ofr_/),
      load_id: loadId,
      tms_load_id: 'TMS-1',
      offer_amount: 1850.5,
      status: 'pending',
      source: 'api',
      channel: null,
      accepted_at: null,
      carrier_id: carrier.id,
      contact_id: carrier.contacts[0].id,
      contact_name: 'Dee Spatch',
      contact_phone: '+13125550101',
      rep_name: 'Rita Rep',
      created_by_id: rep.id,
      notes: 'Can pick up tomorrow',
    });
    expect(created.carrier).toMatchObject({
      id: carrier.id,
      mc_number: '777001',
      contacts: expect.any(Array),
    });
    expect(created.load_number).toEqual(expect.any(String));

    const key = await createApiKey(t, user.headers);
    const second = await offer(t, key.headers, { load_id: loadId, offer_amount: 1700 });
    expect(second).toMatchObject({ carrier: null, carrier_id: null, rep_name: null, source: 'api' });

    const load = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: user.headers })
    ).json();
    expect(load).toMatchObject({ offer_count: 1, max_offer_amount: 1850.5, min_offer_amount: 1700 });
  });

  it('refuses an unknown load, carrier or a contact of another carrier with 422', async () => {
    const { user } = await createTenant(t);
    const loadId = await createLoad(t, user.headers);
    const a = await createCarrier(t, user.headers, { contacts: [{ contact_type: 'CARRIER', name: 'A' }] });
    const b = await createCarrier(t, user.headers);
    const noLoad = await postOffer(t, user.headers, { load_id: 'load_nope', offer_amount: 1 });
    expect(noLoad.statusCode).toBe(422);
    expect(noLoad.json().error.param).toBe('load_id');
    const noCarrier = await postOffer(t, user.headers, {
      load_id: loadId,
      offer_amount: 1,
      carrier_id: 'car_x',
    });
    expect(noCarrier.json().error.param).toBe('carrier_id');
    const wrongContact = await postOffer(t, user.headers, {
      load_id: loadId,
      offer_amount: 1,
      carrier_id: b.id,
      contact_id: a.contacts[0].id,
    });
    expect(wrongContact.statusCode).toBe(422);
    expect(wrongContact.json().error.param).toBe('contact_id');
    const negative = await postOffer(t, user.headers, { load_id: loadId, offer_amount: -5 });
    expect(negative.statusCode).toBe(422);
    expect(negative.json().error.param).toBe('offer_amount');
  });

  describe('PATCH /offers/{id} transitions', () => {
    it('moves freely between pending, accepted and rejected, stamping and clearing accepted_at', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const o = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const moves = ['accepted', 'pending', 'accepted', 'rejected', 'pending', 'rejected', 'accepted'];
      for (const status of moves) {
        const res = await patchOffer(t, user.headers, o.id, status);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().status).toBe(status);
        if (status === 'accepted') expect(res.json().accepted_at).toMatch(/Z$/);
        else expect(res.json().accepted_at).toBeNull();
        expect(res.json().updated_by_id).toBe(user.id);
      }
    });

    it('returns the same status again unchanged, with 200', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const o = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const accepted = (await patchOffer(t, user.headers, o.id, 'accepted')).json();
      const again = await patchOffer(t, user.headers, o.id, 'accepted');
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(accepted);
      const pendingAgain = await patchOffer(
        t,
        user.headers,
        (await offer(t, user.headers, { load_id: loadId, offer_amount: 900 })).id,
        'pending',
      );
      expect(pendingAgain.statusCode).toBe(200);
    });

    it('refuses a second accepted offer on a load with 409 offer_already_accepted, until the first is left', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const first = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const second = await offer(t, user.headers, { load_id: loadId, offer_amount: 1100 });
      expect((await patchOffer(t, user.headers, first.id, 'accepted')).statusCode).toBe(200);
      const refused = await patchOffer(t, user.headers, second.id, 'accepted');
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({ code: 'offer_already_accepted', param: 'status' });
      expect(refused.json().error.message).toContain(first.id);
      // Rejecting or reopening the other offer stays free.
      expect((await patchOffer(t, user.headers, second.id, 'rejected')).statusCode).toBe(200);
      expect((await patchOffer(t, user.headers, first.id, 'rejected')).statusCode).toBe(200);
      expect((await patchOffer(t, user.headers, second.id, 'accepted')).statusCode).toBe(200);
      // Offers of another load are not in the way.
      const otherLoad = await createLoad(t, user.headers);
      const elsewhere = await offer(t, user.headers, { load_id: otherLoad, offer_amount: 5 });
      expect((await patchOffer(t, user.headers, elsewhere.id, 'accepted')).statusCode).toBe(200);
    });

    it.each(['Cancelled', 'Delivered'])(
      'refuses accepting on a %s load with 409 load_not_bookable',
      async (status) => {
        const { user } = await createTenant(t);
        const loadId = await createLoad(t, user.headers, { tms_status: status });
        const o = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
        const res = await patchOffer(t, user.headers, o.id, 'accepted');
        expect(res.statusCode).toBe(409);
        expect(res.json().error.code).toBe('load_not_bookable');
        // Rejecting is still allowed.
        expect((await patchOffer(t, user.headers, o.id, 'rejected')).statusCode).toBe(200);
      },
    );

    it('gives one 200 and one 409 when two offers of a load are accepted at the same instant', async () => {
      const { user } = await createTenant(t);
      for (let round = 0; round < 5; round++) {
        const loadId = await createLoad(t, user.headers);
        const a = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
        const b = await offer(t, user.headers, { load_id: loadId, offer_amount: 1001 });
        const results = await Promise.all([
          patchOffer(t, user.headers, a.id, 'accepted'),
          patchOffer(t, user.headers, b.id, 'accepted'),
        ]);
        expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
        expect(
          defined(
            results.find((r) => r.statusCode === 409),
            'results.find((r) => r.statusCode === 409)',
          ).json().error.code,
        ).toBe('offer_already_accepted');
        const accepted = (
          await t.app.inject({
            method: 'GET',
            url: `/api/v1/offers?load_id=${loadId}&status=accepted`,
            headers: user.headers,
          })
        ).json();
        expect(accepted.pagination.total_count).toBe(1);
      }
    });

    it('holds one accepted offer per load in the database itself', async () => {
      const { orgId, user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      await addOffer(t, orgId, loadId, { status: 'accepted' });
      await expect(addOffer(t, orgId, loadId, { status: 'accepted' })).rejects.toThrow();
      const pending = await offer(t, user.headers, { load_id: loadId, offer_amount: 10 });
      const res = await patchOffer(t, user.headers, pending.id, 'accepted');
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('offer_already_accepted');
    });

    it('validates the status and answers 404 for an unknown offer', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const o = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const bad = await patchOffer(t, user.headers, o.id, 'booked');
      expect(bad.statusCode).toBe(422);
      expect(bad.json().error.param).toBe('status');
      expect((await patchOffer(t, user.headers, 'ofr_nope', 'accepted')).statusCode).toBe(404);
    });

    it('replays a keyed PATCH', async () => {
      const { user } = await createTenant(t);
      const loadId = await createLoad(t, user.headers);
      const o = await offer(t, user.headers, { load_id: loadId, offer_amount: 1000 });
      const headers = { ...user.headers, 'idempotency-key': `k-${o.id}` };
      const first = await patchOffer(t, headers, o.id, 'accepted');
      const replay = await patchOffer(t, headers, o.id, 'accepted');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.json()).toEqual(first.json());
    });
  });

  it('lists with filters, per load, and hides other organizations', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    const carrier = await createCarrier(t, user.headers);
    const load1 = await createLoad(t, user.headers);
    const load2 = await createLoad(t, user.headers);
    const o1 = await offer(t, user.headers, { load_id: load1, offer_amount: 100, carrier_id: carrier.id });
    const o2 = await offer(t, user.headers, { load_id: load1, offer_amount: 200 });
    const o3 = await offer(t, user.headers, { load_id: load2, offer_amount: 300, carrier_id: carrier.id });
    await patchOffer(t, user.headers, o2.id, 'rejected');
    const list = async (qs: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/offers${qs}`, headers: user.headers }))
        .json()
        .data.map((o: { id: string }) => o.id);
    expect(await list('')).toEqual([o3.id, o2.id, o1.id]);
    expect(await list(`?load_id=${load1}`)).toEqual([o2.id, o1.id]);
    expect(await list(`?carrier_id=${carrier.id}`)).toEqual([o3.id, o1.id]);
    expect(await list('?status=rejected')).toEqual([o2.id]);
    expect(await list(`?status=pending,rejected&load_id=${load1}`)).toEqual([o2.id, o1.id]);
    expect(await list('?channel=voice')).toEqual([]);
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/offers?channel=fax',
      headers: user.headers,
    });
    expect(bad.statusCode).toBe(422);

    const perLoad = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${load2}/offers`,
      headers: user.headers,
    });
    expect(perLoad.json().data.map((o: { id: string }) => o.id)).toEqual([o3.id]);
    expect(perLoad.json().pagination.total_count).toBe(1);

    // Another organization sees none of it.
    const theirs = await t.app.inject({ method: 'GET', url: '/api/v1/offers', headers: other.user.headers });
    expect(theirs.json().data).toEqual([]);
    for (const url of [`/api/v1/offers/${o1.id}`, `/api/v1/loads/${load1}/offers`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: other.user.headers });
      expect(res.statusCode).toBe(404);
    }
    expect((await patchOffer(t, other.user.headers, o1.id, 'accepted')).statusCode).toBe(404);
    const foreign = await postOffer(t, other.user.headers, { load_id: load1, offer_amount: 5 });
    expect(foreign.statusCode).toBe(422);
    const unauth = await t.app.inject({ method: 'GET', url: '/api/v1/offers' });
    expect(unauth.statusCode).toBe(401);
  });
});
