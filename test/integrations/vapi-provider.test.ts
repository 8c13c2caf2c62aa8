import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  outcomeFromEndedReason,
  VapiProvider,
  VoiceProviderError,
} from '../../src/integrations/voice/vapi-provider.js';

interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** Answers like Vapi: POST /call returns the call with its monitor URLs; control commands answer 200. */
function vapiStandIn() {
  const received: Received[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      res.setHeader('content-type', 'application/json');
      if (req.url === '/call' && req.method === 'POST') {
        if ((body.customer as { number?: string })?.number === '+15555550500') {
          res.statusCode = 500;
          return res.end('{"message":"upstream"}');
        }
        res.statusCode = 201;
        return res.end(
          JSON.stringify({
            id: 'vapi-call-1',
            status: 'queued',
            monitor: { listenUrl: 'wss://listen', controlUrl: `${base}/control/vapi-call-1` },
          }),
        );
      }
      if (req.url?.startsWith('/control/')) return res.end('{}');
      res.statusCode = 404;
      res.end('{}');
    });
  });
  return {
    server,
    received,
    setBase: (b: string) => {
      base = b;
    },
  };
}

describe('the Vapi adapter', () => {
  const standIn = vapiStandIn();
  let vapi: VapiProvider;
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(standIn.server.address() as AddressInfo).port}`;
    standIn.setBase(base);
    vapi = new VapiProvider({
      baseUrl: base,
      apiKey: 'vapi-private-key',
      phoneNumberId: 'pn_123',
      webhookSecret: 'hook-secret',
      serverUrl: 'https://envoy.example/api/v1/integrations/voice/events',
    });
  });
  afterAll(() => new Promise<void>((resolve) => standIn.server.close(() => resolve())));

  it('creates a call with the assistant id, the variables and our call id', async () => {
    const placed = await vapi.placeCall({
      callId: 'call_abc',
      to: '+14155552671',
      callType: 'LOAD_BOOKING',
      templateId: null,
      voiceAgentId: 'asst_42',
      variables: { load_number: 'L-100', rate: 2300 },
    });
    expect(placed).toEqual({
      providerCallId: 'vapi-call-1',
      controlUrl: expect.stringMatching(/\/control\/vapi-call-1$/),
    });
    const sent = standIn.received.find((r) => r.path === '/call')!;
    expect(sent.authorization).toBe('Bearer vapi-private-key');
    expect(sent.body).toEqual({
      phoneNumberId: 'pn_123',
      customer: { number: '+14155552671' },
      assistantId: 'asst_42',
      metadata: { envoy_call_id: 'call_abc', call_type: 'LOAD_BOOKING' },
      assistantOverrides: {
        variableValues: { load_number: 'L-100', rate: 2300 },
        server: { url: 'https://envoy.example/api/v1/integrations/voice/events' },
      },
    });
  });

  it('builds an inline assistant from the template when there is no assistant id', async () => {
    await vapi.placeCall({
      callId: 'call_elp',
      to: '+14155552671',
      callType: 'ELP',
      templateId: 'elp-v1',
      voiceAgentId: null,
      variables: {},
    });
    const sent = standIn.received.filter((r) => r.path === '/call').at(-1)!;
    expect(sent.body.assistantId).toBeUndefined();
    expect(sent.body.assistant).toMatchObject({
      name: 'envoy-elp-v1',
      model: { messages: [{ role: 'system' }] },
    });
  });

  it('transfers and hangs up through the control URL', async () => {
    const real = await vapi.placeCall({
      callId: 'c',
      to: '+14155552671',
      callType: null,
      templateId: null,
      voiceAgentId: 'a',
      variables: {},
    });
    await vapi.transfer(real, '+12125550100');
    await vapi.hangUp(real);
    const control = standIn.received.filter((r) => r.path === '/control/vapi-call-1');
    expect(control.map((r) => r.body)).toEqual([
      { type: 'transfer', destination: { type: 'number', number: '+12125550100' } },
      { type: 'end-call' },
    ]);
    await expect(vapi.transfer({ providerCallId: 'vapi-call-1', controlUrl: null }, '+1')).rejects.toThrow(
      VoiceProviderError,
    );
  });

  it('turns a 5xx into a VoiceProviderError', async () => {
    await expect(
      vapi.placeCall({
        callId: 'x',
        to: '+15555550500',
        callType: null,
        templateId: null,
        voiceAgentId: 'a',
        variables: {},
      }),
    ).rejects.toThrow('Vapi answered 500');
  });

  it('verifies the signature over the raw body', () => {
    const body = JSON.stringify({
      message: { type: 'status-update', status: 'ringing', call: { id: 'v1' } },
    });
    const good = createHmac('sha256', 'hook-secret').update(body).digest('hex');
    expect(vapi.verify(body, good)).toBe(true);
    expect(vapi.verify(`${body} `, good)).toBe(false);
    expect(vapi.verify(body, createHmac('sha256', 'other').update(body).digest('hex'))).toBe(false);
    expect(vapi.verify(body, undefined)).toBe(false);
  });

  it('parses status updates, end-of-call reports and tool calls', () => {
    const call = { id: 'v1', metadata: { envoy_call_id: 'call_1' } };
    expect(vapi.parse({ message: { type: 'status-update', status: 'in-progress', call } })).toEqual([
      { kind: 'status', callId: 'call_1', providerCallId: 'v1', status: 'IN_PROGRESS', at: expect.any(Date) },
    ]);
    const [report] = vapi.parse({
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        startedAt: '2026-11-21T10:00:00.000Z',
        endedAt: '2026-11-21T10:03:00.000Z',
        recordingUrl: 'https://rec/1.wav',
        call,
        artifact: {
          messages: [
            { role: 'bot', message: 'Hello', time: 1795255200000, secondsFromStart: 0.5, source: 'model' },
            {
              role: 'tool_calls',
              toolCalls: [{ id: 't1', type: 'function', function: { name: 'submit_offer', arguments: {} } }],
            },
          ],
        },
      },
    });
    expect(report).toMatchObject({
      kind: 'report',
      status: 'COMPLETED',
      recordingUrl: 'https://rec/1.wav',
      transcript: [
        { role: 'assistant', content: 'Hello', seconds_from_start: 0.5, source: 'model' },
        { role: 'tool_calls', tool_calls: [{ id: 't1' }] },
      ],
    });
    expect(
      vapi.parse({
        message: {
          type: 'tool-calls',
          call,
          toolCallList: [{ id: 't2', type: 'function', function: { name: 'x', arguments: { a: 1 } } }],
        },
      }),
    ).toEqual([
      {
        kind: 'tool_calls',
        callId: 'call_1',
        providerCallId: 'v1',
        calls: [{ id: 't2', type: 'function', function: { name: 'x', arguments: { a: 1 } } }],
      },
    ]);
    expect(vapi.parse({ message: { type: 'speech-update', call } })).toEqual([]);
  });

  it('maps ended reasons to terminal states', () => {
    expect(outcomeFromEndedReason('voicemail')).toBe('VOICEMAIL');
    expect(outcomeFromEndedReason('customer-did-not-answer')).toBe('NO_RESPONSE');
    expect(outcomeFromEndedReason('customer-busy')).toBe('NO_RESPONSE');
    expect(outcomeFromEndedReason('assistant-forwarded-call')).toBe('TRANSFERRED');
    expect(outcomeFromEndedReason('manually-canceled')).toBe('CANCELLED');
    expect(outcomeFromEndedReason('pipeline-error-openai-llm-failed')).toBe('FAILED');
    expect(outcomeFromEndedReason('assistant-ended-call')).toBe('COMPLETED');
  });
});
