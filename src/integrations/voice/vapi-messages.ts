import type { Vapi } from '@vapi-ai/server-sdk';
import { type JsonObject, objectOf } from '../../lib/json-object.js';
import { outcomeOfEndedReason } from './vapi-ended-reasons.js';
import type { CallAnalysis, CallStatus, ToolCall, TranscriptMessage, VoiceEvent } from './voice-provider.js';

/**
 * Vapi's call statuses in our vocabulary. `forwarding` is not an ending: the transfer may fail
 * and return the caller to the assistant, so the call stays in progress until Vapi ends it.
 */
export function statusFromVapi(status: string, endedReason?: string | null): CallStatus | null {
  switch (status) {
    case 'scheduled':
      return 'SCHEDULED';
    case 'queued':
      return 'PENDING';
    case 'ringing':
      return 'AGENT_ASSIGNED';
    case 'in-progress':
    case 'forwarding':
      return 'IN_PROGRESS';
    case 'ended':
      return outcomeFromEndedReason(endedReason ?? '');
    default:
      return null;
  }
}

/** The outcome of an ended call, from the table of every reason Vapi defines. */
export function outcomeFromEndedReason(reason: string): CallStatus {
  return outcomeOfEndedReason(reason).status;
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
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** An object field, or an empty object when absent or of another type. */
export const obj = (v: unknown): JsonObject => objectOf(v) ?? {};

/** Epoch milliseconds as ISO 8601; null when not a number or outside the range a Date holds. */
function isoOfMillis(v: unknown): string | null {
  const d = typeof v === 'number' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : null;
}

type AnyMessage = Vapi.ServerMessageMessage & { call?: Vapi.Call; assistant?: Vapi.CreateAssistantDto };

/** Our call id, wherever Vapi carries it back: the call's overrides or assistant, or the message's assistant. */
function envoyCallId(message: AnyMessage): string | null {
  const call = obj(message.call);
  const candidates = [
    obj(obj(call.assistantOverrides).metadata),
    obj(obj(call.assistant).metadata),
    obj(obj(message.assistant).metadata),
  ];
  for (const m of candidates) if (typeof m.envoy_call_id === 'string') return m.envoy_call_id;
  return null;
}

/**
 * A server message as our event; messages we do not use give null. `organizationId` is the
 * organization named by the server URL (inbound numbers), used by `assistant-request` only.
 * Vapi's messages are typed by its SDK, but every field is read as unknown: a signed message with
 * a field of another type is treated as if the field were absent, never a 500.
 */
export function parseVapiMessage(body: unknown, organizationId: string | null): VoiceEvent | null {
  // Vapi's server message: an object whose `type` the switch below reads before any other member.
  const message = obj(obj(body).message) as unknown as AnyMessage;
  if (typeof message.type !== 'string') return null;
  const call = obj(message.call);
  const providerCallId = str(call.id);
  if (!providerCallId) return null;
  const base = {
    callId: envoyCallId(message),
    providerCallId,
    controlUrl: str(obj(call.monitor).controlUrl),
  };
  // Every Vapi server message may carry `timestamp`; vapiTime checks what it holds.
  const at = vapiTime(obj(message).timestamp) ?? new Date();
  switch (message.type) {
    case 'status-update': {
      // The case's `type` is the one Vapi sends with this message shape.
      const m = message as Vapi.ServerMessageStatusUpdate;
      const endedReason = str(m.endedReason) ?? str(call.endedReason);
      const status = statusFromVapi(str(m.status) ?? '', endedReason);
      if (!status) return null;
      return { kind: 'status', ...base, status, at, endedReason: str(m.endedReason) };
    }
    case 'end-of-call-report':
      // The case's `type` is the one Vapi sends with this message shape.
      return report(message as Vapi.ServerMessageEndOfCallReport, call, base);
    case 'tool-calls': {
      // The case's `type` is the one Vapi sends with this message shape.
      const m = message as Vapi.ServerMessageToolCalls;
      const list = Array.isArray(m.toolCallList) ? m.toolCallList : [];
      return { kind: 'tool_calls', ...base, calls: list.map(toolCall) };
    }
    case 'transfer-destination-request':
      return { kind: 'transfer_destination', ...base };
    case 'transfer-update': {
      // The case's `type` is the one Vapi sends with this message shape.
      const m = message as Vapi.ServerMessageTransferUpdate;
      const d = obj(m.destination);
      return {
        kind: 'transfer_update',
        ...base,
        destination: str(d.number) ?? str(d.sipUri) ?? str(d.assistantName),
        at,
      };
    }
    case 'hang':
      return { kind: 'hang', ...base, at };
    case 'assistant-request': {
      // The case's `type` is the one Vapi sends with this message shape.
      const m = message as Vapi.ServerMessageAssistantRequest;
      return {
        kind: 'assistant_request',
        providerCallId,
        organizationId,
        from: str(obj(m.customer).number) ?? str(obj(call.customer).number),
        to: str(obj(m.phoneNumber).number) ?? str(obj(call.phoneNumber).number),
        phoneNumberId: str(call.phoneNumberId) ?? str(obj(m.phoneNumber).id),
        controlUrl: base.controlUrl,
      };
    }
    default:
      return null;
  }
}

function report(
  m: Vapi.ServerMessageEndOfCallReport,
  call: Record<string, unknown>,
  base: { callId: string | null; providerCallId: string; controlUrl: string | null },
): VoiceEvent {
  const artifact = obj(m.artifact);
  const cost = typeof m.cost === 'number' && Number.isFinite(m.cost) ? m.cost : null;
  return {
    kind: 'report',
    ...base,
    status: outcomeFromEndedReason(str(m.endedReason) ?? ''),
    startedAt: vapiTime(m.startedAt ?? call.startedAt),
    endedAt: vapiTime(m.endedAt ?? call.endedAt),
    transcript: Array.isArray(artifact.messages) ? artifact.messages.map(transcriptMessage) : [],
    recordingUrl:
      str(artifact.recordingUrl) ??
      str(obj(obj(artifact.recording).mono).combinedUrl) ??
      // Older reports carry recordingUrl at the top level; str() checks it is a string.
      str(obj(m).recordingUrl),
    endedReason: str(m.endedReason),
    analysis: analysisOf(m.analysis ?? call.analysis),
    cost: cost ?? (typeof call.cost === 'number' && Number.isFinite(call.cost) ? call.cost : null),
  };
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
  const a = objectOf(raw);
  if (!a) return null;
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
