import type { Vapi } from '@vapi-ai/server-sdk';
import { vapiAssistant } from './vapi-assistant.js';
import { type VapiServerAuth, vapiAuthFailure } from './vapi-server-auth.js';
import type {
  CallAnalysis,
  CallStatus,
  PlaceCallRequest,
  PlacedCall,
  ToolCall,
  TranscriptMessage,
  VoiceAnswer,
  VoiceEvent,
  VoiceProvider,
} from './voice-provider.js';

export interface VapiOptions {
  baseUrl: string;
  apiKey: string;
  phoneNumberId: string;
  /** How Vapi authenticates its server messages to us (the credential `credentialId` names). */
  serverAuth: VapiServerAuth;
  /** The Vapi Custom Credential that signs our server messages; sent in every `server` block. */
  credentialId: string | null;
  /** Our public URL for server messages (`.../api/v1/integrations/voice/events`). */
  serverUrl: string;
  timeoutMs?: number;
}

export class VoiceProviderError extends Error {
  override name = 'VoiceProviderError';
}

/** Vapi's call statuses and ended reasons, in our vocabulary. */
export function statusFromVapi(status: string, endedReason?: string | null): CallStatus | null {
  switch (status) {
    case 'scheduled':
      return 'SCHEDULED';
    case 'queued':
      return 'PENDING';
    case 'ringing':
      return 'AGENT_ASSIGNED';
    case 'in-progress':
      return 'IN_PROGRESS';
    case 'forwarding':
      return 'TRANSFERRED';
    case 'ended':
      return outcomeFromEndedReason(endedReason ?? '');
    default:
      return null;
  }
}

export function outcomeFromEndedReason(reason: string): CallStatus {
  if (reason === 'voicemail') return 'VOICEMAIL';
  if (/did-not-answer|no-answer|busy/.test(reason)) return 'NO_RESPONSE';
  if (/forwarded|transfer/.test(reason)) return 'TRANSFERRED';
  if (/manually-canceled|cancel/.test(reason)) return 'CANCELLED';
  if (/error|failed|fault|invalid|not-found|unavailable/.test(reason)) return 'FAILED';
  return 'COMPLETED';
}

/**
 * A time as Vapi sends it: `timestamp` is epoch milliseconds (a number), `startedAt`/`endedAt` are
 * ISO strings; a numeric string or seconds are read too.
 */
export function vapiTime(v: unknown): Date | null {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v > 1e11 ? v : v * 1000);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (typeof v === 'string' && v.trim() !== '') {
    if (/^\d+(\.\d+)?$/.test(v.trim())) return vapiTime(Number(v));
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : new Date(t);
  }
  return null;
}

/** A string field, or null when absent or of another type. */
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** An object field, or an empty object when absent or of another type. */
const obj = (v: unknown) =>
  (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Record<string, unknown>;

/** Epoch milliseconds as ISO 8601; null when not a number or outside the range a Date holds. */
function isoOfMillis(v: unknown): string | null {
  const d = typeof v === 'number' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}

type Metadata = { envoy_call_id?: unknown } | undefined;

/** Our call id, wherever Vapi carries it back: the call's overrides or assistant, or the message's assistant. */
function envoyCallId(message: { call?: Vapi.Call; assistant?: Vapi.CreateAssistantDto }): string | null {
  const call = obj(message.call);
  const candidates = [
    obj(obj(call.assistantOverrides).metadata),
    obj(obj(call.assistant).metadata),
    obj(obj(message.assistant).metadata),
  ] as Metadata[];
  for (const m of candidates) if (typeof m?.envoy_call_id === 'string') return m.envoy_call_id;
  return null;
}

/**
 * Vapi over its REST API: `POST /call` places the call (the customer's assistant id, or a transient
 * assistant built from our script), live commands go to the call's `monitor.controlUrl`, and server
 * messages (`status-update`, `end-of-call-report`, `tool-calls`, `transfer-destination-request`,
 * `assistant-request`) arrive at our webhook. Request and response bodies are typed against Vapi's
 * server SDK.
 */
export class VapiProvider implements VoiceProvider {
  readonly name = 'vapi';

  constructor(private readonly options: VapiOptions) {}

  attach(): void {
    // Events arrive over HTTP at POST /api/v1/integrations/voice/events.
  }

  async close(): Promise<void> {}

  /** The `server` block of every assistant and tool: our webhook, under our credential. */
  get server(): Vapi.Server {
    return {
      url: this.options.serverUrl,
      ...(this.options.credentialId ? { credentialId: this.options.credentialId } : {}),
      timeoutSeconds: 20,
    };
  }

  /** The body of `POST /call` for a request: exported through the class for tests to inspect. */
  callBody(request: PlaceCallRequest): Vapi.CreateCallDto {
    const metadata = { envoy_call_id: request.callId, organization_id: request.organizationId };
    const overrides = {
      variableValues: request.variables,
      metadata,
      server: this.server,
    } satisfies Vapi.AssistantOverrides;
    const base = {
      phoneNumberId: this.options.phoneNumberId,
      customer: { number: request.to },
      assistantOverrides: overrides,
    } satisfies Vapi.CreateCallDto;
    if (request.voiceAgentId)
      return { ...base, assistantId: request.voiceAgentId } satisfies Vapi.CreateCallDto;
    return {
      ...base,
      assistant: vapiAssistant(request.assistant, this.server, 'outbound'),
    } satisfies Vapi.CreateCallDto;
  }

  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const response = await this.send(
      'POST',
      `${this.options.baseUrl.replace(/\/$/, '')}/call`,
      this.callBody(request),
      true,
    );
    const json = (await response.json()) as Partial<Vapi.Call>;
    if (!json.id) throw new VoiceProviderError('Vapi answered without a call id');
    return { providerCallId: json.id, controlUrl: json.monitor?.controlUrl ?? null };
  }

  /** Live call control (`monitor.controlUrl`): the SDK's client inbound messages. */
  async transfer(call: PlacedCall, toNumber: string): Promise<void> {
    if (!call.controlUrl) throw new VoiceProviderError('The call has no control URL');
    const command = {
      type: 'transfer',
      destination: { type: 'number', number: toNumber },
    } satisfies Vapi.ClientInboundMessageMessage.Transfer;
    await this.send('POST', call.controlUrl, command, false);
  }

  async hangUp(call: PlacedCall): Promise<void> {
    if (!call.controlUrl) throw new VoiceProviderError('The call has no control URL');
    const command = { type: 'end-call' } satisfies Vapi.ClientInboundMessageMessage.EndCall;
    await this.send('POST', call.controlUrl, command, false);
  }

  /** Why a server message is not from Vapi under our credential, or null when it is. */
  authFailure(headers: Record<string, string | string[] | undefined>, rawBody: string): string | null {
    return vapiAuthFailure(this.options.serverAuth, headers, rawBody);
  }

  /**
   * A server message as our event; messages we do not use give null. `organizationId` is the
   * organization named by the server URL (inbound numbers), used by `assistant-request` only.
   */
  parse(body: unknown, organizationId: string | null = null): VoiceEvent | null {
    // Vapi's messages are typed by its SDK, but every field is read as unknown: a signed message
    // with a field of another type is treated as if the field were absent, never a 500.
    const message = obj(obj(body).message) as unknown as Vapi.ServerMessageMessage & {
      call?: Vapi.Call;
      assistant?: Vapi.CreateAssistantDto;
    };
    if (typeof message.type !== 'string') return null;
    const call = obj(message.call);
    const providerCallId = str(call.id);
    if (!providerCallId) return null;
    const callId = envoyCallId(message);
    switch (message.type) {
      case 'status-update': {
        const m = message as Vapi.ServerMessageStatusUpdate;
        const endedReason = str(m.endedReason) ?? str(call.endedReason);
        const status = statusFromVapi(str(m.status) ?? '', endedReason);
        if (!status) return null;
        return {
          kind: 'status',
          callId,
          providerCallId,
          status,
          at: vapiTime(m.timestamp) ?? new Date(),
          endedReason: str(m.endedReason),
        };
      }
      case 'end-of-call-report': {
        const m = message as Vapi.ServerMessageEndOfCallReport;
        const artifact = obj(m.artifact);
        return {
          kind: 'report',
          callId,
          providerCallId,
          status: outcomeFromEndedReason(str(m.endedReason) ?? ''),
          startedAt: vapiTime(m.startedAt ?? call.startedAt),
          endedAt: vapiTime(m.endedAt ?? call.endedAt),
          transcript: Array.isArray(artifact.messages) ? artifact.messages.map(transcriptMessage) : [],
          recordingUrl:
            str(artifact.recordingUrl) ??
            str(obj(obj(artifact.recording).mono).combinedUrl) ??
            str((m as { recordingUrl?: unknown }).recordingUrl),
          endedReason: str(m.endedReason),
          analysis: analysisOf(m.analysis ?? call.analysis),
        };
      }
      case 'tool-calls': {
        const m = message as Vapi.ServerMessageToolCalls;
        const list = Array.isArray(m.toolCallList) ? m.toolCallList : [];
        return { kind: 'tool_calls', callId, providerCallId, calls: list.map(toolCall) };
      }
      case 'transfer-destination-request':
        return { kind: 'transfer_destination', callId, providerCallId };
      case 'assistant-request': {
        const m = message as Vapi.ServerMessageAssistantRequest;
        return {
          kind: 'assistant_request',
          providerCallId,
          organizationId,
          from: str(obj(m.customer).number) ?? str(obj(call.customer).number),
          to: numberOf(m.phoneNumber) ?? numberOf(call.phoneNumber),
          controlUrl: str(obj(call.monitor).controlUrl),
        };
      }
      default:
        return null;
    }
  }

  /** Our answer to a server message, in the shape Vapi expects for its type. */
  respond(event: VoiceEvent, answer: VoiceAnswer | undefined): Record<string, unknown> {
    if (event.kind === 'tool_calls') {
      const results = answer?.kind === 'tool_results' ? answer.results : [];
      return {
        results: results.map((r) => ({
          name: r.name,
          toolCallId: r.toolCallId,
          ...(r.error !== undefined ? { error: r.error } : { result: r.result ?? '' }),
          ...(r.metadata ? { metadata: r.metadata } : {}),
        })),
      } satisfies Vapi.ServerMessageResponseToolCalls;
    }
    if (event.kind === 'transfer_destination') {
      if (answer?.kind !== 'transfer_destination') {
        return {
          error: answer?.kind === 'error' ? answer.error : 'No one is available to take the call',
        } satisfies Vapi.ServerMessageResponseTransferDestinationRequest;
      }
      return {
        destination: { type: 'number', number: answer.number },
        message: { type: 'request-start', content: answer.message },
      } satisfies Vapi.ServerMessageResponseTransferDestinationRequest;
    }
    if (event.kind === 'assistant_request') {
      if (answer?.kind !== 'assistant') {
        return {
          error: answer?.kind === 'error' ? answer.error : 'This line takes no calls',
        } satisfies Vapi.ServerMessageResponseAssistantRequest;
      }
      return {
        assistant: vapiAssistant(answer.assistant, this.server, 'inbound'),
      } satisfies Vapi.ServerMessageResponseAssistantRequest;
    }
    return { ok: true };
  }

  private async send(method: string, url: string, body: unknown, authenticated: boolean): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(authenticated ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new VoiceProviderError(`Vapi request failed: ${(err as Error).name}`);
    }
    if (!response.ok) throw new VoiceProviderError(`Vapi answered ${response.status}`);
    return response;
  }
}

/** The E.164 number of a Vapi phone number, whichever of its kinds carries one. */
function numberOf(phoneNumber: unknown): string | null {
  return str(obj(phoneNumber).number);
}

/** A tool call as the SDK types it (`function.arguments` a JSON string), or the older flat form. */
function toolCall(raw: unknown): ToolCall {
  const c = obj(raw);
  const fn = obj(c.function);
  return {
    id: str(c.id) ?? '',
    type: str(c.type) ?? 'function',
    function: {
      name: str(fn.name) ?? str(c.name) ?? '',
      arguments: fn.arguments ?? c.parameters ?? {},
    },
  };
}

function analysisOf(raw: unknown): CallAnalysis | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const a = raw as Record<string, unknown>;
  const data = a.structuredData;
  return {
    summary: str(a.summary),
    structured_data: data !== null && typeof data === 'object' && !Array.isArray(data) ? obj(data) : null,
    success_evaluation:
      typeof a.successEvaluation === 'number' || typeof a.successEvaluation === 'boolean'
        ? String(a.successEvaluation)
        : str(a.successEvaluation),
  };
}

/**
 * Vapi's transcript messages (`role`, `message`, `time`, ...) in the spec's shape; extras kept. A
 * field of the spec's shape that has another type is dropped, so a stored transcript reads back.
 */
function transcriptMessage(raw: unknown): TranscriptMessage {
  const m = obj(raw);
  const { role, message, content, result, time, secondsFromStart, toolCalls, toolCallId, ...extra } = m;
  const {
    id,
    interrupted,
    transcript_confidence: confidence,
    timestamp,
    tool_calls,
    tool_call_id,
    ...rest
  } = extra;
  return {
    ...rest,
    role: role === 'bot' ? 'assistant' : role === 'tool_call_result' ? 'tool' : (str(role) ?? 'unknown'),
    content: str(message) ?? str(result) ?? str(content),
    timestamp: isoOfMillis(time),
    tool_calls: Array.isArray(toolCalls) ? toolCalls.map(toolCall) : null,
    tool_call_id: str(toolCallId),
    ...(typeof id === 'string' ? { id } : {}),
    ...(typeof interrupted === 'boolean' ? { interrupted } : {}),
    ...(typeof confidence === 'number' ? { transcript_confidence: confidence } : {}),
    ...(typeof secondsFromStart === 'number' ? { seconds_from_start: secondsFromStart } : {}),
  };
}
