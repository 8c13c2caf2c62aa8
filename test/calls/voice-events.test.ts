import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

const SECRET = 'test-webhook-secret-0123456789';
let nextId = 0;

/** Answers POST /call like Vapi, with a fresh call id each time. */
const standIn: Server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.statusCode = 201;
    nextId += 1;
    res.end(
      JSON.stringify({
        id: `vapi-${nextId}`,
        status: 'queued',
        monitor: { controlUrl: 'http://127.0.0.1:9/control' },
      }),
    );
  });
});
let base = '';

function send(t: TestApp, message: Record<string, unknown>, signature?: string) {
  const body = JSON.stringify({ message });
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/integrations/voice/events',
    headers: {
      'content-type': 'application/json',
      'x-vapi-signature': signature ?? createHmac('sha256', SECRET).update(body).digest('hex'),
    },
    payload: body,
  });
}

describe('voice platform events', () => {
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => standIn.close(() => resolve())));
  const t = useTestApp({
    env: {
      VOICE_PROVIDER: 'vapi',
      VAPI_API_KEY: 'k',
      VAPI_PHONE_NUMBER_ID: 'pn',
      VAPI_WEBHOOK_SECRET: SECRET,
      get VAPI_BASE_URL() {
        return base;
      },
      COMPLIANCE_REGISTRY_FILE: registryFile([]),
    },
  });

  async function placeCall(headers: Record<string, string>, body: Record<string, unknown> = {}) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers,
      payload: { phone_number: '+14155550190', ...body },
    });
    expect(res.statusCode).toBe(201);
    return { call: res.json(), vapiId: `vapi-${nextId}` };
  }

  it('moves only forward, whatever the order or repetition of events', async () => {
    const { user } = await createTenant(t);
    const { call, vapiId } = await placeCall(user.headers);
    const c = { id: vapiId, metadata: { envoy_call_id: call.id } };
    const events = [
      { type: 'status-update', status: 'in-progress', call: c, timestamp: '2026-11-21T10:00:05.000Z' },
      { type: 'status-update', status: 'ringing', call: c },
      { type: 'status-update', status: 'queued', call: c },
      { type: 'status-update', status: 'in-progress', call: c, timestamp: '2026-11-21T10:09:00.000Z' },
      {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        startedAt: '2026-11-21T10:00:05.000Z',
        endedAt: '2026-11-21T10:04:00.000Z',
        call: c,
        artifact: {
          messages: [
            { role: 'bot', message: 'Hi there', time: 1795255205000 },
            { role: 'user', message: 'Hello' },
          ],
        },
      },
      { type: 'status-update', status: 'ended', endedReason: 'voicemail', call: c },
      { type: 'status-update', status: 'ringing', call: c },
      {
        type: 'end-of-call-report',
        endedReason: 'voicemail',
        call: c,
        artifact: { messages: [{ role: 'bot', message: 'other' }] },
      },
    ];
    for (const event of events) expect((await send(t, event)).statusCode).toBe(200);
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/calls/${call.id}`, headers: user.headers })
    ).json();
    expect(after).toMatchObject({
      status: 'COMPLETED',
      call_start_time: '2026-11-21T10:00:05.000Z',
      call_end_time: '2026-11-21T10:04:00.000Z',
    });
    expect(after.transcript.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['assistant', 'Hi there'],
      ['user', 'Hello'],
    ]);
  });

  it('walks PENDING, AGENT_ASSIGNED and IN_PROGRESS in order, to TRANSFERRED on forwarding', async () => {
    const { user } = await createTenant(t);
    const { call, vapiId } = await placeCall(user.headers);
    const c = { id: vapiId, metadata: { envoy_call_id: call.id } };
    const statusAfter = async (message: Record<string, unknown>) => {
      expect((await send(t, message)).statusCode).toBe(200);
      return (
        await t.app.inject({ method: 'GET', url: `/api/v1/calls/${call.id}`, headers: user.headers })
      ).json().status;
    };
    expect(call.status).toBe('PENDING');
    expect(await statusAfter({ type: 'status-update', status: 'queued', call: c })).toBe('PENDING');
    expect(await statusAfter({ type: 'status-update', status: 'ringing', call: c })).toBe('AGENT_ASSIGNED');
    expect(await statusAfter({ type: 'status-update', status: 'in-progress', call: c })).toBe('IN_PROGRESS');
    expect(await statusAfter({ type: 'status-update', status: 'forwarding', call: c })).toBe('TRANSFERRED');
    expect(
      await statusAfter({
        type: 'status-update',
        status: 'ended',
        endedReason: 'customer-ended-call',
        call: c,
      }),
    ).toBe('TRANSFERRED');
  });

  it('answers tool calls and records what they do', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { phone: '+14155550190' });
    const loadId = await createLoad(t, user.headers, { customer_rate: 3100, margin: 400 });
    const { call, vapiId } = await placeCall(user.headers, { load_id: loadId });
    const c = { id: vapiId, metadata: { envoy_call_id: call.id } };
    const res = await send(t, {
      type: 'tool-calls',
      call: c,
      toolCallList: [
        { id: 'tc1', type: 'function', function: { name: 'get_load_details', arguments: {} } },
        {
          id: 'tc2',
          type: 'function',
          function: { name: 'submit_offer', arguments: JSON.stringify({ offer_amount: 2450 }) },
        },
        { id: 'tc3', type: 'function', function: { name: 'teleport', arguments: {} } },
      ],
    });
    expect(res.statusCode).toBe(200);
    const { results } = res.json();
    expect(results.map((r: { toolCallId: string }) => r.toolCallId)).toEqual(['tc1', 'tc2', 'tc3']);
    expect(JSON.stringify(results[0].result)).not.toMatch(/customer_rate|margin|3100|notes/);
    // The load has no posted rate: the offer waits for a rep, and the agent is told what to say.
    expect(results[1].result).toEqual({
      offer_id: expect.stringMatching(/^ofr_/),
      status: 'pending',
      decision: 'review',
      say: expect.stringContaining('$2,450'),
    });
    expect(results[2].result).toEqual({ error: "Unknown tool 'teleport'" });
    const load = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: user.headers })
    ).json();
    expect(load).toMatchObject({ offer_count: 1, max_offer_amount: 2450 });
  });

  it('refuses a bad signature with 401 and writes nothing', async () => {
    const { user } = await createTenant(t);
    const { call, vapiId } = await placeCall(user.headers);
    const res = await send(
      t,
      { type: 'status-update', status: 'in-progress', call: { id: vapiId } },
      'deadbeef',
    );
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
    const after = (
      await t.app.inject({ method: 'GET', url: `/api/v1/calls/${call.id}`, headers: user.headers })
    ).json();
    expect(after.status).toBe('PENDING');
  });
});
