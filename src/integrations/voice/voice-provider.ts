import type { CallStatus } from '../../domain/calls.js';

export type { CallStatus };

export interface ToolCall {
  id: string;
  type: string;
  /** Arguments as the platform sends them: an object, or a JSON string (Vapi). */
  function: { name: string; arguments: unknown };
}

export interface TranscriptMessage {
  role: string;
  content?: string | null;
  id?: string | null;
  timestamp?: string | null;
  interrupted?: boolean | null;
  transcript_confidence?: number | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
  [extra: string]: unknown;
}

/** What the scripts are for: one built-in template per purpose. */
export const VOICE_PURPOSES = ['load_booking', 'elp', 'tracking_check', 'inbound_sales'] as const;
export type VoicePurpose = (typeof VOICE_PURPOSES)[number];

/**
 * A tool the assistant may call. `function` tools are answered by our webhook with a result
 * string; `transfer` is the platform's own transfer, whose destination our webhook names when
 * asked (`transfer-destination-request` on Vapi).
 */
export interface ToolDefinition {
  name: string;
  kind: 'function' | 'transfer';
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: {
    type: 'object';
    properties: Record<string, { type: 'string' | 'number' | 'boolean'; description: string }>;
    required: string[];
  };
}

/** One question of a scripted test (ELP), in the order it is asked. */
export interface ScriptQuestion {
  id: string;
  step: string;
  competency: string;
  text: string;
  expects: string;
  example_answer: string;
}

/**
 * The assistant the service defines for a call: the rendered script and what it may do. The Vapi
 * adapter turns it into a Vapi assistant; the simulator plays it.
 */
export interface AssistantSpec {
  name: string;
  purpose: VoicePurpose;
  firstMessage: string;
  /** The rendered instructions (system prompt): the load's sayable facts are already in it. */
  instructions: string;
  /** Left on an answering machine; null: hang up without a message. */
  voicemailMessage: string | null;
  tools: ToolDefinition[];
  voice: { provider: string; voice_id: string } | null;
  model: { provider: string; model: string } | null;
  /** ELP calls: the question bank, in order. */
  questions: readonly ScriptQuestion[] | null;
  /** Echoed back by the platform on every message about the call. */
  metadata: { envoy_call_id: string; organization_id: string };
}

export interface PlaceCallRequest {
  /** Our call id: the provider echoes it back on every event. */
  callId: string;
  organizationId: string;
  /** The platform's number the call goes out from (the organization's own); null: the default. */
  fromNumberId?: string | null;
  to: string;
  callType: 'LOAD_BOOKING' | 'ELP' | null;
  /** The customer's own assistant on the platform: when set, it is used instead of `assistant`. */
  voiceAgentId: string | null;
  /** The assistant the service defines for the call (also what an in-process platform plays). */
  assistant: AssistantSpec;
  /** Template variables: the service's sayable facts plus the caller's `template_variables`. */
  variables: Record<string, unknown>;
}

/** The platform's settings in use, for the health endpoint: never a secret. */
export interface VoiceSettings {
  provider: string;
  [setting: string]: unknown;
}

export interface PlacedCall {
  providerCallId: string;
  /** Where live-call commands (transfer, hang up) go, when the provider has such a channel. */
  controlUrl: string | null;
}

/** What the platform's post-call analysis said (Vapi `analysis`). */
export interface CallAnalysis {
  summary: string | null;
  structured_data: Record<string, unknown> | null;
  success_evaluation: string | null;
}

/**
 * What every message about a known call carries: our id and the platform's, and where live
 * commands go now (Vapi repeats `call.monitor.controlUrl` on each message; null when absent).
 */
interface CallMessage {
  callId: string | null;
  providerCallId: string;
  controlUrl?: string | null;
}

/** What the provider tells us about a call, already in our vocabulary. */
export type VoiceEvent =
  | (CallMessage & {
      kind: 'status';
      status: CallStatus;
      at: Date;
      endedReason?: string | null;
    })
  | (CallMessage & {
      kind: 'report';
      status: CallStatus;
      startedAt: Date | null;
      endedAt: Date | null;
      transcript: TranscriptMessage[];
      recordingUrl: string | null;
      endedReason?: string | null;
      analysis?: CallAnalysis | null;
      /** What the platform charged for the call, in US dollars. */
      cost?: number | null;
    })
  | (CallMessage & { kind: 'tool_calls'; calls: ToolCall[] })
  /** The assistant wants to transfer the call: where to? */
  | (CallMessage & { kind: 'transfer_destination' })
  /** A transfer started to `destination` (Vapi `transfer-update`). */
  | (CallMessage & { kind: 'transfer_update'; destination: string | null; at: Date })
  /** The assistant went quiet for a while (a slow model, voice or tool answer: Vapi `hang`). */
  | (CallMessage & { kind: 'hang'; at: Date })
  /** A call to the brokerage's number: which assistant answers it? */
  | {
      kind: 'assistant_request';
      providerCallId: string;
      /** The organization whose number was called (from the server URL). */
      organizationId: string | null;
      from: string | null;
      to: string | null;
      /** The platform's id of the number called: names the organization that owns it. */
      phoneNumberId?: string | null;
      controlUrl: string | null;
    };

/** The answer to one tool call: `result` is what the assistant hears; a failure is in `error`. */
export interface ToolResult {
  toolCallId: string;
  name: string;
  result?: string;
  error?: string;
  /** Structured detail for in-process players and logs (Vapi passes it to client SDKs). */
  metadata?: Record<string, unknown>;
}

/** What the service answers to an event that expects an answer. */
export type VoiceAnswer =
  | { kind: 'tool_results'; results: ToolResult[] }
  | {
      kind: 'transfer_destination';
      number: string;
      message: string;
      /** Said to the caller when the transfer fails; the assistant then carries on with them. */
      fallbackMessage: string;
    }
  | { kind: 'assistant'; assistant: AssistantSpec }
  /** Refused: the reason is said to the caller (a transfer with no number, an unknown line). */
  | { kind: 'error'; error: string };

/** Applies an event; returns the answer when the event expects one. */
export type VoiceEventSink = (event: VoiceEvent) => Promise<VoiceAnswer | undefined>;

export interface VoiceProvider {
  readonly name: string;
  /** What the provider runs with (ids, URLs, schemes), never a key or secret. */
  settings(): VoiceSettings;
  placeCall(request: PlaceCallRequest): Promise<PlacedCall>;
  /** Cold-transfers a live call to `toNumber`. */
  transfer(call: PlacedCall, toNumber: string): Promise<void>;
  hangUp(call: PlacedCall): Promise<void>;
  /** In-process providers deliver their events here; HTTP providers deliver them to our webhook. */
  attach(sink: VoiceEventSink): void;
  /** Stops timers and outstanding work (server shutdown). */
  close(): Promise<void>;
}

/**
 * The platform refused or did not answer; `message` is what it said (Vapi's error body), never a
 * key, so it may be shown as the call's `ended_reason`.
 */
export class VoiceProviderError extends Error {
  override name = 'VoiceProviderError';
  constructor(
    message: string,
    /** Worth another attempt: rate limited, a server error, the concurrency limit, no answer. */
    readonly retryable = false,
  ) {
    super(message);
  }
}
