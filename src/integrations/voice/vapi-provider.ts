import type { Vapi } from '@vapi-ai/server-sdk';
import pRetry from 'p-retry';
import { errorName } from '../../lib/error-text.js';
import { machineWallClock, type WallClock } from '../../lib/wall-clock.js';
import { vapiAssistant } from './vapi-assistant.js';
import { obj, parseVapiMessage, str } from './vapi-messages.js';
import { type VapiServerAuth, vapiAuthFailure } from './vapi-server-auth.js';
import type {
  PlaceCallRequest,
  PlacedCall,
  VoiceAnswer,
  VoiceEvent,
  VoiceProvider,
  VoiceSettings,
} from './voice-provider.js';
import { VoiceProviderError } from './voice-provider.js';

export { outcomeFromEndedReason, statusFromVapi, vapiTime } from './vapi-messages.js';
export { VoiceProviderError };

export interface VapiOptions {
  baseUrl: string;
  apiKey: string;
  /** The number calls go out from when the organization registered none of its own. */
  phoneNumberId: string;
  /** How Vapi authenticates its server messages to us (the credential `credentialId` names). */
  serverAuth: VapiServerAuth;
  /** The Vapi Custom Credential that signs our server messages; sent in every `server` block. */
  credentialId: string;
  /** Our public URL for server messages (`.../api/v1/integrations/voice/events`). */
  serverUrl: string;
  timeoutMs?: number;
  /** Further attempts of `POST /call` after a 429, a 5xx, a concurrency refusal or no answer. */
  placeRetries?: number;
  /** The first wait between attempts; each doubles it, with jitter, up to 30 s. */
  retryBaseMs?: number;
}

/** Vapi's error body (`{message, error, statusCode}`, `message` a string or a list) as one line. */
function vapiErrorText(status: number, raw: string): string {
  let said = raw.trim();
  try {
    const body = obj(JSON.parse(raw));
    const message = Array.isArray(body.message)
      ? body.message.filter((m) => typeof m === 'string').join('; ')
      : str(body.message);
    said = message || str(body.error) || said;
  } catch {
    // Not JSON: the text as sent.
  }
  return `Vapi answered ${status}${said ? `: ${said.replace(/\s+/g, ' ').slice(0, 500)}` : ''}`;
}

/** 429, 5xx, and the account's concurrency limit (whatever status carries it) are passing refusals. */
function retryableRefusal(status: number, text: string): boolean {
  return status === 429 || status >= 500 || /concurren/i.test(text);
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

  constructor(
    private readonly options: VapiOptions,
    /** What a signed message's timestamp is held against. */
    private readonly wall: WallClock = machineWallClock,
  ) {}

  attach(): void {
    // Events arrive over HTTP at POST /api/v1/integrations/voice/events.
  }

  async close(): Promise<void> {}

  /** The `server` block of every assistant and tool: our webhook, under our credential. */
  get server(): Vapi.Server {
    return {
      url: this.options.serverUrl,
      credentialId: this.options.credentialId,
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
      phoneNumberId: request.fromNumberId ?? this.options.phoneNumberId,
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

  /** The settings in use, for `GET /voice/health`: ids and URLs, never the key or the secret. */
  settings(): VoiceSettings {
    const { serverAuth } = this.options;
    return {
      provider: this.name,
      api: this.options.baseUrl,
      default_phone_number_id: this.options.phoneNumberId,
      server_url: this.options.serverUrl,
      server_credential_id: this.options.credentialId,
      server_auth:
        serverAuth.scheme === 'hmac'
          ? `hmac ${serverAuth.algorithm} ${serverAuth.encoding} of ${serverAuth.payloadFormat} in ${serverAuth.signatureHeader}, time in ${serverAuth.timestampHeader}`
          : `bearer in ${serverAuth.header}`,
      place_retries: this.options.placeRetries ?? 3,
    };
  }

  /**
   * `POST /call`, retried with exponential backoff and jitter while Vapi refuses for a passing
   * reason (429, 5xx, the concurrency limit) or does not answer; any other refusal, or the last
   * one, throws with Vapi's own message.
   */
  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const url = `${this.options.baseUrl.replace(/\/$/, '')}/call`;
    const body = this.callBody(request);
    const response = await pRetry(() => this.send('POST', url, body, true), {
      retries: this.options.placeRetries ?? 3,
      minTimeout: this.options.retryBaseMs ?? 1000,
      maxTimeout: 30_000,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => error instanceof VoiceProviderError && error.retryable,
    });
    // The answer is a Vapi.Call; only the members read here are checked.
    const json = obj(await response.json());
    const id = str(json.id);
    if (!id) throw new VoiceProviderError('Vapi answered without a call id');
    return { providerCallId: id, controlUrl: str(obj(json.monitor).controlUrl) };
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
    return vapiAuthFailure(this.options.serverAuth, headers, rawBody, this.wall.ms());
  }

  /**
   * A server message as our event; messages we do not use give null. `organizationId` is the
   * organization named by the server URL (inbound numbers), used by `assistant-request` only.
   */
  parse(body: unknown, organizationId: string | null = null): VoiceEvent | null {
    return parseVapiMessage(body, organizationId);
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
      // A warm transfer with a fallback: when the rep does not take the call, the caller hears
      // the fallback message and stays with the assistant (the call is not ended).
      return {
        destination: {
          type: 'number',
          number: answer.number,
          transferPlan: {
            mode: 'warm-transfer-experimental',
            fallbackPlan: { message: answer.fallbackMessage, endCallEnabled: false },
          },
        },
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
      throw new VoiceProviderError(`Vapi request failed: ${errorName(err)}`, true);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new VoiceProviderError(
        vapiErrorText(response.status, text),
        retryableRefusal(response.status, text),
      );
    }
    return response;
  }
}
