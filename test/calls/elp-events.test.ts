import type { Vapi } from '@vapi-ai/server-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { ELP_QUESTIONS } from '../../src/modules/calls/elp-questions.js';
import { drainWorker, useTestApp } from '../helpers/app.js';
import { registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import {
  endOfCallReport,
  recordElpAnswer,
  sendVapi,
  statusUpdate,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';
import { startReceiver, subscribeEndpoint } from '../helpers/webhook-receiver.js';

type Headers = Record<string, string>;
const ELP_EVENTS = ['elp_test.completed', 'elp_test.scored', 'elp_test.failed'];

/**
 * ELP tests on the Vapi path, each provider message sent by the test (timestamps from the test's
 * own t0), and the webhook worker run by hand: the events an ELP test emits and what they carry.
 */
describe('ELP test events', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({
    env: vapiEnv(standIn, { WORKERS_ENABLED: 'false', COMPLIANCE_REGISTRY_FILE: registryFile([]) }),
  });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  /** A tenant whose endpoint takes the three ELP events (and nothing else). */
  async function subscribed(eventTypes = ELP_EVENTS) {
    const receiver = await rx;
    const { orgId, user } = await createTenant(t);
    const { headers } = await createApiKey(t, user.headers);
    await subscribeEndpoint(t, headers, receiver.url, eventTypes);
    /** What the endpoint received for this tenant, after one round of the webhook worker. */
    const delivered = async (type: string) => {
      await drainWorker(t, 'webhooks');
      return receiver.received
        .filter((r) => r.json.organization_id === orgId && r.json.type === type)
        .map((r) => r.json.data);
    };
    return { headers, delivered };
  }

  async function startTest(headers: Headers, phone: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers,
      payload: { phone_number: phone, driver_name: 'Jo Driver' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const test = res.json();
    return { test, call: vapiCall(standIn.lastCall().vapiId, test.call.id) };
  }

  const getTest = async (headers: Headers, id: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/elp/tests/${id}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  async function send(message: Vapi.ServerMessage) {
    const res = await sendVapi(t, message);
    expect(res.statusCode, res.body).toBe(200);
  }

  it('a test whose call is never answered fails: elp_test.failed once, with the test as GET returns it', async () => {
    const { headers, delivered } = await subscribed();
    const { test, call } = await startTest(headers, '+13125550160');
    const t0 = Date.parse('2026-11-23T10:00:00.000Z');
    await send(statusUpdate(call, 'ringing', t0));
    expect(await delivered('elp_test.failed')).toEqual([]);
    await send(statusUpdate(call, 'ended', t0 + 30_000, 'customer-did-not-answer'));
    const body = await getTest(headers, test.id);
    expect(body).toMatchObject({
      status: 'FAILED',
      scoring_status: 'FAILED',
      questions_answered: 0,
      total_score: null,
      notes: expect.stringMatching(/No answers were recorded/),
      call: { status: 'NO_RESPONSE' },
      answers: [],
    });
    const failed = await delivered('elp_test.failed');
    expect(failed).toEqual([{ ...body, elp_test_id: test.id }]);
    // elp_test.completed (the test left REQUESTED) carries the same test; no elp_test.scored.
    expect(await delivered('elp_test.completed')).toEqual([{ ...body, elp_test_id: test.id }]);
    expect(await delivered('elp_test.scored')).toEqual([]);

    // The platform repeats itself and reports late: the test is scored again, and fails no more.
    await send(statusUpdate(call, 'ended', t0 + 30_000, 'customer-did-not-answer'));
    await send(endOfCallReport(call, 'customer-did-not-answer'));
    expect(await getTest(headers, test.id)).toMatchObject({ status: 'FAILED', scoring_status: 'FAILED' });
    expect(await delivered('elp_test.failed')).toHaveLength(1);
    expect(await delivered('elp_test.completed')).toHaveLength(1);
    const deliveries = await t.app.inject({
      method: 'GET',
      url: '/api/v1/webhooks/deliveries?event_type=elp_test.failed',
      headers,
    });
    expect(deliveries.statusCode, deliveries.body).toBe(200);
    expect(deliveries.json().data).toHaveLength(1);
    expect(deliveries.json().data[0]).toMatchObject({ status: 'succeeded' });
  });

  it('a test scored low is scored, not failed: elp_test.completed and elp_test.scored carry the whole test', async () => {
    const { headers, delivered } = await subscribed();
    const { test, call } = await startTest(headers, '+13125550161');
    const t0 = Date.parse('2026-11-23T11:00:00.000Z');
    await send(statusUpdate(call, 'in-progress', t0));
    // Every interview answer invalid: the interview ends the test, with the lowest scores.
    const interview = ELP_QUESTIONS.filter((q) => q.step === 'interview');
    for (const q of interview) await recordElpAnswer(t, call, q.id, false);
    await send(statusUpdate(call, 'ended', t0 + 90_000, 'assistant-ended-call'));
    const body = await getTest(headers, test.id);
    expect(body).toMatchObject({
      status: 'COMPLETED',
      scoring_status: 'SCORED',
      questions_answered: interview.length,
      valid_answers: 0,
      total_score: 0,
      call: { status: 'COMPLETED' },
    });
    expect(body.answers).toHaveLength(interview.length);
    const expected = { ...body, elp_test_id: test.id };
    expect(await delivered('elp_test.completed')).toEqual([expected]);
    expect(await delivered('elp_test.scored')).toEqual([expected]);
    // The ids and statuses the first payloads had are still there.
    expect(expected).toMatchObject({
      elp_test_id: test.id,
      call_id: test.call_id,
      status: 'COMPLETED',
      scoring_status: 'SCORED',
      total_score: 0,
    });

    await send(endOfCallReport(call, 'assistant-ended-call'));
    expect(await delivered('elp_test.scored')).toHaveLength(1);
    expect(await delivered('elp_test.completed')).toHaveLength(1);
    expect(await delivered('elp_test.failed')).toEqual([]);
  });

  it('a test that ran to its end is scored and never failed', async () => {
    const { headers, delivered } = await subscribed();
    const { test, call } = await startTest(headers, '+13125550162');
    const t0 = Date.parse('2026-11-23T12:00:00.000Z');
    await send(statusUpdate(call, 'in-progress', t0));
    for (const q of ELP_QUESTIONS) await recordElpAnswer(t, call, q.id, true);
    await send(endOfCallReport(call, 'assistant-ended-call'));
    const body = await getTest(headers, test.id);
    expect(body).toMatchObject({ status: 'COMPLETED', scoring_status: 'SCORED', total_score: 40 });
    expect(await delivered('elp_test.scored')).toEqual([{ ...body, elp_test_id: test.id }]);
    expect(await delivered('elp_test.failed')).toEqual([]);
  });

  it('an endpoint subscribed to elp_test.failed alone gets that event, and the catalogue describes it', async () => {
    const { headers, delivered } = await subscribed(['elp_test.failed']);
    const { test, call } = await startTest(headers, '+13125550163');
    await send(statusUpdate(call, 'ended', Date.parse('2026-11-23T13:00:00.000Z'), 'customer-busy'));
    const body = await getTest(headers, test.id);
    expect(await delivered('elp_test.failed')).toEqual([{ ...body, elp_test_id: test.id }]);
    expect(await delivered('elp_test.completed')).toEqual([]);

    const types = await t.app.inject({ method: 'GET', url: '/api/v1/webhooks/event-types', headers });
    expect(types.statusCode, types.body).toBe(200);
    const names: string[] = types.json().data.map((d: { type: string }) => d.type);
    expect(names.slice(names.indexOf('elp_test.completed'), names.indexOf('elp_test.completed') + 3)).toEqual(
      ELP_EVENTS,
    );
    const entry = types.json().data.find((d: { type: string }) => d.type === 'elp_test.failed');
    expect(entry.description).toMatch(/failed/);
    expect(Object.keys(entry.schema.properties)).toEqual(
      expect.arrayContaining(['id', 'elp_test_id', 'status', 'scoring_status', 'notes', 'call', 'answers']),
    );
  });
});
