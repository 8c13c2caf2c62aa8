import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { ELP_QUESTIONS } from '../../src/modules/calls/elp-questions.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  recordElpAnswer,
  scriptOf,
  sendVapi,
  statusUpdate,
  type ToolAnswer,
  toolNamesOf,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const get = async (t: TestApp, headers: Headers, url: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers })).json();

function endOfCall(call: Vapi.Call, t0: number, seconds: number): Vapi.ServerMessage {
  return {
    message: {
      type: 'end-of-call-report',
      endedReason: 'assistant-ended-call',
      timestamp: t0 + seconds * 1000 + 500,
      startedAt: new Date(t0 + 2000).toISOString(),
      endedAt: new Date(t0 + seconds * 1000).toISOString(),
      call,
      analysis: { summary: 'The call ran to its end.' },
      artifact: {
        messages: [
          { role: 'bot', message: 'Hello.', time: t0 + 2500, endTime: t0 + 3000, secondsFromStart: 0.5 },
        ],
      },
    },
  } satisfies Vapi.ServerMessage;
}

describe('ELP tests and tracking check calls on Vapi', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  it('runs an ELP test from REQUESTED to SCORED: the assistant asks the bank and records answers through record_elp_answer', async () => {
    const { user } = await createTenant(t);
    const started = await t.app.inject({
      method: 'POST',
      url: '/api/v1/elp/tests',
      headers: user.headers,
      payload: { phone_number: '+13125550100', driver_name: 'Jo Driver' },
    });
    expect(started.statusCode, started.body).toBe(201);
    const test = started.json();
    expect(test).toMatchObject({ status: 'REQUESTED', scoring_status: 'PENDING' });

    const { vapiId, body } = standIn.lastCall();
    expect(toolNamesOf(body.assistant)).toEqual(['record_elp_answer', 'endCall']);
    const script = scriptOf(body);
    expect(script).toContain('Jo Driver');
    // Every question of the bank, in order, with what makes its answer valid.
    let at = 0;
    for (const q of ELP_QUESTIONS) {
      const position = script.indexOf(`[${q.id}]`);
      expect(position).toBeGreaterThan(at);
      at = position;
      expect(script).toContain(q.text);
      expect(script).toContain(q.expects);
    }
    for (const q of ELP_QUESTIONS) expect(script).not.toContain(q.example_answer);

    const call = vapiCall(vapiId, test.call.id);
    const t0 = Date.parse('2026-11-21T09:00:00.000Z');
    await sendVapi(t, statusUpdate(call, 'ringing', t0 + 1000));
    await sendVapi(t, statusUpdate(call, 'in-progress', t0 + 2000));
    for (const [i, q] of ELP_QUESTIONS.entries()) {
      const next = ELP_QUESTIONS[i + 1];
      const result = await recordElpAnswer(t, call, q.id, q.id !== 'yield');
      expect(result.result).toBe(
        next
          ? `Recorded. Next question [${next.id}]: "${next.text}"`
          : 'Recorded. The test is over: thank the driver and end the call.',
      );
    }
    const bad = await recordElpAnswer(t, call, 'nonsense', true);
    expect(bad.error).toMatch(/^Unknown question_id 'nonsense'/);

    await sendVapi(t, statusUpdate(call, 'ended', t0 + 300_000, 'assistant-ended-call'));
    await sendVapi(t, endOfCall(call, t0, 300));
    const scored = await get(t, user.headers, `/elp/tests/${test.id}`);
    expect(scored).toMatchObject({
      status: 'COMPLETED',
      scoring_status: 'SCORED',
      total_questions: 10,
      questions_answered: 10,
      valid_answers: 9,
      conversational_communication: 10,
      instruction_comprehension: 10,
      sign_recognition: 8,
      verbal_reporting: 10,
      total_score: 38,
      call: {
        status: 'COMPLETED',
        call_start_time: '2026-11-21T09:00:02.000Z',
        call_end_time: '2026-11-21T09:05:00.000Z',
      },
    });
  });

  it('ends the test after a failed interview: record_elp_answer says so, and the test is scored COMPLETED', async () => {
    const { user } = await createTenant(t);
    const test = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/elp/tests',
        headers: user.headers,
        payload: { phone_number: '+13125550101' },
      })
    ).json();
    const call = vapiCall(standIn.lastCall().vapiId, test.call.id);
    const t0 = Date.now() - 120_000;
    await sendVapi(t, statusUpdate(call, 'in-progress', t0));
    const interview = ELP_QUESTIONS.filter((q) => q.step === 'interview');
    let last: ToolAnswer | undefined;
    for (const [i, q] of interview.entries()) last = await recordElpAnswer(t, call, q.id, i < 2);
    expect(defined(last, 'last').result).toBe(
      'Recorded. The test is over: thank the driver and end the call.',
    );
    expect(defined(last, 'last').metadata).toMatchObject({ test_over: true, next_question_id: null });
    const late = await recordElpAnswer(t, call, 'stop_sign', true);
    expect(late).toMatchObject({
      result: 'The test is already over: thank the driver and end the call.',
      metadata: { recorded: false },
    });
    await sendVapi(t, endOfCall(call, t0 - 2000, 100));
    expect(await get(t, user.headers, `/elp/tests/${test.id}`)).toMatchObject({
      status: 'COMPLETED',
      scoring_status: 'SCORED',
      questions_answered: 5,
      valid_answers: 2,
      notes: expect.stringMatching(/interview ended the test early/),
    });
  });

  it('places a tracking check call with the instructions in its script, and follows it to the end', async () => {
    const { user } = await createTenant(t);
    const carrier = await createCarrier(t, user.headers, {
      phone: '+14155550170',
      name: 'Route 66 Carriers',
    });
    const loadId = await createLoad(t, user.headers, {
      posted_rate: 2100,
      max_buy_rate: 2500,
      customer_rate: 3050,
    });
    const offer = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/offers',
        headers: user.headers,
        payload: {
          load_id: loadId,
          offer_amount: 2000,
          carrier_id: carrier.id,
          driver_phone: '+14155550171',
        },
      })
    ).json();
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offer.id}`,
      headers: user.headers,
      payload: { status: 'accepted' },
    });
    const prompted = await t.app.inject({
      method: 'POST',
      url: `/api/v1/tracking/loads/${loadId}/prompt`,
      headers: user.headers,
      payload: {
        instructions: 'Ask for the ETA at the Dallas drop-off and whether the seal is intact',
        channel: 'voice',
      },
    });
    expect(prompted.statusCode, prompted.body).toBe(202);
    const outreach = prompted.json();
    const { vapiId, body } = standIn.lastCall();
    expect(body.customer?.number).toBe('+14155550171');
    expect(toolNamesOf(body.assistant)).toEqual([
      'get_load_details',
      'request_stop_contact',
      'transferCall',
      'endCall',
    ]);
    const script = scriptOf(body);
    expect(script).toContain('Ask for the ETA at the Dallas drop-off and whether the seal is intact');
    expect(script).toContain('Route 66 Carriers');
    expect(body.assistant?.firstMessage).toMatch(/checking in on load/);
    expect(JSON.stringify(body)).not.toMatch(/3050|2500|customer_rate|max_buy_rate|margin/);
    const callDetail = await get(t, user.headers, `/calls/${outreach.call_id}`);
    expect(callDetail).toMatchObject({
      purpose: 'tracking_check',
      template_id: 'vt_00000000-0000-7000-8000-000000000003',
    });

    const call = vapiCall(vapiId, outreach.call_id);
    const t0 = Date.parse('2026-11-22T15:00:00.000Z');
    for (const [status, ms] of [
      ['queued', t0],
      ['ringing', t0 + 800],
      ['in-progress', t0 + 4000],
    ] as const) {
      await sendVapi(t, statusUpdate(call, status, ms));
    }
    expect((await get(t, user.headers, `/outreaches/${outreach.id}`)).status).toBe('active');
    await sendVapi(t, statusUpdate(call, 'ended', t0 + 95_000, 'customer-ended-call'));
    await sendVapi(t, endOfCall(call, t0, 95));
    const done = await get(t, user.headers, `/calls/${outreach.call_id}`);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      call_start_time: '2026-11-22T15:00:04.000Z',
      call_end_time: '2026-11-22T15:01:35.000Z',
    });
    expect(Date.parse(done.call_start_time)).toBeLessThan(Date.parse(done.call_end_time));
    expect(await get(t, user.headers, `/outreaches/${outreach.id}`)).toMatchObject({
      status: 'completed',
      carrier_engaged: true,
    });
  });
});
