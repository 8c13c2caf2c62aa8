import type { CallStatus } from '../../domain/calls.js';

export type { CallStatus };

export interface ToolCall {
  id: string;
  type: string;
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

export interface PlaceCallRequest {
  /** Our call id: the provider echoes it back on every event as metadata. */
  callId: string;
  to: string;
  callType: 'LOAD_BOOKING' | 'ELP' | null;
  templateId: string | null;
  voiceAgentId: string | null;
  variables: Record<string, unknown>;
}

export interface PlacedCall {
  providerCallId: string;
  /** Where live-call commands (transfer, hang up) go, when the provider has such a channel. */
  controlUrl: string | null;
}

/** What the provider tells us about a call, already in our vocabulary. */
export type VoiceEvent =
  | { kind: 'status'; callId: string | null; providerCallId: string; status: CallStatus; at: Date }
  | {
      kind: 'report';
      callId: string | null;
      providerCallId: string;
      status: CallStatus;
      startedAt: Date | null;
      endedAt: Date | null;
      transcript: TranscriptMessage[];
      recordingUrl: string | null;
    }
  | { kind: 'tool_calls'; callId: string | null; providerCallId: string; calls: ToolCall[] };

/** Answers to tool calls, keyed by tool-call id. */
export type ToolResults = { toolCallId: string; result: unknown }[];

export interface VoiceEventSink {
  /** Applies an event; for tool calls, returns the results the agent hears back. */
  (event: VoiceEvent): Promise<ToolResults | undefined>;
}

export interface VoiceProvider {
  readonly name: string;
  placeCall(request: PlaceCallRequest): Promise<PlacedCall>;
  /** Cold-transfers a live call to `toNumber`. */
  transfer(call: PlacedCall, toNumber: string): Promise<void>;
  hangUp(call: PlacedCall): Promise<void>;
  /** In-process providers deliver their events here; HTTP providers deliver them to our webhook. */
  attach(sink: VoiceEventSink): void;
  /** Stops timers and outstanding work (server shutdown). */
  close(): Promise<void>;
}
