import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  CallStatus,
  PlaceCallRequest,
  PlacedCall,
  ToolCall,
  TranscriptMessage,
  VoiceEvent,
  VoiceProvider,
} from './voice-provider.js';

export interface VapiOptions {
  baseUrl: string;
  apiKey: string;
  phoneNumberId: string;
  /** Shared secret: Vapi's server messages carry `x-vapi-signature`, an HMAC-SHA256 of the body. */
  webhookSecret: string;
  /** Our public URL for server messages (`.../api/v1/integrations/voice/events`). */
  serverUrl: string | null;
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

const toDate = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v) : null);

/**
 * Vapi over its REST API: `POST /call` places the call (our assistant id or an inline assistant
 * built from the template, variables as `assistantOverrides.variableValues`, our call id in
 * `metadata`), live commands go to the call's `monitor.controlUrl`, and server messages
 * (`status-update`, `end-of-call-report`, `tool-calls`) arrive at our webhook.
 */
export class VapiProvider implements VoiceProvider {
  readonly name = 'vapi';

  constructor(private readonly options: VapiOptions) {}

  attach(): void {
    // Events arrive over HTTP at POST /api/v1/integrations/voice/events.
  }

  async close(): Promise<void> {}

  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const body: Record<string, unknown> = {
      phoneNumberId: this.options.phoneNumberId,
      customer: { number: request.to },
      metadata: { envoy_call_id: request.callId, call_type: request.callType },
      assistantOverrides: {
        variableValues: request.variables,
        ...(this.options.serverUrl ? { server: { url: this.options.serverUrl } } : {}),
      },
    };
    if (request.voiceAgentId) {
      body.assistantId = request.voiceAgentId;
    } else {
      body.assistant = inlineAssistant(request);
    }
    const response = await this.send('POST', `${this.options.baseUrl.replace(/\/$/, '')}/call`, body, true);
    const json = (await response.json()) as { id?: string; monitor?: { controlUrl?: string } };
    if (!json.id) throw new VoiceProviderError('Vapi answered without a call id');
    return { providerCallId: json.id, controlUrl: json.monitor?.controlUrl ?? null };
  }

  async transfer(call: PlacedCall, toNumber: string): Promise<void> {
    if (!call.controlUrl) throw new VoiceProviderError('The call has no control URL');
    await this.send(
      'POST',
      call.controlUrl,
      { type: 'transfer', destination: { type: 'number', number: toNumber } },
      false,
    );
  }

  async hangUp(call: PlacedCall): Promise<void> {
    if (!call.controlUrl) throw new VoiceProviderError('The call has no control URL');
    await this.send('POST', call.controlUrl, { type: 'end-call' }, false);
  }

  /** Whether `x-vapi-signature` is the HMAC-SHA256 (hex) of the raw body under our secret. */
  verify(rawBody: string, signature: string | undefined): boolean {
    if (!signature) return false;
    const expected = createHmac('sha256', this.options.webhookSecret).update(rawBody).digest('hex');
    const given = Buffer.from(signature.replace(/^sha256=/, ''), 'utf8');
    const wanted = Buffer.from(expected, 'utf8');
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }

  /** A server message as our events; messages we do not use give none. */
  parse(body: unknown): VoiceEvent[] {
    const message = (body as { message?: Record<string, unknown> } | null)?.message;
    if (!message || typeof message.type !== 'string') return [];
    const call = (message.call ?? {}) as { id?: string; metadata?: { envoy_call_id?: string } };
    const providerCallId = call.id;
    if (!providerCallId) return [];
    const callId = call.metadata?.envoy_call_id ?? null;
    switch (message.type) {
      case 'status-update': {
        const status = statusFromVapi(String(message.status), message.endedReason as string | undefined);
        if (!status) return [];
        return [
          { kind: 'status', callId, providerCallId, status, at: toDate(message.timestamp) ?? new Date() },
        ];
      }
      case 'end-of-call-report': {
        const artifact = (message.artifact ?? {}) as { messages?: unknown[]; recordingUrl?: string };
        return [
          {
            kind: 'report',
            callId,
            providerCallId,
            status: outcomeFromEndedReason(String(message.endedReason ?? '')),
            startedAt: toDate(message.startedAt),
            endedAt: toDate(message.endedAt),
            transcript: (artifact.messages ?? []).map(transcriptMessage),
            recordingUrl: (message.recordingUrl as string | undefined) ?? artifact.recordingUrl ?? null,
          },
        ];
      }
      case 'tool-calls': {
        const list = (message.toolCallList ?? []) as ToolCall[];
        return [{ kind: 'tool_calls', callId, providerCallId, calls: list }];
      }
      default:
        return [];
    }
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

/** Vapi's transcript messages (`role`, `message`, `time`, ...) in the spec's shape; extras kept. */
function transcriptMessage(raw: unknown): TranscriptMessage {
  const m = (raw ?? {}) as Record<string, unknown>;
  const { role, message, time, secondsFromStart, toolCalls, toolCallId, ...extra } = m;
  return {
    ...extra,
    role: role === 'bot' ? 'assistant' : String(role ?? 'unknown'),
    content: typeof message === 'string' ? message : ((m.content as string | undefined) ?? null),
    timestamp: typeof time === 'number' ? new Date(time).toISOString() : null,
    tool_calls: Array.isArray(toolCalls) ? (toolCalls as ToolCall[]) : null,
    tool_call_id: typeof toolCallId === 'string' ? toolCallId : null,
    ...(typeof secondsFromStart === 'number' ? { seconds_from_start: secondsFromStart } : {}),
  };
}

/** An assistant defined inline from our prompt template, for calls without a Vapi assistant id. */
function inlineAssistant(request: PlaceCallRequest) {
  const purpose =
    request.callType === 'ELP'
      ? 'You run a roadside-style English proficiency check with a truck driver: an interview, then highway signs described in words.'
      : 'You call a motor carrier about a load: share the lane, dates and equipment, and ask for their rate.';
  return {
    name: request.templateId ? `envoy-${request.templateId}` : 'envoy-default',
    firstMessage: 'Hi, this is the Envoy assistant calling.',
    model: { provider: 'openai', model: 'gpt-4o-mini', messages: [{ role: 'system', content: purpose }] },
  };
}
