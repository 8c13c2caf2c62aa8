import type { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant, createUser, setStrictMode } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import { withoutGeneratedIds } from '../helpers/secrets.js';
import {
  scriptOf,
  sendVapi,
  statusUpdate,
  toolAnswersOf,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';

type Headers = Record<string, string>;

const getCall = async (t: TestApp, headers: Headers, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/calls/${id}`, headers })).json();

async function tools(
  t: TestApp,
  call: Vapi.Call,
  list: { id: string; name: string; args?: Record<string, unknown> }[],
) {
  const res = await sendVapi(t, toolCalls(call, list));
  expect(res.statusCode, res.body).toBe(200);
  return toolAnswersOf(res);
}

describe('calls on the Vapi path', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({
    env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }),
  });

  async function placeCall(headers: Headers, body: Record<string, unknown>) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers,
      payload: { phone_number: '+14155550190', ...body },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { vapiId, body: sent } = standIn.lastCall();
    return { call: res.json(), sent, vapiCall: vapiCall(vapiId, res.json().id) };
  }

  /** A load with every secret a script must never carry. */
  const secretLoad = (t: TestApp, headers: Headers, extra: Record<string, unknown> = {}) =>
    createLoad(t, headers, {
      posted_rate: 2000,
      max_buy_rate: 2650,
      customer_rate: 3175,
      margin: 525,
      commodity: 'Paper rolls',
      weight: 42000,
      special_instructions: ['Driver must call one hour ahead'],
      stops: [
        { ...stopPayload('Pickup'), notes: 'GATE CODE 4417, customer pays 3175' },
        { ...stopPayload('Dropoff'), special_instructions: ['Dock 4 only'] },
      ],
      ...extra,
    });

  it('books a load by phone: the assistant offers the posted rate and submit_offer answers countered (over the limit alike), pending and covered', async () => {
    const { user } = await createTenant(t);
    // The carrier is not vetted (not in the registry): strict mode off, so the call negotiates.
    await setStrictMode(t, user.headers, false);
    await createCarrier(t, user.headers, { phone: '+14155550190', name: 'Blue Line Freight' });
    const loadId = await secretLoad(t, user.headers);
    const {
      call,
      sent,
      vapiCall: c,
    } = await placeCall(user.headers, { load_id: loadId, call_type: 'LOAD_BOOKING' });
    expect(call).toMatchObject({ status: 'PENDING', call_type: 'LOAD_BOOKING', call_direction: 'OUTBOUND' });

    // The assistant Vapi got: the script with the sayable facts, the posted rate as the opening number.
    const script = scriptOf(sent);
    for (const fact of [
      'Blue Line Freight',
      '$2,000',
      'Paper rolls',
      '42,000 lb',
      'Chicago, IL',
      'Dallas, TX',
    ]) {
      expect(script).toContain(fact);
    }
    expect(script).toContain('Driver must call one hour ahead; Dock 4 only');
    expect(sent.assistant?.firstMessage).toMatch(/^Hi, this is the dispatch assistant at Brokerage/);
    const everything = withoutGeneratedIds(JSON.stringify(sent));
    for (const secret of [
      '3175',
      '3,175',
      '2650',
      '2,650',
      '525',
      'GATE CODE',
      'customer_rate',
      'margin',
      'max_buy_rate',
    ]) {
      expect(everything).not.toContain(secret);
    }

    // Status times in order, from numeric (epoch ms) timestamps.
    const t0 = Date.parse('2026-11-21T10:00:00.000Z');
    for (const [status, at] of [
      ['queued', t0],
      ['ringing', t0 + 1000],
      ['in-progress', t0 + 2000],
    ] as const) {
      expect((await sendVapi(t, statusUpdate(c, status, at))).statusCode).toBe(200);
    }
    expect(await getCall(t, user.headers, call.id)).toMatchObject({
      status: 'IN_PROGRESS',
      call_start_time: '2026-11-21T10:00:02.000Z',
    });

    const [details] = await tools(t, c, [{ id: 'tc1', name: 'get_load_details' }]);
    expect(details).toMatchObject({ name: 'get_load_details', toolCallId: 'tc1' });
    const facts = JSON.parse(defined(defined(details, 'details').result, 'details.result'));
    expect(facts).toMatchObject({
      load_number: expect.any(String),
      posted_rate: 2000,
      equipment_type: 'VAN',
    });
    expect(withoutGeneratedIds(defined(defined(details, 'details').result, 'details.result'))).not.toMatch(
      /3175|2650|525|GATE CODE|customer_rate|margin|max_buy_rate|notes/,
    );

    // Over the posted rate: a counter-offer at the opening ask (the posted rate, as the target).
    const [countered] = await tools(t, c, [
      { id: 'tc2', name: 'submit_offer', args: { offer_amount: 2300 } },
    ]);
    expect(countered).toMatchObject({
      name: 'submit_offer',
      toolCallId: 'tc2',
      // Said as a dispatcher says it: the amount in words, the load number one character at a time.
      result: expect.stringContaining('We can do two thousand dollars'),
      metadata: { decision: 'counter', counter_offer_amount: 2000, status: 'pending' },
    });
    // Over the limit, not coming down: the same counter, word for word, as for an offer under it;
    // no decline, and the limit is never said.
    const [over] = await tools(t, c, [{ id: 'tc3', name: 'submit_offer', args: { offer_amount: 2800 } }]);
    expect(over).toMatchObject({
      result: defined(countered, 'countered').result,
      metadata: { decision: 'counter', counter_offer_amount: 2000, status: 'pending' },
    });
    expect(defined(over, 'over').result).not.toMatch(/2,?650|more than we can do/);
    // Under the posted rate: recorded for a rep (the organization does not auto-book).
    const [pending] = await tools(t, c, [{ id: 'tc4', name: 'submit_offer', args: { offer_amount: 1900 } }]);
    expect(pending).toMatchObject({
      result: expect.stringMatching(/nineteen hundred dollars .*A rep will confirm shortly/),
      metadata: { decision: 'review', status: 'pending' },
    });
    // The decisions were recorded exactly as e-mail and WhatsApp record them.
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/offers?load_id=${loadId}`, headers: user.headers })
    ).json<{
      data: {
        id: string;
        offer_amount: number;
        status: string;
        channel: string;
        source: string;
        call_id: string;
      }[];
    }>().data;
    expect(offers.map((o) => [o.offer_amount, o.status, o.channel, o.source, o.call_id]).sort()).toEqual([
      [1900, 'pending', 'voice', 'agent', call.id],
      [2300, 'pending', 'voice', 'agent', call.id],
      [2800, 'pending', 'voice', 'agent', call.id],
    ]);
    // Booked meanwhile: the carrier hears the load is covered, and nothing is recorded.
    const first = defined(
      offers.find((o) => o.offer_amount === 1900),
      'offers.find((o) => o.offer_amount === 1900)',
    );
    const accepted = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${first.id}`,
      headers: user.headers,
      payload: { status: 'accepted' },
    });
    expect(accepted.statusCode).toBe(200);
    const [covered] = await tools(t, c, [{ id: 'tc5', name: 'submit_offer', args: { offer_amount: 1950 } }]);
    expect(covered).toMatchObject({
      result: expect.stringContaining('is already covered'),
      metadata: { decision: 'covered', offer_id: null },
    });
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/offers?load_id=${loadId}`, headers: user.headers })
    ).json();
    expect(after.pagination.total_count).toBe(3);

    // A bad amount and an unknown tool come back as errors, not results.
    const [bad, unknown] = await tools(t, c, [
      { id: 'tc6', name: 'submit_offer', args: { offer_amount: -5 } },
      { id: 'tc7', name: 'teleport' },
    ]);
    expect(bad).toEqual({
      name: 'submit_offer',
      toolCallId: 'tc6',
      error: expect.stringMatching(/offer_amount/),
    });
    expect(unknown).toEqual({ name: 'teleport', toolCallId: 'tc7', error: "Unknown tool 'teleport'" });

    const report = await sendVapi(t, {
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        timestamp: t0 + 61_000,
        startedAt: new Date(t0 + 2000).toISOString(),
        endedAt: new Date(t0 + 60_000).toISOString(),
        call: c,
        analysis: { summary: 'Carrier offered 1900, then 2300.', successEvaluation: 'true' },
        artifact: {
          recordingUrl: 'https://recordings.example/1.wav',
          messages: [
            { role: 'bot', message: 'Hi there', time: t0 + 2500, endTime: t0 + 3000, secondsFromStart: 0.5 },
            { role: 'user', message: 'Hello', time: t0 + 3500, endTime: t0 + 4000, secondsFromStart: 1.5 },
          ],
        },
      },
    } satisfies Vapi.ServerMessage);
    expect(report.statusCode).toBe(200);
    const done = await getCall(t, user.headers, call.id);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      call_start_time: '2026-11-21T10:00:02.000Z',
      call_end_time: '2026-11-21T10:01:00.000Z',
      purpose: 'load_booking',
      template_id: 'vt_00000000-0000-7000-8000-000000000001',
      ended_reason: 'customer-ended-call',
      analysis: {
        summary: 'Carrier offered 1900, then 2300.',
        structured_data: null,
        success_evaluation: 'true',
      },
    });
    expect(Date.parse(done.call_start_time)).toBeLessThan(Date.parse(done.call_end_time));
    expect(done.transcript.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['assistant', 'Hi there'],
      ['user', 'Hello'],
    ]);
  });

  it('moves only forward, whatever the order or repetition of events', async () => {
    const { user } = await createTenant(t);
    const { call, vapiCall: c } = await placeCall(user.headers, {});
    const t0 = Date.parse('2026-11-21T10:00:00.000Z');
    const messages: Vapi.ServerMessage[] = [
      statusUpdate(c, 'in-progress', t0 + 5000),
      statusUpdate(c, 'ringing', t0 + 1000),
      statusUpdate(c, 'queued', t0),
      statusUpdate(c, 'in-progress', t0 + 540_000),
      statusUpdate(c, 'ended', t0 + 240_000, 'customer-ended-call'),
      statusUpdate(c, 'ended', t0 + 300_000, 'voicemail'),
      statusUpdate(c, 'ringing', t0 + 310_000),
    ];
    for (const m of messages) expect((await sendVapi(t, m)).statusCode).toBe(200);
    expect(await getCall(t, user.headers, call.id)).toMatchObject({
      status: 'COMPLETED',
      call_start_time: '2026-11-21T10:00:05.000Z',
      call_end_time: '2026-11-21T10:04:00.000Z',
      ended_reason: 'customer-ended-call',
    });
  });

  it('finds the call by its Vapi id when a message carries no metadata', async () => {
    const { user } = await createTenant(t);
    const { call } = await placeCall(user.headers, {});
    const bare = vapiCall(standIn.lastCall().vapiId);
    expect((await sendVapi(t, statusUpdate(bare, 'ringing', Date.now()))).statusCode).toBe(200);
    expect((await getCall(t, user.headers, call.id)).status).toBe('AGENT_ASSIGNED');
  });

  it('joins a live call: the transfer goes to the joining user, and Vapi asking for a destination gets their number', async () => {
    const { orgId } = await createTenant(t);
    const rep = await createUser(t, orgId, 'MEMBER', { phone: '+12125550123', name: 'Rita Rep' });
    const { call, vapiCall: c } = await placeCall(rep.headers, {});
    await sendVapi(t, statusUpdate(c, 'in-progress', Date.now()));
    const joined = await t.app.inject({
      method: 'POST',
      url: `/api/v1/calls/${call.id}/join`,
      headers: rep.headers,
    });
    expect(joined.statusCode, joined.body).toBe(200);
    expect(standIn.controls(c.id)).toEqual([
      { type: 'transfer', destination: { type: 'number', number: '+12125550123' } },
    ]);
    const asked = await sendVapi(t, {
      message: { type: 'transfer-destination-request', timestamp: Date.now(), call: c },
    } satisfies Vapi.ServerMessage);
    expect(asked.statusCode).toBe(200);
    expect(asked.json()).toMatchObject({
      destination: { type: 'number', number: '+12125550123' },
      message: { type: 'request-start', content: expect.stringMatching(/^Connecting you to/) },
    } satisfies Vapi.ServerMessageResponseTransferDestinationRequest);
    await sendVapi(t, statusUpdate(c, 'forwarding', Date.now()));
    expect((await getCall(t, rep.headers, call.id)).status).toBe('TRANSFERRED');
  });

  it("answers the assistant's transfer with the load's rep, else the owner, else an error", async () => {
    const { orgId, user } = await createTenant(t);
    const rep = await createUser(t, orgId, 'MEMBER', { phone: '+13125550999', name: 'Lane Rep' });
    const loadId = await createLoad(t, user.headers, { carrier_rep_user_id: rep.id });
    const withRep = await placeCall(user.headers, { load_id: loadId });
    await sendVapi(t, statusUpdate(withRep.vapiCall, 'in-progress', Date.now()));
    const asked = await sendVapi(t, {
      message: { type: 'transfer-destination-request', call: withRep.vapiCall },
    } satisfies Vapi.ServerMessage);
    expect(asked.json()).toEqual({
      destination: {
        type: 'number',
        number: '+13125550999',
        transferPlan: {
          mode: 'warm-transfer-experimental',
          fallbackPlan: {
            message:
              'I could not reach Lane Rep just now. I can keep helping you, and Lane Rep will call you back.',
            endCallEnabled: false,
          },
        },
      },
      message: { type: 'request-start', content: 'Connecting you to Lane Rep now.' },
    } satisfies Vapi.ServerMessageResponseTransferDestinationRequest);
    await sendVapi(t, statusUpdate(withRep.vapiCall, 'ended', Date.now(), 'assistant-forwarded-call'));
    expect((await getCall(t, user.headers, withRep.call.id)).status).toBe('TRANSFERRED');

    // Nobody with a phone in this organization: Vapi is told so, and says it.
    const noPhone = await placeCall(user.headers, {});
    const refused = await sendVapi(t, {
      message: { type: 'transfer-destination-request', call: noPhone.vapiCall },
    } satisfies Vapi.ServerMessage);
    expect(refused.json()).toEqual({ error: 'No one is available to take the call right now.' });

    // The owner when the load has no rep.
    const other = await createTenant(t);
    await t.database.pool.query('UPDATE users SET phone = $1 WHERE id = $2', ['+14045550100', other.user.id]);
    const owner = await placeCall(other.user.headers, { phone_number: '+14155550191' });
    const toOwner = await sendVapi(t, {
      message: { type: 'transfer-destination-request', call: owner.vapiCall },
    } satisfies Vapi.ServerMessage);
    expect(toOwner.json().destination).toMatchObject({ type: 'number', number: '+14045550100' });
  });

  it("runs a customer's own assistant with the call's variables, never the load's limits", async () => {
    const { user } = await createTenant(t);
    const loadId = await secretLoad(t, user.headers);
    const { sent } = await placeCall(user.headers, {
      load_id: loadId,
      voice_agent_id: 'asst_own_42',
      template_variables: { campaign: 'spring', customer_rate: 9999, max_buy_rate: 9999 },
    });
    expect(sent.assistant).toBeUndefined();
    expect(sent.assistantId).toBe('asst_own_42');
    expect(sent.assistantOverrides?.variableValues).toMatchObject({
      campaign: 'spring',
      load_number: expect.any(String),
      posted_rate: '$2,000',
      origin_city: 'Chicago',
      broker_name: expect.stringMatching(/^Brokerage/),
      load_id: loadId,
    });
    expect(withoutGeneratedIds(JSON.stringify(sent))).not.toMatch(
      /customer_rate|max_buy_rate|margin|9999|3175|2650|GATE CODE/,
    );
    expect(sent.assistantOverrides?.metadata).toMatchObject({
      envoy_call_id: expect.stringMatching(/^call_/),
    });
  });

  it('refuses an unknown template, or one for another kind of call, with 422 on template_id', async () => {
    const { user } = await createTenant(t);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: user.headers,
      payload: { phone_number: '+14155550190', template_id: 'vt_nope' },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'validation_error', param: 'template_id' });
    const elpTemplate = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: user.headers,
      payload: {
        phone_number: '+14155550190',
        call_type: 'LOAD_BOOKING',
        template_id: 'vt_00000000-0000-7000-8000-000000000002',
      },
    });
    expect(elpTemplate.statusCode).toBe(422);
    expect(elpTemplate.json().error.param).toBe('template_id');
    expect(elpTemplate.json().error.message).toMatch(/elp/);
  });

  it('ends a call FAILED when Vapi refuses it', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: user.headers,
      payload: { phone_number: '+14155550500' },
    });
    expect(res.statusCode).toBe(201);
    expect(await getCall(t, user.headers, res.json().id)).toMatchObject({
      status: 'FAILED',
      ended_reason: 'Vapi answered 500: Internal server error',
    });
  });

  it('refuses a message that is not signed by our credential with 401, and writes nothing', async () => {
    const { user } = await createTenant(t);
    const { call, vapiCall: c } = await placeCall(user.headers, {});
    const forged = await sendVapi(t, statusUpdate(c, 'in-progress', Date.now()), { signature: 'deadbeef' });
    expect(forged.statusCode).toBe(401);
    expect(forged.json().error.code).toBe('not_authenticated');
    const stale = await sendVapi(t, statusUpdate(c, 'in-progress', Date.now()), {
      timestamp: String(Date.now() - 3_600_000),
    });
    expect(stale.statusCode).toBe(401);
    expect((await getCall(t, user.headers, call.id)).status).toBe('PENDING');
  });
});
