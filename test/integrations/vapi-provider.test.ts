import { createHmac } from 'node:crypto';
import type { Vapi } from '@vapi-ai/server-sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  outcomeFromEndedReason,
  VapiProvider,
  VoiceProviderError,
  vapiTime,
} from '../../src/integrations/voice/vapi-provider.js';
import {
  type VapiServerAuth,
  vapiAuthFailure,
  vapiSignature,
} from '../../src/integrations/voice/vapi-server-auth.js';
import type { AssistantSpec, PlaceCallRequest } from '../../src/integrations/voice/voice-provider.js';
import { defined } from '../../src/lib/defined.js';
import { objectOf } from '../../src/lib/json-object.js';
import { toolsFor } from '../../src/modules/calls/voice-tool-declarations.js';
import { instanceOf } from '../helpers/narrow.js';
import {
  hmacPlan,
  openaiModel,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiRefusal,
} from '../helpers/vapi-stand-in.js';

const SERVER_URL = 'https://envoy.example/api/v1/integrations/voice/events';

function spec(overrides: Partial<AssistantSpec> = {}): AssistantSpec {
  return {
    name: 'Load booking (built-in)',
    purpose: 'load_booking',
    firstMessage: 'Hi, this is Acme Logistics about load L-100.',
    instructions: 'You are the dispatch assistant of Acme Logistics.',
    voicemailMessage: 'Please call Acme back about load L-100.',
    tools: toolsFor('load_booking'),
    voice: null,
    model: null,
    questions: null,
    metadata: { envoy_call_id: 'call_abc', organization_id: 'org_1' },
    ...overrides,
  };
}

function request(overrides: Partial<PlaceCallRequest> = {}): PlaceCallRequest {
  return {
    callId: 'call_abc',
    organizationId: 'org_1',
    to: '+14155552671',
    callType: 'LOAD_BOOKING',
    voiceAgentId: null,
    assistant: spec(),
    variables: { load_number: 'L-100' },
    ...overrides,
  };
}

describe('the Vapi adapter', () => {
  const standIn = useVapiStandIn();
  let vapi: VapiProvider;
  beforeAll(() => {
    vapi = new VapiProvider({
      baseUrl: standIn.base,
      apiKey: 'vapi-private-key',
      phoneNumberId: 'pn_123',
      serverAuth: hmacPlan,
      credentialId: 'cred_hmac',
      serverUrl: SERVER_URL,
      retryBaseMs: 5,
    });
  });

  it("places a call on the customer's assistant with our variables, ids and server in its overrides", async () => {
    const placed = await vapi.placeCall(
      request({ voiceAgentId: 'asst_42', variables: { load_number: 'L-100', posted_rate: '$2,300' } }),
    );
    expect(placed).toEqual({
      providerCallId: standIn.lastCall().vapiId,
      controlUrl: expect.stringMatching(/\/control\/vapi-call-\d+$/),
    });
    const sent = defined(standIn.requests.at(-1), 'standIn.requests.at(-1)');
    expect(sent.authorization).toBe('Bearer vapi-private-key');
    expect(sent.body).toEqual({
      phoneNumberId: 'pn_123',
      customer: { number: '+14155552671' },
      assistantId: 'asst_42',
      assistantOverrides: {
        variableValues: { load_number: 'L-100', posted_rate: '$2,300' },
        metadata: { envoy_call_id: 'call_abc', organization_id: 'org_1' },
        server: { url: SERVER_URL, credentialId: 'cred_hmac', timeoutSeconds: 20 },
      },
    } satisfies Vapi.CreateCallDto);
  });

  it('sends a complete transient assistant: script, function tools on our server, transfer, end call, voicemail', async () => {
    await vapi.placeCall(request());
    const body = standIn.lastCall().body;
    expect(body.assistantId).toBeUndefined();
    const assistant = defined(body.assistant, 'body.assistant');
    const server = { url: SERVER_URL, credentialId: 'cred_hmac', timeoutSeconds: 20 };
    expect(assistant).toMatchObject({
      firstMessage: 'Hi, this is Acme Logistics about load L-100.',
      firstMessageMode: 'assistant-speaks-first',
      voicemailDetection: { provider: 'vapi' },
      voicemailMessage: 'Please call Acme back about load L-100.',
      serverMessages: [
        'status-update',
        'end-of-call-report',
        'tool-calls',
        'transfer-destination-request',
        'transfer-update',
        'hang',
      ],
      server,
      metadata: { envoy_call_id: 'call_abc', organization_id: 'org_1' },
      model: {
        provider: 'openai',
        model: 'gpt-4o',
        // The transfer tool's description, which Vapi's transferCall tool has no field for.
        messages: [
          {
            role: 'system',
            content:
              "You are the dispatch assistant of Acme Logistics.\n\nThe transferCall tool (transfer_to_rep): Transfer the call to the load's rep (a person at the brokerage).",
          },
        ],
      },
    } satisfies Vapi.CreateAssistantDto);
    const tools = defined(openaiModel(assistant)?.tools, 'the OpenAI model tools');
    const functions = tools.filter((t): t is Vapi.OpenAiModelToolsItem.Function => t.type === 'function');
    expect(functions.map((t) => t.function?.name)).toEqual([
      'get_load_details',
      'answer_question',
      'submit_offer',
      'request_stop_contact',
    ]);
    for (const f of functions) expect(f.server).toEqual(server);
    expect(
      defined(defined(functions[2], 'functions[2]').function, 'functions[2].function').parameters,
    ).toEqual({
      type: 'object',
      properties: {
        offer_amount: expect.objectContaining({ type: 'number' }),
        notes: expect.objectContaining({ type: 'string' }),
        load_number: expect.objectContaining({ type: 'string' }),
        confirmed: expect.objectContaining({ type: 'boolean' }),
      },
      required: ['offer_amount'],
    });
    // transfer_to_rep: Vapi's transfer tool with no destination, so Vapi asks our server where to.
    const transfer = tools.find((t) => t.type === 'transferCall') as Vapi.OpenAiModelToolsItem.TransferCall;
    expect(transfer.destinations).toBeUndefined();
    expect(tools.some((t) => t.type === 'endCall')).toBe(true);
    // The post-call analysis of a load booking: the offer, availability, equipment, earliest pickup.
    expect(assistant.analysisPlan).toMatchObject({
      summaryPlan: { enabled: true },
      structuredDataPlan: { enabled: true, schema: { type: 'object' } },
      successEvaluationPlan: { enabled: true, rubric: 'PassFail' },
    } satisfies Vapi.AnalysisPlan);
    expect(Object.keys(assistant.analysisPlan?.structuredDataPlan?.schema?.properties ?? {})).toEqual([
      'offer_amount',
      'available',
      'equipment_type',
      'earliest_pickup',
      'notes',
    ]);
  });

  it("uses the template's voice and model", async () => {
    await vapi.placeCall(
      request({
        assistant: spec({
          voice: { provider: 'cartesia', voice_id: 'voice-7' },
          model: { provider: 'anthropic', model: 'claude-3-5-sonnet-20241022' },
        }),
      }),
    );
    const assistant = defined(standIn.lastCall().body.assistant, 'standIn.lastCall().body.assistant');
    expect(assistant.voice).toEqual({ provider: 'cartesia', voiceId: 'voice-7' });
    expect(assistant.model).toMatchObject({ provider: 'anthropic', model: 'claude-3-5-sonnet-20241022' });
  });

  it('transfers and hangs up through the control URL', async () => {
    const placed = await vapi.placeCall(request({ voiceAgentId: 'a' }));
    await vapi.transfer(placed, '+12125550100');
    await vapi.hangUp(placed);
    expect(standIn.controls(placed.providerCallId)).toEqual([
      { type: 'transfer', destination: { type: 'number', number: '+12125550100' } },
      { type: 'end-call' },
    ]);
    await expect(vapi.transfer({ providerCallId: 'x', controlUrl: null }, '+1')).rejects.toThrow(
      VoiceProviderError,
    );
  });

  it("turns a refusal into a VoiceProviderError with Vapi's message, retrying only passing refusals", async () => {
    const before = standIn.callBodies().length;
    await expect(vapi.placeCall(request({ to: '+15555550500' }))).rejects.toThrow(
      'Vapi answered 500: Internal server error',
    );
    // A 5xx is tried once and retried three times.
    expect(standIn.callBodies().length - before).toBe(4);
    standIn.refuseNext(vapiRefusal(400, ['customer.number must be a valid phone number']));
    const refused = await vapi.placeCall(request()).catch((err: unknown) => err);
    expect(instanceOf(refused, VoiceProviderError).message).toBe(
      'Vapi answered 400: customer.number must be a valid phone number',
    );
    expect(standIn.callBodies().length - before).toBe(5);
  });

  it('reads our call id from the call overrides, the call assistant or the message assistant', () => {
    const ids = [
      vapiCall('v1', 'call_1'),
      vapiCall('v1', undefined, { assistant: { metadata: { envoy_call_id: 'call_1' } } }),
    ].map((call) =>
      vapi.parse({
        message: { type: 'status-update', status: 'ringing', call },
      } satisfies Vapi.ServerMessage),
    );
    expect(ids.map((e) => e && 'callId' in e && e.callId)).toEqual(['call_1', 'call_1']);
    const fromMessage = vapi.parse({
      message: {
        type: 'status-update',
        status: 'ringing',
        call: vapiCall('v1'),
        assistant: { metadata: { envoy_call_id: 'call_9' } },
      },
    } satisfies Vapi.ServerMessage);
    expect(fromMessage).toMatchObject({ callId: 'call_9', providerCallId: 'v1', status: 'AGENT_ASSIGNED' });
  });

  it('reads numeric timestamps (epoch ms) and ISO strings', () => {
    const at = Date.parse('2026-11-21T10:00:05.000Z');
    const status = vapi.parse({
      message: {
        type: 'status-update',
        status: 'in-progress',
        timestamp: at,
        call: vapiCall('v1', 'call_1'),
      },
    } satisfies Vapi.ServerMessage);
    expect(status).toMatchObject({ kind: 'status', status: 'IN_PROGRESS', at: new Date(at) });
    expect(vapiTime(at / 1000)).toEqual(new Date(at));
    expect(vapiTime('2026-11-21T10:00:05.000Z')).toEqual(new Date(at));
    expect(vapiTime(String(at))).toEqual(new Date(at));
    expect(vapiTime('soon')).toBeNull();
  });

  it('parses end-of-call reports with their analysis, tool calls, transfer and assistant requests', () => {
    const call = vapiCall('v1', 'call_1');
    const report = vapi.parse({
      message: {
        type: 'end-of-call-report',
        endedReason: 'customer-ended-call',
        startedAt: '2026-11-21T10:00:00.000Z',
        endedAt: '2026-11-21T10:03:00.000Z',
        call,
        analysis: {
          summary: 'Carrier quoted 2450.',
          structuredData: { rate: 2450 },
          successEvaluation: 'true',
        },
        artifact: {
          recordingUrl: 'https://rec/1.wav',
          messages: [
            {
              role: 'bot',
              message: 'Hello',
              time: 1795255200000,
              endTime: 1795255201000,
              secondsFromStart: 0.5,
            },
            {
              role: 'tool_calls',
              message: '',
              time: 1795255202000,
              secondsFromStart: 2,
              toolCalls: [
                { id: 't1', type: 'function', function: { name: 'submit_offer', arguments: '{}' } },
              ],
            },
            {
              role: 'tool_call_result',
              toolCallId: 't1',
              name: 'submit_offer',
              result: 'Thanks, we have your rate.',
              time: 1795255203000,
              secondsFromStart: 3,
            },
          ],
        },
      },
    } satisfies Vapi.ServerMessage);
    expect(report).toMatchObject({
      kind: 'report',
      callId: 'call_1',
      status: 'COMPLETED',
      startedAt: new Date('2026-11-21T10:00:00.000Z'),
      endedAt: new Date('2026-11-21T10:03:00.000Z'),
      recordingUrl: 'https://rec/1.wav',
      endedReason: 'customer-ended-call',
      analysis: {
        summary: 'Carrier quoted 2450.',
        structured_data: { rate: 2450 },
        success_evaluation: 'true',
      },
      transcript: [
        { role: 'assistant', content: 'Hello', seconds_from_start: 0.5 },
        { role: 'tool_calls', tool_calls: [{ id: 't1' }] },
        { role: 'tool', tool_call_id: 't1', content: 'Thanks, we have your rate.' },
      ],
    });
    expect(
      vapi.parse(toolCalls(call, [{ id: 't2', name: 'submit_offer', args: { offer_amount: 1 } }])),
    ).toEqual({
      kind: 'tool_calls',
      callId: 'call_1',
      providerCallId: 'v1',
      controlUrl: null,
      calls: [
        { id: 't2', type: 'function', function: { name: 'submit_offer', arguments: '{"offer_amount":1}' } },
      ],
    });
    expect(
      vapi.parse({ message: { type: 'transfer-destination-request', call } } satisfies Vapi.ServerMessage),
    ).toEqual({ kind: 'transfer_destination', callId: 'call_1', providerCallId: 'v1', controlUrl: null });
    expect(
      vapi.parse(
        {
          message: {
            type: 'assistant-request',
            call: vapiCall('v2', undefined, { monitor: { controlUrl: 'https://control/v2' } }),
            customer: { number: '+13125550111' },
            phoneNumber: { provider: 'twilio', number: '+18005550100', twilioAccountSid: 'AC1' },
          },
        } satisfies Vapi.ServerMessage,
        'org_1',
      ),
    ).toEqual({
      kind: 'assistant_request',
      providerCallId: 'v2',
      organizationId: 'org_1',
      from: '+13125550111',
      to: '+18005550100',
      phoneNumberId: null,
      controlUrl: 'https://control/v2',
    });
    expect(
      vapi.parse({
        message: { type: 'speech-update', status: 'started', role: 'user', call },
      } satisfies Vapi.ServerMessage),
    ).toBeNull();
  });

  it('answers each message in the shape Vapi expects', () => {
    const call = vapiCall('v1', 'call_1');
    const tools = defined(
      vapi.parse(
        toolCalls(call, [
          { id: 't1', name: 'a' },
          { id: 't2', name: 'b' },
        ]),
      ),
      "vapi.parse( toolCalls(call, [ { id: 't1', name: 'a' }, { id: 't2', name: 'b' }, ]), )",
    );
    expect(
      vapi.respond(tools, {
        kind: 'tool_results',
        results: [
          { toolCallId: 't1', name: 'a', result: 'Say this.', metadata: { decision: 'review' } },
          { toolCallId: 't2', name: 'b', error: 'Unknown tool' },
        ],
      }),
    ).toEqual({
      results: [
        { name: 'a', toolCallId: 't1', result: 'Say this.', metadata: { decision: 'review' } },
        { name: 'b', toolCallId: 't2', error: 'Unknown tool' },
      ],
    } satisfies Vapi.ServerMessageResponseToolCalls);
    const transfer = defined(
      vapi.parse({
        message: { type: 'transfer-destination-request', call },
      } satisfies Vapi.ServerMessage),
      "vapi.parse({ message: { type: 'transfer-destination-request', call }, } satisfies Vapi.ServerMessage)",
    );
    expect(
      vapi.respond(transfer, {
        kind: 'transfer_destination',
        number: '+12125550100',
        message: 'Connecting you.',
        fallbackMessage: 'I could not reach them.',
      }),
    ).toEqual({
      destination: {
        type: 'number',
        number: '+12125550100',
        transferPlan: {
          mode: 'warm-transfer-experimental',
          fallbackPlan: { message: 'I could not reach them.', endCallEnabled: false },
        },
      },
      message: { type: 'request-start', content: 'Connecting you.' },
    } satisfies Vapi.ServerMessageResponseTransferDestinationRequest);
    expect(vapi.respond(transfer, { kind: 'error', error: 'Nobody is available.' })).toEqual({
      error: 'Nobody is available.',
    });
    const inbound = defined(
      vapi.parse(
        { message: { type: 'assistant-request', call: vapiCall('v3') } } satisfies Vapi.ServerMessage,
        'org_1',
      ),
      "vapi.parse( { message: { type: 'assistant-request', call: vapiCall('v3') } } satisfies Vapi.ServerMessage, 'org_1', )",
    );
    const answered = vapi.respond(inbound, {
      kind: 'assistant',
      assistant: spec({ purpose: 'inbound_sales' }),
    });
    const assistant = defined(objectOf(answered.assistant), 'the assistant answered');
    expect(assistant.metadata).toEqual({ envoy_call_id: 'call_abc', organization_id: 'org_1' });
    // Nobody to leave a message for on a call we answer.
    expect(assistant.voicemailDetection).toBeUndefined();
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

describe("Vapi's server credentials", () => {
  const body = JSON.stringify({ message: { type: 'status-update', status: 'ringing', call: { id: 'v1' } } });
  const now = Date.parse('2026-11-21T10:00:00.000Z');

  it('accepts the HMAC of `{timestamp}.{body}` in x-signature with the time in x-timestamp (ms or s)', () => {
    for (const ts of [String(now), String(now / 1000)]) {
      const signature = vapiSignature(hmacPlan, body, ts);
      expect(signature).toBe(createHmac('sha256', hmacPlan.secret).update(`${ts}.${body}`).digest('hex'));
      expect(
        vapiAuthFailure(hmacPlan, { 'x-signature': signature, 'x-timestamp': ts }, body, now),
      ).toBeNull();
      expect(
        vapiAuthFailure(hmacPlan, { 'x-signature': `sha256=${signature}`, 'x-timestamp': ts }, body, now),
      ).toBeNull();
    }
  });

  it('refuses a changed body, another secret, a missing header or a stale timestamp', () => {
    const ts = String(now);
    const good = vapiSignature(hmacPlan, body, ts);
    expect(vapiAuthFailure(hmacPlan, { 'x-signature': good, 'x-timestamp': ts }, `${body} `, now)).toBe(
      'the signature does not match',
    );
    const other = vapiSignature({ ...hmacPlan, secret: 'another-secret-0123456789' }, body, ts);
    expect(vapiAuthFailure(hmacPlan, { 'x-signature': other, 'x-timestamp': ts }, body, now)).not.toBeNull();
    expect(vapiAuthFailure(hmacPlan, { 'x-timestamp': ts }, body, now)).toBe(
      'the x-signature header is missing',
    );
    expect(vapiAuthFailure(hmacPlan, { 'x-signature': good }, body, now)).toMatch(/x-timestamp/);
    expect(
      vapiAuthFailure(hmacPlan, { 'x-signature': good, 'x-timestamp': ts }, body, now + 301_000),
    ).toMatch(/outside the 300 s window/);
    // The old scheme (an HMAC of the body alone in x-vapi-signature) is not Vapi's: refused.
    const bodyOnly = createHmac('sha256', hmacPlan.secret).update(body).digest('hex');
    expect(vapiAuthFailure(hmacPlan, { 'x-vapi-signature': bodyOnly }, body, now)).not.toBeNull();
  });

  it('follows the plan configured: headers, algorithm, base64, a payload without a timestamp', () => {
    const plan: VapiServerAuth = {
      ...hmacPlan,
      algorithm: 'sha512',
      encoding: 'base64',
      signatureHeader: 'x-envoy-signature',
      payloadFormat: '{body}',
    };
    const signature = createHmac('sha512', hmacPlan.secret).update(body).digest('base64');
    expect(vapiAuthFailure(plan, { 'x-envoy-signature': signature }, body, now)).toBeNull();
    expect(vapiAuthFailure(plan, { 'x-envoy-signature': signature.slice(1) }, body, now)).not.toBeNull();
  });

  it('accepts a bearer token credential, with or without the Bearer prefix', () => {
    const bearer: VapiServerAuth = {
      scheme: 'bearer',
      secret: 'token-0123456789abcdef',
      header: 'authorization',
    };
    expect(vapiAuthFailure(bearer, { authorization: 'Bearer token-0123456789abcdef' }, body)).toBeNull();
    const secretHeader: VapiServerAuth = { ...bearer, header: 'x-vapi-secret' };
    expect(vapiAuthFailure(secretHeader, { 'x-vapi-secret': 'token-0123456789abcdef' }, body)).toBeNull();
    expect(vapiAuthFailure(bearer, { authorization: 'Bearer wrong' }, body)).toBe(
      'the authorization token is wrong',
    );
    expect(vapiAuthFailure(bearer, {}, body)).toBe('the authorization header is missing');
  });
});
