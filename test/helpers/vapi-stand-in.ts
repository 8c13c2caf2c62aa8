import { createServer, type Server } from 'node:http';
import type { Vapi } from '@vapi-ai/server-sdk';
import { afterAll, beforeAll, expect } from 'vitest';
import { z } from 'zod';
import { vapiSignature } from '../../src/integrations/voice/vapi-server-auth.js';
import { defined } from '../../src/lib/defined.js';
import { objectsOf } from '../../src/lib/json-object.js';
import type { TestApp } from './app.js';
import { bodyOf } from './json-body.js';
import { portOf } from './listening.js';

export interface VapiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A refusal of `POST /call` as Vapi's API answers it: its status and its error body. */
export interface VapiRefusal {
  status: number;
  body: { message: string | string[]; error: string; statusCode: number };
}

/** Vapi's error body for a status: NestJS's `{message, error, statusCode}`. */
export function vapiRefusal(status: number, message: string | string[]): VapiRefusal {
  const error =
    { 400: 'Bad Request', 402: 'Payment Required', 429: 'Too Many Requests', 503: 'Service Unavailable' }[
      status
    ] ?? 'Error';
  return { status, body: { message, error, statusCode: status } };
}

/**
 * A local Vapi: `POST /call` answers a Call (status queued, a fresh id, monitor URLs pointing back
 * here) as Vapi's API does, live-call control commands answer 200, and every request is kept.
 * `refuseNext(...)` queues refusals the next `POST /call` requests get, in order; a customer
 * number ending in 0500 makes every `POST /call` for it answer 500.
 */
export function useVapiStandIn() {
  const requests: VapiRequest[] = [];
  /** The `POST /call` bodies, refused ones too, oldest first. */
  const calls: Vapi.CreateCallDto[] = [];
  const refusals: VapiRefusal[] = [];
  let base = '';
  let next = 0;
  /** Run on each `POST /call` before it is answered (what the platform could see then). */
  let onCall: ((dto: Vapi.CreateCallDto) => Promise<void>) | null = null;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', async () => {
      const body: unknown = raw ? JSON.parse(raw) : null;
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/call') {
        // The app builds this body as a Vapi.CreateCallDto (`satisfies` in VapiProvider.callBody).
        const dto = body as Vapi.CreateCallDto;
        calls.push(dto);
        if (onCall) await onCall(dto);
        const refusal =
          refusals.shift() ??
          (dto.customer?.number?.endsWith('0500') ? vapiRefusal(500, 'Internal server error') : undefined);
        if (refusal) {
          res.statusCode = refusal.status;
          return res.end(JSON.stringify(refusal.body));
        }
        next += 1;
        const id = `vapi-call-${next}`;
        const now = new Date().toISOString();
        res.statusCode = 201;
        return res.end(
          JSON.stringify({
            id,
            orgId: 'vapi-org',
            createdAt: now,
            updatedAt: now,
            type: 'outboundPhoneCall',
            status: 'queued',
            monitor: { listenUrl: `wss://listen/${id}`, controlUrl: `${base}/control/${id}` },
            phoneNumberId: dto.phoneNumberId,
            customer: dto.customer,
          } satisfies Vapi.Call),
        );
      }
      if (req.method === 'POST' && req.url?.startsWith('/control/')) return res.end('{}');
      res.statusCode = 404;
      res.end('{}');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${portOf(server)}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    requests,
    /** Runs `fn` on each `POST /call` before answering it (null: no more). */
    onCall: (fn: ((dto: Vapi.CreateCallDto) => Promise<void>) | null) => {
      onCall = fn;
    },
    /** The next `POST /call` requests are refused with these, in order. */
    refuseNext: (...answers: VapiRefusal[]) => {
      refusals.push(...answers);
    },
    get base() {
      return base;
    },
    /** The `POST /call` bodies, oldest first. */
    callBodies: () => [...calls],
    /** The last call placed: its Vapi id and the body we sent. */
    lastCall: () => ({ vapiId: `vapi-call-${next}`, body: defined(calls.at(-1), 'a POST /call body') }),
    controls: (vapiId: string) =>
      objectsOf(requests.filter((r) => r.path === `/control/${vapiId}`).map((r) => r.body)),
  };
}

export const VAPI_SECRET = 'vapi-hmac-secret-0123456789abcdef';

/** The environment of an app on the Vapi path, against the stand-in. */
export function vapiEnv(standIn: { base: string }, extra: Record<string, string> = {}) {
  return {
    VOICE_PROVIDER: 'vapi',
    VAPI_API_KEY: 'vapi-private-key',
    VAPI_PHONE_NUMBER_ID: 'pn_envoy',
    VAPI_WEBHOOK_SECRET: VAPI_SECRET,
    VAPI_SERVER_CREDENTIAL_ID: 'cred_envoy_hmac',
    PUBLIC_BASE_URL: 'https://envoy.example',
    VAPI_RETRY_BASE_MS: '5',
    get VAPI_BASE_URL() {
      return standIn.base;
    },
    ...extra,
  };
}

/** The default HMAC plan of a Vapi credential, with our secret. */
export const hmacPlan = {
  scheme: 'hmac' as const,
  secret: VAPI_SECRET,
  algorithm: 'sha256' as const,
  signatureHeader: 'x-signature',
  timestampHeader: 'x-timestamp',
  encoding: 'hex' as const,
  payloadFormat: '{timestamp}.{body}',
  toleranceSeconds: 300,
};

/** A Vapi Call object as it arrives on server messages: ours when `envoyCallId` is given. */
export function vapiCall(vapiId: string, envoyCallId?: string, extra: Partial<Vapi.Call> = {}): Vapi.Call {
  const now = new Date().toISOString();
  return {
    id: vapiId,
    orgId: 'vapi-org',
    createdAt: now,
    updatedAt: now,
    ...(envoyCallId ? { assistantOverrides: { metadata: { envoy_call_id: envoyCallId } } } : {}),
    ...extra,
  };
}

/**
 * Sends a server message to our webhook as Vapi does under an HMAC credential: the body, its
 * signature of `{timestamp}.{body}` in `x-signature`, the time in `x-timestamp` (epoch ms).
 */
export function sendVapi(
  t: TestApp,
  payload: Vapi.ServerMessage,
  options: { query?: string; timestamp?: string; signature?: string; path?: string } = {},
) {
  const body = JSON.stringify(payload);
  const timestamp = options.timestamp ?? String(Date.now());
  return t.app.inject({
    method: 'POST',
    url: `${options.path ?? '/api/v1/integrations/voice/events'}${options.query ?? ''}`,
    headers: {
      'content-type': 'application/json',
      'x-timestamp': timestamp,
      'x-signature': options.signature ?? vapiSignature(hmacPlan, body, timestamp),
    },
    payload: body,
  });
}

/** A status update with a numeric (epoch ms) timestamp, as Vapi sends it. */
export function statusUpdate(
  call: Vapi.Call,
  status: Vapi.ServerMessageStatusUpdateStatus,
  at: number,
  endedReason?: Vapi.ServerMessageStatusUpdateEndedReason,
): Vapi.ServerMessage {
  return {
    message: {
      type: 'status-update',
      status,
      timestamp: at,
      call,
      ...(endedReason ? { endedReason } : {}),
    },
  } satisfies Vapi.ServerMessage;
}

/** An end-of-call report as Vapi sends it: a minute long, one bot line, with the analysis given. */
export function endOfCallReport(
  call: Vapi.Call,
  endedReason: Vapi.ServerMessageEndOfCallReportEndedReason,
  extra: { analysis?: Vapi.Analysis; cost?: number } = {},
): Vapi.ServerMessage {
  const now = Date.now();
  return {
    message: {
      type: 'end-of-call-report',
      endedReason,
      timestamp: now,
      startedAt: new Date(now - 60_000).toISOString(),
      endedAt: new Date(now).toISOString(),
      call,
      analysis: extra.analysis ?? {},
      ...(extra.cost !== undefined ? { cost: extra.cost } : {}),
      artifact: {
        messages: [
          { role: 'bot', message: 'Hello.', time: now - 59_000, endTime: now - 58_000, secondsFromStart: 1 },
        ],
      },
    },
  } satisfies Vapi.ServerMessage;
}

/** Tool calls as Vapi sends them: `function.arguments` is a JSON string. */
export function toolCalls(
  call: Vapi.Call,
  calls: { id: string; name: string; args?: Record<string, unknown> }[],
): Vapi.ServerMessage {
  const list: Vapi.ToolCall[] = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) },
  }));
  return {
    message: {
      type: 'tool-calls',
      timestamp: Date.now(),
      call,
      toolCallList: list,
      toolWithToolCallList: list.map((toolCall) => ({
        type: 'function',
        function: { name: toolCall.function.name },
        toolCall,
      })),
    },
  } satisfies Vapi.ServerMessage;
}

/** A result our webhook answers to a tool-calls message (Vapi's ToolCallResult): the fields tests read. */
const toolAnswer = z.looseObject({
  name: z.string(),
  toolCallId: z.string(),
  result: z.string().optional(),
  error: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type ToolAnswer = z.infer<typeof toolAnswer>;

/** The results of the webhook's answer to a tool-calls message, checked to be ToolAnswers. */
export const toolAnswersOf = (res: { statusCode: number; body: string }): ToolAnswer[] =>
  bodyOf(res, z.object({ results: z.array(toolAnswer) })).results;

/** The first result of the webhook's answer to a tool-calls message. */
export const firstToolAnswer = (res: { statusCode: number; body: string }): ToolAnswer =>
  defined(toolAnswersOf(res)[0], 'the first tool-call result');

/** The assistant records the driver's answer to an ELP question (record_elp_answer): the tool's result. */
export async function recordElpAnswer(t: TestApp, call: Vapi.Call, questionId: string, valid: boolean) {
  const res = await sendVapi(
    t,
    toolCalls(call, [
      {
        id: `tc-${questionId}`,
        name: 'record_elp_answer',
        args: { question_id: questionId, answer: valid ? 'A clear answer.' : 'Yes okay.', valid },
      },
    ]),
  );
  expect(res.statusCode, res.body).toBe(200);
  return firstToolAnswer(res);
}

/** The OpenAI model of an assistant we sent (the one provider the app configures), else undefined. */
export const openaiModel = (assistant: Vapi.CreateAssistantDto | undefined) =>
  assistant?.model?.provider === 'openai' ? assistant.model : undefined;

/** The system message of the transient assistant we sent Vapi. */
export function scriptOf(body: { assistant?: Vapi.CreateAssistantDto }): string {
  const model = openaiModel(body.assistant);
  return (model?.messages ?? []).map((m) => m.content).join('\n');
}

/** The names of the tools of an assistant we sent: function names, then Vapi tool types. */
export function toolNamesOf(assistant: Vapi.CreateAssistantDto | undefined): string[] {
  const model = openaiModel(assistant);
  return (model?.tools ?? []).map((t) => (t.type === 'function' ? (t.function?.name ?? '') : t.type));
}
