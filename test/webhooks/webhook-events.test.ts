import { afterAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { drainWorker, useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad, loadPayload } from '../helpers/load-factories.js';
import { startReceiver, subscribeEndpoint } from '../helpers/webhook-receiver.js';

const registry = registryFile([goodStanding('777001', '888001')]);

describe('events emitted by the resources', () => {
  const t = useTestApp({
    env: { WORKERS_ENABLED: 'false', COMPLIANCE_REGISTRY_FILE: registry },
    // The clock stands still: the simulated platform has not got beyond placing either call.
    clock: new Date('2026-11-17T16:00:00Z'),
  });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  it('carriers, lane preferences, loads, offers, calls, outreaches and ELP tests emit their events', async () => {
    const receiver = await rx;
    const { orgId, user } = await createTenant(t);
    const { headers } = await createApiKey(t, user.headers);
    await subscribeEndpoint(t, headers, receiver.url, ['*']);
    const types = () =>
      receiver.received.filter((r) => r.json.organization_id === orgId).map((r) => r.json.type);

    const carrier = await createCarrier(t, user.headers, {
      name: 'Evented Freight',
      mc_number: '777001',
      dot_number: '888001',
      email: 'dispatch@evented.example',
      phone: '+13125550177',
    });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${carrier.id}`,
      headers: user.headers,
      payload: { notes: 'prefers reefers' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/disable`,
      headers: user.headers,
      payload: { reason: 'service_quality' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/enable`,
      headers: user.headers,
      payload: {},
    });

    const loadId = await createLoad(t, headers, { load_number: 'EVT-1', tms_status: 'open' });
    const up = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers,
      payload: loadPayload({ load_number: 'EVT-1', tms_status: 'booked' }),
    });
    expect(up.statusCode, up.body).toBe(200);

    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers,
      payload: { load_id: loadId, offer_amount: 1500, carrier_id: carrier.id },
    });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offer.json().id}`,
      headers,
      payload: { status: 'rejected' },
    });
    const outreach = await t.app.inject({
      method: 'POST',
      url: '/api/v1/outreaches',
      headers,
      payload: { carrier_id: carrier.id, load_id: loadId, modality: 'email' },
    });
    expect(outreach.statusCode, outreach.body).toBe(201);
    const call = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers,
      payload: { phone_number: '+13125550199' },
    });
    expect(call.statusCode, call.body).toBe(201);
    const elp = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers: user.headers,
      payload: { phone_number: '+13125550142' },
    });
    expect(elp.statusCode, elp.body).toBe(201);
    // Both calls end before anyone picks up: the ELP test fails with its call.
    for (const id of [call.json().id, elp.json().call_id]) {
      const ended = await t.app.inject({ method: 'POST', url: `/api/v1/calls/${id}/end`, headers });
      expect(ended.statusCode, ended.body).toBe(200);
    }
    // Every event is recorded by now; one round of the compliance worker (should a check have
    // been left to it) and one of the webhook worker deliver them all.
    await drainWorker(t, 'compliance');
    await drainWorker(t, 'webhooks');

    const expected = [
      'carrier.created',
      'carrier.compliance_changed',
      'carrier.updated',
      'carrier.disabled',
      'carrier.enabled',
      'load.created',
      'load.updated',
      'load.status_changed',
      'offer.created',
      'offer.status_changed',
      'outreach.created',
      'call.created',
      'call.status_changed',
      'elp_test.completed',
      'elp_test.failed',
    ];
    expect(types()).toEqual(expect.arrayContaining(expected));
    expect(types().filter((type) => type === 'elp_test.failed')).toHaveLength(1);
    expect(types()).not.toContain('elp_test.scored');
    const byType = (type: string) =>
      defined(
        receiver.received.find((r) => r.json.type === type && r.json.organization_id === orgId),
        'receiver.received.find((r) => r.json.type === type && r.json.organization_id === orgId)',
      );
    expect(byType('carrier.disabled').json.data).toMatchObject({ id: carrier.id, is_active: false });
    expect(byType('load.status_changed').json.data).toMatchObject({
      load_id: loadId,
      load_status: 'Dispatched',
      previous_load_status: 'Unassigned',
    });
    expect(byType('offer.status_changed').json.data).toMatchObject({
      id: offer.json().id,
      status: 'rejected',
      previous_status: 'pending',
    });
    expect(byType('call.created').json.data).toMatchObject({ id: call.json().id });
    // The ELP test's last event is the whole test.
    const elpTest = (
      await t.app.inject({ method: 'GET', url: `/api/v1/elp/tests/${elp.json().id}`, headers })
    ).json();
    expect(elpTest).toMatchObject({ status: 'FAILED', scoring_status: 'FAILED' });
    expect(byType('elp_test.failed').json.data).toMatchObject({
      id: elp.json().id,
      elp_test_id: elp.json().id,
      status: 'FAILED',
      scoring_status: 'FAILED',
      call: { id: elp.json().call_id, status: 'CANCELLED' },
    });
  });
});
