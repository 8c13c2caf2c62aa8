import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { ELP_QUESTIONS } from '../../src/modules/calls/elp-questions.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant, createUser } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  endOfCallReport,
  firstToolAnswer,
  sendVapi,
  statusUpdate,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
  vapiRefusal,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const get = async (t: TestApp, headers: Headers, url: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })).json();

/** An end-of-call report as Vapi sends it, with the analysis and cost given. */
describe('call outcomes and live control on Vapi', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  async function place(headers: Headers, body: Record<string, unknown> = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers,
      payload: { phone_number: '+14155550170', ...body },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string; status: string }>();
  }

  it('places the call of a keyed request only once the request has committed, and never twice', async () => {
    const { user } = await createTenant(t);
    // What another connection sees of the call at the moment the platform is asked to place it.
    const seen: string[] = [];
    standIn.onCall(async (dto) => {
      const id = dto.assistantOverrides?.metadata?.envoy_call_id;
      const rows = await t.database.pool.query<{ status: string }>('SELECT status FROM calls WHERE id = $1', [
        id,
      ]);
      seen.push(rows.rows[0]?.status ?? 'not committed');
    });
    try {
      const before = standIn.callBodies().length;
      const key = `call-${Date.now()}`;
      const first = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: { ...user.headers, 'idempotency-key': key },
        payload: { phone_number: '+14155550171' },
      });
      expect(first.statusCode, first.body).toBe(201);
      // The platform was asked once, and by then the call was committed (seen from another connection).
      expect(seen).toEqual(['PENDING']);
      const id = first.json<{ id: string }>().id;
      const placed = await t.database.pool.query<{ provider_call_id: string | null }>(
        'SELECT provider_call_id FROM calls WHERE id = $1',
        [id],
      );
      expect(placed.rows[0]?.provider_call_id).toMatch(/^vapi-call-/);
      // The retry replays the response and places nothing.
      const replay = await t.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        headers: { ...user.headers, 'idempotency-key': key },
        payload: { phone_number: '+14155550171' },
      });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(first.body);
      expect(standIn.callBodies().length - before).toBe(1);
    } finally {
      standIn.onCall(null);
    }
  });

  it("keeps Vapi's error body as the ended reason, and retries 429, 5xx and the concurrency limit", async () => {
    const { user } = await createTenant(t);
    const attempts = () => standIn.callBodies().length;

    // A refusal that will not pass: one attempt, the call FAILED with Vapi's words.
    let before = attempts();
    standIn.refuseNext(vapiRefusal(400, ['assistant.voice.voiceId must be a valid voice for 11labs']));
    const refused = await place(user.headers);
    expect(attempts() - before).toBe(1);
    expect(await get(t, user.headers, `/calls/${refused.id}`)).toMatchObject({
      status: 'FAILED',
      ended_reason: 'Vapi answered 400: assistant.voice.voiceId must be a valid voice for 11labs',
    });

    // 429, then the account's concurrency limit, then success: the call is placed.
    before = attempts();
    standIn.refuseNext(
      vapiRefusal(429, 'Too many requests, slow down'),
      vapiRefusal(400, 'Over Concurrency Limit. Upgrade your plan for more concurrent calls.'),
    );
    const placed = await place(user.headers);
    expect(attempts() - before).toBe(3);
    expect(await get(t, user.headers, `/calls/${placed.id}`)).toMatchObject({
      status: 'PENDING',
      ended_reason: null,
    });

    // Vapi down through every retry: FAILED with its last answer.
    before = attempts();
    standIn.refuseNext(...Array.from({ length: 4 }, () => vapiRefusal(503, 'Service is restarting')));
    const down = await place(user.headers);
    expect(attempts() - before).toBe(4);
    expect(await get(t, user.headers, `/calls/${down.id}`)).toMatchObject({
      status: 'FAILED',
      ended_reason: 'Vapi answered 503: Service is restarting',
    });
  });

  it("follows the control URL of every message's call.monitor", async () => {
    const { user } = await createTenant(t);
    const call = await place(user.headers);
    const moved = vapiCall(standIn.lastCall().vapiId, call.id, {
      monitor: { controlUrl: `${standIn.base}/control/moved-1` },
    });
    await sendVapi(t, statusUpdate(moved, 'in-progress', Date.now()));
    const ended = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/end`,
      headers: user.headers,
    });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(standIn.controls('moved-1')).toEqual([{ type: 'end-call' }]);
    expect(standIn.controls(standIn.lastCall().vapiId)).toEqual([]);
  });

  it('records a failed transfer, returns the caller to the assistant, and records a connected one and hangs', async () => {
    const { orgId, user } = await createTenant(t);
    const rep = await createUser(t, orgId, 'MEMBER', { phone: '+13125550888', name: 'Dana Rep' });
    const loadId = await createLoad(t, user.headers, { carrier_rep_user_id: rep.id });
    const call = await place(user.headers, { load_id: loadId });
    const c = vapiCall(standIn.lastCall().vapiId, call.id);
    await sendVapi(t, statusUpdate(c, 'in-progress', Date.now()));
    const asked = await sendVapi(t, {
      message: { type: 'transfer-destination-request', call: c },
    } satisfies Vapi.ServerMessage);
    // A warm transfer whose failure keeps the caller with the assistant.
    expect(asked.json().destination.transferPlan).toEqual({
      mode: 'warm-transfer-experimental',
      fallbackPlan: { message: expect.stringContaining('could not reach Dana Rep'), endCallEnabled: false },
    } satisfies Vapi.TransferPlan);
    const update = {
      message: {
        type: 'transfer-update',
        timestamp: Date.now(),
        destination: { type: 'number', number: '+13125550888' },
        call: c,
      },
    } satisfies Vapi.ServerMessage;
    expect((await sendVapi(t, update)).json()).toEqual({ ok: true });
    await sendVapi(t, statusUpdate(c, 'forwarding', Date.now()));
    expect(await get(t, user.headers, `/calls/${call.id}`)).toMatchObject({
      status: 'IN_PROGRESS',
      transfer: { status: 'started', destination: '+13125550888' },
    });
    // The rep did not answer: the assistant is back and working.
    const back = await sendVapi(t, toolCalls(c, [{ id: 'tc-1', name: 'get_load_details' }]));
    expect(firstToolAnswer(back).result).toBeTruthy();
    expect((await get(t, user.headers, `/calls/${call.id}`)).transfer).toMatchObject({ status: 'failed' });
    await sendVapi(t, endOfCallReport(c, 'customer-ended-call'));
    expect(await get(t, user.headers, `/calls/${call.id}`)).toMatchObject({
      status: 'COMPLETED',
      ended_reason: 'customer-ended-call',
      transfer: { status: 'failed' },
    });

    // A transfer that connects, with the assistant hanging once on the way.
    const second = await place(user.headers, { load_id: loadId, phone_number: '+14155550171' });
    const c2 = vapiCall(standIn.lastCall().vapiId, second.id);
    await sendVapi(t, statusUpdate(c2, 'in-progress', Date.now()));
    await sendVapi(t, {
      message: { type: 'hang', timestamp: Date.now(), call: c2 },
    } satisfies Vapi.ServerMessage);
    await sendVapi(t, { ...update, message: { ...update.message, call: c2 } });
    await sendVapi(t, endOfCallReport(c2, 'assistant-forwarded-call'));
    expect(await get(t, user.headers, `/calls/${second.id}`)).toMatchObject({
      status: 'TRANSFERRED',
      transfer: { status: 'connected', destination: '+13125550888' },
      hangs: 1,
    });
  });

  it('stores the analysis and cost, and records an offer heard only by the analysis once', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { phone: '+14155550172', name: 'Analysis Freight' });
    const loadId = await createLoad(t, user.headers, { posted_rate: 2000, max_buy_rate: 2400 });
    const call = await place(user.headers, {
      load_id: loadId,
      phone_number: '+14155550172',
      call_type: 'LOAD_BOOKING',
    });
    const c = vapiCall(standIn.lastCall().vapiId, call.id);
    const analysis = {
      summary: 'The carrier can haul it for 2100 with a dry van on Monday.',
      structuredData: {
        offer_amount: 2100,
        available: true,
        equipment_type: 'dry van',
        earliest_pickup: '2026-12-01',
      },
      successEvaluation: 'true',
    } satisfies Vapi.Analysis;
    const ended = endOfCallReport(c, 'customer-ended-call', { analysis, cost: 0.4275 });
    await sendVapi(t, ended);
    await sendVapi(t, ended);
    const detail = await get(t, user.headers, `/calls/${call.id}`);
    expect(detail).toMatchObject({
      status: 'COMPLETED',
      cost: 0.4275,
      analysis: {
        summary: analysis.summary,
        structured_data: analysis.structuredData,
        success_evaluation: 'true',
      },
    });
    const offers = (await get(t, user.headers, `/offers?load_id=${loadId}`)).data;
    expect(offers).toHaveLength(1);
    expect(offers[0]).toMatchObject({
      offer_amount: 2100,
      channel: 'voice',
      source: 'agent',
      call_id: call.id,
    });

    // The assistant recorded the offer itself: the analysis adds nothing.
    const again = await place(user.headers, {
      load_id: loadId,
      phone_number: '+14155550172',
      call_type: 'LOAD_BOOKING',
    });
    const c2 = vapiCall(standIn.lastCall().vapiId, again.id);
    await sendVapi(t, toolCalls(c2, [{ id: 'tc-o', name: 'submit_offer', args: { offer_amount: 2050 } }]));
    await sendVapi(
      t,
      endOfCallReport(c2, 'customer-ended-call', { analysis: { structuredData: { offer_amount: 2050 } } }),
    );
    const ofSecond = (await get(t, user.headers, `/offers?load_id=${loadId}`)).data.filter(
      (o: { call_id: string }) => o.call_id === again.id,
    );
    expect(ofSecond).toHaveLength(1);
  });

  it('records the ELP answers the assistant forgot from the analysis, then scores the test', async () => {
    const { user } = await createTenant(t);
    const started = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers: user.headers,
      payload: { phone_number: '+13125550177' },
    });
    const test = started.json();
    const c = vapiCall(standIn.lastCall().vapiId, test.call.id);
    await sendVapi(t, statusUpdate(c, 'in-progress', Date.now()));
    const [first, ...rest] = ELP_QUESTIONS;
    await sendVapi(
      t,
      toolCalls(c, [
        {
          id: 'tc-1',
          name: 'record_elp_answer',
          args: { question_id: defined(first, 'first').id, answer: 'Hauling paper.', valid: true },
        },
      ]),
    );
    const answers = [defined(first, 'first'), ...rest].map((q) => ({
      question_id: q.id,
      answer: 'A clear answer.',
      valid: q.id !== defined(first, 'first').id,
    }));
    await sendVapi(
      t,
      endOfCallReport(c, 'assistant-ended-call', { analysis: { structuredData: { answers } } }),
    );
    expect(await get(t, user.headers, `/elp/tests/${test.id}`)).toMatchObject({
      status: 'COMPLETED',
      scoring_status: 'SCORED',
      questions_answered: ELP_QUESTIONS.length,
      // The first answer stands as the tool recorded it (valid), not as the analysis heard it.
      valid_answers: ELP_QUESTIONS.length,
    });
  });
});
