import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import { OutreachSweeper } from '../../src/workers/outreach-sweeper.js';
import { advanceUntil, drainWorker, manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';

const registry = registryFile([
  goodStanding('610001', '710001'),
  goodStanding('610002', '710002', { out_of_service: true }),
]);
type Headers = Record<string, string>;

let phoneSerial = 0;
const nextPhone = () => `+1415555${String(3000 + (phoneSerial++ % 7000)).padStart(4, '0')}`;

const postOutreach = (t: TestApp, headers: Headers, body: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/outreaches', headers, payload: body });
const getOutreach = async (t: TestApp, headers: Headers, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/outreaches/${id}`, headers })).json();

/** A load from Chicago, IL to Dallas, TX (VAN), and a carrier reachable by phone and e-mail. */
async function setup(t: TestApp, carrierBody: Record<string, unknown> = {}) {
  const { orgId, user } = await createTenant(t);
  const carrier = await createCarrier(t, user.headers, {
    phone: nextPhone(),
    email: `dispatch-${phoneSerial}@carrier.example`,
    ...carrierBody,
  });
  const loadId = await createLoad(t, user.headers);
  return { orgId, user, carrier, loadId };
}

async function lanePreference(
  t: TestApp,
  headers: Headers,
  carrierId: string,
  body: Record<string, unknown>,
) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/carriers/${carrierId}/lane-preferences`,
    headers,
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('outreaches', () => {
  // On a manual clock the test moves: the simulated platform plays a call, and outreaches age, only
  // as it does. No loop runs: the sweeper's round is the test's.
  const t = useTestApp({
    env: { COMPLIANCE_REGISTRY_FILE: registry, WORKERS_ENABLED: 'false' },
    clock: new Date('2026-11-17T16:00:00Z'),
  });

  it('starts a call outreach that follows its call, with the full nested carrier', async () => {
    const { user, carrier, loadId } = await setup(t);
    const res = await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      id: expect.stringMatching(/^otr_/),
      carrier_id: carrier.id,
      load_id: loadId,
      modality: 'call',
      direction: 'outbound',
      status: 'pending',
      is_automated: false,
      call_id: expect.stringMatching(/^call_/),
      load_number: expect.any(String),
      delivery_failed_at: null,
    });
    expect(created.carrier).toEqual(
      (
        await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrier.id}`, headers: user.headers })
      ).json(),
    );
    const call = (
      await t.app.inject({ method: 'GET', url: `/api/v1/calls/${created.call_id}`, headers: user.headers })
    ).json();
    expect(call).toMatchObject({ to_number: carrier.phone, load_id: loadId, call_type: 'LOAD_BOOKING' });
    const ended = await advanceUntil(
      t,
      () => getOutreach(t, user.headers, created.id),
      (o) => ['completed', 'failed', 'no_response'].includes(o.status),
    );
    expect(ended.id).toBe(created.id);
  });

  it('sends e-mail and WhatsApp outreaches (active with a conversation), and needs an address for them', async () => {
    const { user, carrier, loadId } = await setup(t);
    for (const modality of ['email', 'whatsapp']) {
      const res = await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId, modality });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        modality,
        status: 'active',
        conversation_id: expect.stringMatching(/^conv_/),
        call_id: null,
      });
    }
    const bare = await createCarrier(t, user.headers);
    const noEmail = await postOutreach(t, user.headers, {
      carrier_id: bare.id,
      load_id: loadId,
      modality: 'email',
    });
    expect(noEmail.statusCode).toBe(422);
    expect(noEmail.json().error.param).toBe('carrier_id');
    const noPhone = await postOutreach(t, user.headers, { carrier_id: bare.id, load_id: loadId });
    expect(noPhone.statusCode).toBe(422);
    const badModality = await postOutreach(t, user.headers, {
      carrier_id: carrier.id,
      load_id: loadId,
      modality: 'fax',
    });
    expect(badModality.statusCode).toBe(422);
    expect(badModality.json().error.param).toBe('modality');
    const noLoad = await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: 'load_nope' });
    expect(noLoad.statusCode).toBe(422);
    expect(noLoad.json().error.param).toBe('load_id');
  });

  describe('the contact guard', () => {
    const refused = async (headers: Headers, carrierId: string, loadId: string, reason: RegExp) => {
      const count = async () =>
        (
          await t.app.inject({ method: 'GET', url: `/api/v1/outreaches?carrier_id=${carrierId}`, headers })
        ).json().pagination.total_count;
      const before = await count();
      for (const modality of ['call', 'email', 'whatsapp']) {
        const res = await postOutreach(t, headers, { carrier_id: carrierId, load_id: loadId, modality });
        expect(res.statusCode, res.body).toBe(409);
        expect(res.json().error.code).toBe('contact_not_allowed');
        expect(res.json().error.message).toMatch(reason);
      }
      expect(await count()).toBe(before);
    };

    it('refuses a carrier that asked not to be contacted', async () => {
      const { user, carrier, loadId } = await setup(t);
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${carrier.id}/stop-contact`,
        headers: user.headers,
      });
      await refused(user.headers, carrier.id, loadId, /asked not to be contacted/);
      // POST /calls keeps its own code for this case.
      const call = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: { phone_number: carrier.phone, load_id: loadId },
      });
      expect(call.json().error.code).toBe('stop_contact_requested');
    });

    it('refuses a disabled carrier, also on POST /calls about a load', async () => {
      const { user, carrier, loadId } = await setup(t);
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${carrier.id}/disable`,
        headers: user.headers,
        payload: { reason: 'service_quality' },
      });
      await refused(user.headers, carrier.id, loadId, /is disabled/);
      const call = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: { phone_number: carrier.phone, load_id: loadId },
      });
      expect(call.statusCode).toBe(409);
      expect(call.json().error.code).toBe('contact_not_allowed');
    });

    it('refuses a carrier whose compliance is BLOCKED', async () => {
      const { user, carrier, loadId } = await setup(t, { mc_number: '610002', dot_number: '710002' });
      expect(carrier.compliance_status).toBe('BLOCKED');
      await refused(user.headers, carrier.id, loadId, /BLOCKED/);
    });

    it('refuses a carrier restricted (do not use) on the load’s lane, and allows it elsewhere', async () => {
      const { user, carrier, loadId } = await setup(t, { mc_number: '610001', dot_number: '710001' });
      const pref = await lanePreference(t, user.headers, carrier.id, {
        origin: { state: 'IL' },
        destination: { state: 'TX' },
      });
      expect(
        (await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId, modality: 'email' }))
          .statusCode,
      ).toBe(201);
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${carrier.id}/lane-preferences/${pref.id}/restrict`,
        headers: user.headers,
        payload: { reason: 'rate_disagreement' },
      });
      await refused(user.headers, carrier.id, loadId, /restricted/);
      // Another lane (Ohio to Georgia) is not affected.
      const elsewhere = await createLoad(t, user.headers, {
        stops: [
          stopPayload('Pickup', { city: 'Columbus', state: 'OH' }),
          stopPayload('Dropoff', { city: 'Atlanta', state: 'GA' }),
        ],
      });
      expect(
        (
          await postOutreach(t, user.headers, {
            carrier_id: carrier.id,
            load_id: elsewhere,
            modality: 'email',
          })
        ).statusCode,
      ).toBe(201);
    });

    it('refuses a carrier with a restricted preference type on the lane, matching cities and equipment when the lane names them', async () => {
      const { user, carrier, loadId } = await setup(t);
      await lanePreference(t, user.headers, carrier.id, {
        origin: { city: 'chicago', state: 'IL' },
        destination: { city: 'Dallas', state: 'TX' },
        equipment_type: 'VAN',
        preference_type: 'restricted',
      });
      await refused(user.headers, carrier.id, loadId, /restricted/);
      // A lane naming another city or equipment does not match the load.
      const other = await setup(t);
      await lanePreference(t, other.user.headers, other.carrier.id, {
        origin: { city: 'Joliet', state: 'IL' },
        destination: { state: 'TX' },
        preference_type: 'restricted',
      });
      await lanePreference(t, other.user.headers, other.carrier.id, {
        origin: { state: 'IL' },
        destination: { state: 'TX' },
        equipment_type: 'REEFER',
        preference_type: 'restricted',
      });
      expect(
        (
          await postOutreach(t, other.user.headers, {
            carrier_id: other.carrier.id,
            load_id: other.loadId,
            modality: 'email',
          })
        ).statusCode,
      ).toBe(201);
    });

    it('refuses a carrier admin-disabled for the load (disable-for-load)', async () => {
      const { user, carrier, loadId } = await setup(t);
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${carrier.id}/lane-preferences/disable-for-load`,
        headers: user.headers,
        payload: { load_id: loadId, reason: 'pause_on_lane' },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        id: expect.stringMatching(/^lp_/),
        carrier_id: carrier.id,
        preference_type: 'admin_disabled',
        is_active: true,
        lane: {
          origin: { city: 'Chicago', state: 'IL', country: 'US' },
          destination: { city: 'Dallas', state: 'TX', country: 'US' },
          equipment_type: 'VAN',
        },
      });
      await refused(user.headers, carrier.id, loadId, /disabled on the lane/);
      const call = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: { phone_number: carrier.phone, load_id: loadId },
      });
      expect(call.json().error.code).toBe('contact_not_allowed');
      // Without a load the carrier may still be called.
      const plain = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: user.headers,
        payload: { phone_number: carrier.phone, template_variables: { simulate_outcome: 'failed' } },
      });
      expect(plain.statusCode).toBe(201);
    });
  });

  describe('POST /carriers/{id}/lane-preferences/disable-for-load', () => {
    it('turns an existing preference on the lane admin_disabled, repeats unchanged, audited once', async () => {
      const { user, carrier, loadId } = await setup(t);
      const pref = await lanePreference(t, user.headers, carrier.id, {
        origin: { city: 'Chicago', state: 'IL' },
        destination: { city: 'Dallas', state: 'TX' },
        equipment_type: 'VAN',
        routing_guide_tier: 2,
      });
      const call = (body: Record<string, unknown>, headers = user.headers, id = carrier.id) =>
        t.app.inject({
          method: 'POST',
          url: `/api/v1/carriers/${id}/lane-preferences/disable-for-load`,
          headers,
          payload: body,
        });
      const first = await call({ load_id: loadId });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({
        id: pref.id,
        preference_type: 'admin_disabled',
        routing_guide_tier: 2,
      });
      const again = await call({ load_id: loadId });
      expect(again.statusCode).toBe(200);
      const audit = (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/carriers/${carrier.id}/lane-preferences/${pref.id}/audit-log`,
          headers: user.headers,
        })
      ).json();
      expect(audit.data.map((a: { action: string }) => a.action)).toEqual(['disable_for_load']);
      expect((await call({ load_id: 'load_nope' })).statusCode).toBe(422);
      expect((await call({})).statusCode).toBe(422);
      expect((await call({ load_id: loadId, reason: 'other' })).json().error.param).toBe('reason_note');
      expect((await call({ load_id: loadId }, user.headers, 'car_nope')).statusCode).toBe(404);
      const key = await createApiKey(t, user.headers);
      expect((await call({ load_id: loadId }, key.headers)).statusCode).toBe(403);
      const other = await createTenant(t);
      expect((await call({ load_id: loadId }, other.user.headers)).statusCode).toBe(404);
    });
  });

  it('lists with filters and hides other organizations', async () => {
    const { user, carrier, loadId } = await setup(t);
    const other = await createTenant(t);
    const second = await createCarrier(t, user.headers, { email: 'b@carrier.example' });
    const load2 = await createLoad(t, user.headers);
    const a = (
      await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId, modality: 'email' })
    ).json();
    const b = (
      await postOutreach(t, user.headers, { carrier_id: second.id, load_id: load2, modality: 'email' })
    ).json();
    const c = (
      await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: load2, modality: 'whatsapp' })
    ).json();
    const list = async (qs: string, headers = user.headers) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/outreaches${qs}`, headers })).json();
    const ids = async (qs: string) => (await list(qs)).data.map((o: { id: string }) => o.id);
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids(`?load_id=${load2}`)).toEqual([c.id, b.id]);
    expect(await ids(`?carrier_id=${carrier.id}`)).toEqual([c.id, a.id]);
    expect(await ids('?modality=whatsapp')).toEqual([c.id]);
    expect(await ids('?modality=email&status=active')).toEqual([b.id, a.id]);
    expect(await ids('?status=completed')).toEqual([]);
    expect((await list('?page_size=2')).pagination).toMatchObject({
      total_count: 3,
      total_pages: 2,
      has_next: true,
    });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/outreaches?status=lost', headers: user.headers }))
        .statusCode,
    ).toBe(422);
    const tab = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads?tab=active_outreaches', headers: user.headers })
    ).json();
    expect(tab.data.map((l: { id: string }) => l.id).sort()).toEqual([loadId, load2].sort());

    expect((await list('', other.user.headers)).data).toEqual([]);
    const theirs = await t.app.inject({
      method: 'GET',
      url: `/api/v1/outreaches/${a.id}`,
      headers: other.user.headers,
    });
    expect(theirs.statusCode).toBe(404);
    const cross = await postOutreach(t, other.user.headers, { carrier_id: carrier.id, load_id: loadId });
    expect(cross.statusCode).toBe(422);
  });

  describe('the no_response sweeper', () => {
    it("is one of the server's loops, and its round moves an e-mail unanswered for a day", async () => {
      const { user, carrier, loadId } = await setup(t);
      const id = (
        await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId, modality: 'email' })
      ).json().id;
      // The window is OUTREACH_NO_RESPONSE_HOURS (24 by default) from the send, exclusive.
      const clock = manualClockOf(t);
      const sentAt = clock.ms();
      await clock.advanceTo(sentAt + 24 * 3_600_000);
      await drainWorker(t, 'outreach-sweeper');
      expect((await getOutreach(t, user.headers, id)).status).toBe('active');
      await clock.advanceTo(sentAt + 24 * 3_600_000 + 1);
      expect(await drainWorker(t, 'outreach-sweeper')).toBeGreaterThanOrEqual(1);
      expect((await getOutreach(t, user.headers, id)).status).toBe('no_response');
    });
  });

  describe('POST /tracking/loads/{load_id}/prompt', () => {
    const prompt = (headers: Headers, loadId: string, body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/tracking/loads/${loadId}/prompt`,
        headers,
        payload: body,
      });

    async function booked(driverPhone?: string) {
      const s = await setup(t);
      const offer = (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/offers',
          headers: s.user.headers,
          payload: {
            load_id: s.loadId,
            offer_amount: 1500,
            carrier_id: s.carrier.id,
            driver_phone: driverPhone,
          },
        })
      ).json();
      await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/offers/${offer.id}`,
        headers: s.user.headers,
        payload: { status: 'accepted' },
      });
      const load = (
        await t.app.inject({ method: 'GET', url: `/api/v1/loads/${s.loadId}`, headers: s.user.headers })
      ).json();
      return { ...s, stops: z.array(z.object({ id: z.string() })).parse(load.stops) };
    }

    it('starts a check call to the driver of the booked carrier and answers 202 with the outreach', async () => {
      const driver = nextPhone();
      const s = await booked(driver);
      const res = await prompt(s.user.headers, s.loadId, {
        stop_id: defined(s.stops[1], 's.stops[1]').id,
        instructions: 'Ask for the ETA at the receiver',
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toMatchObject({
        modality: 'call',
        status: 'pending',
        carrier_id: s.carrier.id,
        load_id: s.loadId,
        call_id: expect.stringMatching(/^call_/),
      });
      const call = (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/calls/${res.json().call_id}`,
          headers: s.user.headers,
        })
      ).json();
      expect(call).toMatchObject({ to_number: driver, load_id: s.loadId, call_type: null });
    });

    it('finds the hauling carrier from the load, and prompts by e-mail', async () => {
      const { user, carrier } = await setup(t);
      const loadId = await createLoad(t, user.headers, { hauling_carrier_id: carrier.id });
      const res = await prompt(user.headers, loadId, { instructions: 'Send a POD photo', channel: 'email' });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json()).toMatchObject({ modality: 'email', status: 'active', carrier_id: carrier.id });
    });

    it('matches the hauling carrier on its MC number and calls the load’s driver; WhatsApp works too', async () => {
      const { user, carrier } = await setup(t, { mc_number: '610001', dot_number: '710001' });
      const driver = nextPhone();
      const loadId = await createLoad(t, user.headers, {
        hauling_carrier_mc_number: 'MC-0610001',
        driver: { type: 'DRIVER', first_name: 'Sam', phone: driver },
      });
      const res = await prompt(user.headers, loadId, { instructions: 'Where are you now?' });
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().carrier_id).toBe(carrier.id);
      const call = (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/calls/${res.json().call_id}`,
          headers: user.headers,
        })
      ).json();
      expect(call.to_number).toBe(driver);
      const whatsapp = await prompt(user.headers, loadId, {
        instructions: 'Send a photo',
        channel: 'whatsapp',
      });
      expect(whatsapp.statusCode).toBe(202);
      expect(whatsapp.json()).toMatchObject({ modality: 'whatsapp', status: 'active' });
    });

    it('answers 422 for a stop of another load', async () => {
      const s = await booked();
      const otherLoad = await createLoad(t, s.user.headers);
      const other = (
        await t.app.inject({ method: 'GET', url: `/api/v1/loads/${otherLoad}`, headers: s.user.headers })
      ).json();
      const res = await prompt(s.user.headers, s.loadId, {
        stop_id: other.stops[0].id,
        instructions: 'ETA?',
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_error', param: 'stop_id' });
      expect(res.json().detail[0].loc).toEqual(['body', 'stop_id']);
      const unknown = await prompt(s.user.headers, s.loadId, { stop_id: 'stop_nope', instructions: 'ETA?' });
      expect(unknown.statusCode).toBe(422);
    });

    it('answers 404 for an unknown load, 422 without a hauling carrier or instructions, 409 when the guard refuses', async () => {
      const s = await booked();
      expect((await prompt(s.user.headers, 'load_nope', { instructions: 'x' })).statusCode).toBe(404);
      const other = await createTenant(t);
      expect((await prompt(other.user.headers, s.loadId, { instructions: 'x' })).statusCode).toBe(404);
      const unbooked = await createLoad(t, s.user.headers);
      const none = await prompt(s.user.headers, unbooked, { instructions: 'x' });
      expect(none.statusCode).toBe(422);
      expect(none.json().error.param).toBe('load_id');
      expect((await prompt(s.user.headers, s.loadId, {})).json().error.param).toBe('instructions');
      expect((await prompt(s.user.headers, s.loadId, { instructions: 'x', channel: 'fax' })).statusCode).toBe(
        422,
      );
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${s.carrier.id}/stop-contact`,
        headers: s.user.headers,
      });
      const stopped = await prompt(s.user.headers, s.loadId, { instructions: 'x' });
      expect(stopped.statusCode).toBe(409);
      expect(stopped.json().error.code).toBe('contact_not_allowed');
    });
  });
});

describe('the no_response sweeper, called directly', () => {
  // No sweeper inside this app: the test's own call is the only one.
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry, WORKERS_ENABLED: 'false' } });

  it('moves unanswered e-mail and WhatsApp outreaches older than the window, and nothing else', async () => {
    const { user, carrier, loadId } = await setup(t);
    const make = async (modality: string) =>
      (await postOutreach(t, user.headers, { carrier_id: carrier.id, load_id: loadId, modality })).json().id;
    const oldEmail = await make('email');
    const oldWhatsapp = await make('whatsapp');
    const engaged = await make('email');
    const fresh = await make('email');
    const db = t.database.db;
    const age = (id: string, hours: number) =>
      db
        .update(outreaches)
        .set({
          created_at: sql`now() - make_interval(hours => ${hours})`,
          sent_at: sql`now() - make_interval(hours => ${hours})`,
        })
        .where(eq(outreaches.id, id));
    await age(oldEmail, 25);
    await age(oldWhatsapp, 30);
    await age(engaged, 30);
    await db.update(outreaches).set({ carrier_engaged: true }).where(eq(outreaches.id, engaged));
    await age(fresh, 23);
    const sweeper = new OutreachSweeper(db, 24, 60_000, pino({ level: 'silent' }));
    const moved = await sweeper.sweep();
    expect(moved).toEqual(expect.arrayContaining([oldEmail, oldWhatsapp]));
    expect(moved).not.toContain(engaged);
    expect(moved).not.toContain(fresh);
    expect((await getOutreach(t, user.headers, oldEmail)).status).toBe('no_response');
    expect((await getOutreach(t, user.headers, oldWhatsapp)).status).toBe('no_response');
    expect((await getOutreach(t, user.headers, engaged)).status).toBe('active');
    expect((await getOutreach(t, user.headers, fresh)).status).toBe('active');
    expect(await sweeper.sweep()).toEqual([]);
  });
});
