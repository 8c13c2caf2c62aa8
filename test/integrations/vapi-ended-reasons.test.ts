import { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import {
  ENDED_REASON_OUTCOMES,
  outcomeOfEndedReason,
} from '../../src/integrations/voice/vapi-ended-reasons.js';
import { VapiProvider } from '../../src/integrations/voice/vapi-provider.js';
import { hmacPlan, vapiCall } from '../helpers/vapi-stand-in.js';

/** Every ended reason the SDK defines, read from its own runtime list. */
const SDK_REASONS: string[] = Object.values(Vapi.CallEndedReason);

describe("Vapi's ended reasons", () => {
  it("maps every value of the SDK's list, and nothing else", () => {
    expect(SDK_REASONS.length).toBeGreaterThan(500);
    const unmapped = SDK_REASONS.filter((r) => !ENDED_REASON_OUTCOMES.has(r));
    expect(unmapped).toEqual([]);
    expect([...ENDED_REASON_OUTCOMES.keys()].filter((r) => !SDK_REASONS.includes(r))).toEqual([]);
    expect(ENDED_REASON_OUTCOMES.size).toBe(new Set(SDK_REASONS).size);
    // The two message types' lists are the call's list.
    expect(Object.values(Vapi.ServerMessageEndOfCallReportEndedReason).sort()).toEqual(
      [...SDK_REASONS].sort(),
    );
    expect(Object.values(Vapi.ServerMessageStatusUpdateEndedReason).sort()).toEqual([...SDK_REASONS].sort());
  });

  it('ends every error FAILED', () => {
    const errors = SDK_REASONS.filter((r) => /error|fault|failed/.test(r));
    expect(errors.length).toBeGreaterThan(400);
    expect(errors.filter((r) => ENDED_REASON_OUTCOMES.get(r) !== 'FAILED')).toEqual([]);
  });

  it('gives each non-error ending its outcome', () => {
    const expected: Record<string, string> = {
      'customer-ended-call': 'COMPLETED',
      'assistant-ended-call': 'COMPLETED',
      'assistant-said-end-call-phrase': 'COMPLETED',
      'exceeded-max-duration': 'COMPLETED',
      'customer-did-not-answer': 'NO_RESPONSE',
      'customer-busy': 'NO_RESPONSE',
      'silence-timed-out': 'NO_RESPONSE',
      'manually-canceled': 'CANCELLED',
      'scheduled-call-deleted': 'CANCELLED',
      voicemail: 'VOICEMAIL',
      'assistant-forwarded-call': 'TRANSFERRED',
      // Each was mapped wrongly by pattern once: errors and refusals are failures.
      'call.in-progress.error-transfer-failed': 'FAILED',
      'pipeline-error-eleven-labs-system-busy-and-requested-upgrade': 'FAILED',
      'call.forwarding.operator-busy': 'FAILED',
      'pipeline-error-microsoft-voice-request-canceled': 'FAILED',
      'assistant-join-timed-out': 'FAILED',
      'vonage-rejected': 'FAILED',
      'worker-shutdown': 'FAILED',
      'assistant-not-valid': 'FAILED',
    };
    for (const [reason, outcome] of Object.entries(expected)) {
      expect(SDK_REASONS, reason).toContain(reason);
      expect(outcomeOfEndedReason(reason), reason).toEqual({ status: outcome, known: true });
    }
  });

  it('reads a reason newer than the SDK as an error or an ending, and says it is unknown', () => {
    expect(outcomeOfEndedReason('pipeline-error-someone-new-failed')).toEqual({
      status: 'FAILED',
      known: false,
    });
    expect(outcomeOfEndedReason('customer-waved-goodbye')).toEqual({ status: 'COMPLETED', known: false });
  });

  it('ends a call from a status update and an end-of-call report through the table', () => {
    const vapi = new VapiProvider({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'k',
      phoneNumberId: 'pn',
      serverAuth: hmacPlan,
      credentialId: 'cred',
      serverUrl: 'https://envoy.example/events',
    });
    const call = vapiCall('v1', 'call_1');
    // The status update's own list, the same values as SDK_REASONS (checked above).
    for (const reason of Object.values(Vapi.ServerMessageStatusUpdateEndedReason)) {
      const status = vapi.parse({
        message: {
          type: 'status-update',
          status: 'ended',
          endedReason: reason,
          call,
        },
      } satisfies Vapi.ServerMessage);
      expect(status, reason).toMatchObject({ kind: 'status', status: ENDED_REASON_OUTCOMES.get(reason) });
    }
    // Forwarding is not an ending: the transfer may fail and return the caller to the assistant.
    expect(
      vapi.parse({
        message: { type: 'status-update', status: 'forwarding', call },
      } satisfies Vapi.ServerMessage),
    ).toMatchObject({ status: 'IN_PROGRESS' });
  });
});
