import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { TERMINAL_STATUSES } from '../../domain/calls.js';
import { newId } from '../../domain/ids.js';
import { systemScope } from '../../domain/scope.js';
import type {
  AssistantSpec,
  VoiceAnswer,
  VoiceEvent,
  VoiceProvider,
} from '../../integrations/voice/voice-provider.js';
import type { Clock } from '../../lib/clock.js';
import { findOrganizationId, findUserContact, organizationContact } from '../auth/index.js';
import { carriersAtNumber } from '../carriers/index.js';
import { repUserIdOf } from '../loads/index.js';
import { followCallOutreach } from '../outreaches/index.js';
import { organizationOfNumber } from '../voice-numbers/index.js';
import type { VoiceTemplatesService } from '../voice-templates/index.js';
import { applyCallAnalysis } from './call-analysis.js';
import {
  recordHang,
  refreshControlUrl,
  setCost,
  settleTransfer,
  transferStarted,
} from './call-control-repository.js';
import { emitEvent } from './calls-events.js';
import {
  advanceCall,
  type CallRow,
  findCallForEvent,
  insertCall,
  setCallOutcome,
  setRecording,
  storeTranscript,
} from './calls-repository.js';
import { toCall } from './calls-schemas.js';
import { calls } from './calls-tables.js';
import { findElpTestOfCall, scoreElpTest } from './elp-queries.js';
import type { VoiceTools } from './voice-tool-handlers.js';

/** What the voice platform reports about calls, applied; and what it asks, answered. */
export class CallEvents {
  constructor(
    private readonly db: Db,
    private readonly provider: VoiceProvider,
    private readonly templates: VoiceTemplatesService,
    private readonly tools: VoiceTools,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
    /** The assistant the calls service defines for a call. */
    private readonly assistantOf: (call: CallRow) => Promise<{ assistant: AssistantSpec }>,
  ) {}

  /**
   * Applies what the voice platform reports, and answers what it asks (tool calls, a transfer
   * destination, the assistant for an inbound call); safe with late, repeated or shuffled events.
   */
  async applyEvent(event: VoiceEvent): Promise<VoiceAnswer | undefined> {
    if (event.kind === 'assistant_request') return this.answerInbound(event);
    const call = await findCallForEvent(this.db, this.provider.name, event.providerCallId, event.callId);
    if (!call) {
      this.log.warn({ providerCallId: event.providerCallId }, 'voice event for an unknown call');
      if (event.kind === 'tool_calls') {
        return {
          kind: 'tool_results',
          results: event.calls.map((c) => ({
            toolCallId: c.id,
            name: c.function.name,
            error: 'This call is not known to the service',
          })),
        };
      }
      return event.kind === 'transfer_destination'
        ? { kind: 'error', error: 'This call is not known to the service' }
        : undefined;
    }
    if (event.controlUrl) await refreshControlUrl(this.db, call.id, event.controlUrl);
    if (event.kind === 'tool_calls') {
      // The assistant is working again after a transfer started: the transfer did not connect.
      if (
        call.transfer_status === 'started' &&
        (await settleTransfer(this.db, call.id, 'failed', this.clock.now()))
      ) {
        this.log.warn({ callId: call.id }, 'voice: transfer failed; the caller is back with the assistant');
      }
      return { kind: 'tool_results', results: await this.tools.run(call, event.calls) };
    }
    if (event.kind === 'transfer_destination') return this.transferDestination(call);
    if (event.kind === 'transfer_update') {
      await transferStarted(this.db, call.id, event.destination, event.at);
      this.log.info({ callId: call.id }, 'voice: transfer started');
      return undefined;
    }
    if (event.kind === 'hang') {
      await recordHang(this.db, call.id, event.at);
      this.log.warn({ callId: call.id }, 'voice: the assistant went quiet (hang)');
      return undefined;
    }
    const moved = await this.db.transaction(async (tx) => {
      const row =
        event.kind === 'status'
          ? await advanceCall(tx, call.id, event.status, { at: event.at })
          : await advanceCall(tx, call.id, event.status, {
              at: event.endedAt ?? this.clock.now(),
              startedAt: event.startedAt,
              endedAt: event.endedAt,
            });
      if (row) {
        await emitEvent(tx, call.organization_id, 'call.status_changed', {
          ...toCall(row),
          previous_status: call.status,
        });
        await followCallOutreach(tx, call.id, row.status);
      }
      if (event.endedReason || (event.kind === 'report' && event.analysis)) {
        await setCallOutcome(tx, call.id, {
          endedReason: event.endedReason ?? null,
          analysis: event.kind === 'report' ? (event.analysis ?? null) : null,
        });
      }
      if (event.kind === 'report') {
        await storeTranscript(tx, call, event.transcript);
        await setRecording(tx, call.id, event.recordingUrl);
        if (typeof event.cost === 'number') await setCost(tx, call.id, event.cost);
        const at = event.endedAt ?? this.clock.now();
        await settleTransfer(tx, call.id, event.status === 'TRANSFERRED' ? 'connected' : 'failed', at);
      }
      return row;
    });
    if (event.kind === 'report' && event.analysis) {
      await applyCallAnalysis(this.db, this.tools, call, event.analysis, this.log);
    }
    if (
      event.kind === 'report' ||
      (moved && TERMINAL_STATUSES.has(moved.status) && call.call_type === 'ELP')
    ) {
      await this.finishElp(call.id);
    }
    return undefined;
  }

  /**
   * Where a transfer goes: the user joining the call, else the load's rep, else the organization's
   * owner; with nobody's phone on file the assistant hears that no one is available.
   */
  private async transferDestination(call: CallRow): Promise<VoiceAnswer> {
    let number = call.transfer_to;
    let who = 'a member of our team';
    if (!number && call.load_id) {
      const rep = await findUserContact(this.db, repUserIdOf(call.load_id));
      if (rep?.phone) {
        number = rep.phone;
        who = rep.name ?? 'the load’s rep';
      }
    }
    if (!number) {
      const org = await organizationContact(this.db, call.organization_id);
      number = org.ownerPhone;
      if (org.ownerName) who = org.ownerName;
    }
    if (!number) return { kind: 'error', error: 'No one is available to take the call right now.' };
    this.log.info({ callId: call.id }, 'voice: transfer destination given');
    return {
      kind: 'transfer_destination',
      number,
      message: `Connecting you to ${who} now.`,
      fallbackMessage: `I could not reach ${who} just now. I can keep helping you, and ${who} will call you back.`,
    };
  }

  /**
   * A carrier calls the brokerage's number: the call is stored (INBOUND, LOAD_BOOKING, linked to a
   * carrier whose number it is) and answered by the organization's inbound script, whose tools find
   * the load and identify the carrier. Vapi may ask twice: the same call is answered the same way.
   */
  private async answerInbound(
    event: Extract<VoiceEvent, { kind: 'assistant_request' }>,
  ): Promise<VoiceAnswer> {
    // The organization that registered the number called, else the one the server URL names.
    const owner = event.phoneNumberId
      ? await organizationOfNumber(this.db, this.provider.name, event.phoneNumberId)
      : null;
    const named = owner ?? event.organizationId;
    const org = named ? await findOrganizationId(this.db, named) : undefined;
    if (!org) {
      this.log.warn(
        { providerCallId: event.providerCallId },
        'voice: inbound call to a number of no organization',
      );
      return { kind: 'error', error: 'Sorry, this number is not taking calls right now.' };
    }
    const scope = systemScope(org.id);
    let call = await findCallForEvent(this.db, this.provider.name, event.providerCallId, null);
    if (call && call.organization_id !== org.id) {
      return { kind: 'error', error: 'Sorry, this number is not taking calls right now.' };
    }
    if (!call) {
      const template = await this.templates.defaultFor(scope, 'inbound_sales');
      const [known] = event.from ? await carriersAtNumber(this.db, scope, event.from) : [];
      call = await this.db.transaction(async (tx) => {
        const row = await insertCall(tx, scope, {
          id: newId('call'),
          status: 'AGENT_ASSIGNED',
          call_direction: 'INBOUND',
          phone_number: event.from,
          from_number: event.from,
          to_number: event.to,
          call_type: 'LOAD_BOOKING',
          carrier_id: known?.id ?? null,
          template_id: template.id,
          purpose: 'inbound_sales',
          provider: this.provider.name,
          provider_call_id: event.providerCallId,
          control_url: event.controlUrl,
        });
        await emitEvent(tx, scope.organizationId, 'call.created', toCall(row));
        return row;
      });
      this.log.info({ callId: call.id, carrierId: call.carrier_id }, 'voice: inbound call answered');
    }
    const { assistant } = await this.assistantOf(call);
    return { kind: 'assistant', assistant };
  }

  /** Post-call analysis of an ELP call, once the call has ended. */
  private async finishElp(callId: string) {
    const test = await findElpTestOfCall(this.db, callId);
    const [call] = await this.db.select({ status: calls.status }).from(calls).where(eq(calls.id, callId));
    if (!test || !call || !TERMINAL_STATUSES.has(call.status)) return;
    await scoreElpTest(this.db, test.id, call.status);
  }
}
