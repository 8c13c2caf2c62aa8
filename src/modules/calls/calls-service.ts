import { and, eq, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { type CallType, TERMINAL_STATUSES } from '../../domain/calls.js';
import { type OrgScope, systemScope } from '../../http/authentication.js';
import { AppError, notFound, stateConflict, unprocessable } from '../../http/errors.js';
import { newId } from '../../http/ids.js';
import { pagination } from '../../http/pagination.js';
import type { ToolResults, VoiceEvent, VoiceProvider } from '../../integrations/voice/voice-provider.js';
import { findUserById } from '../auth/auth-repository.js';
import { carriers } from '../carriers/carriers-tables.js';
import { scoreElp } from '../elp/elp-scoring.js';
import { elpAnswers, elpTests } from '../elp/elp-tables.js';
import type { LoadsService } from '../loads/loads-service.js';
import { loads } from '../loads/loads-tables.js';
import { emitOfferEvent } from '../offers/offers-service.js';
import { offers } from '../offers/offers-tables.js';
import { contactRefusal } from '../outreaches/contact-guard.js';
import { outreaches } from '../outreaches/outreaches-tables.js';
import { emitEvent, outreachEventData } from '../webhooks/events.js';
import {
  advanceCall,
  type CallRow,
  carriersAtNumber,
  findCall,
  findCallForEvent,
  followCallOutreach,
  insertCall,
  listCalls,
  setProviderCall,
  setRecording,
  storeTranscript,
  transcriptOf,
} from './calls-repository.js';
import { type CreateCallInput, type ListCallsQuery, toCall } from './calls-schemas.js';
import { calls } from './calls-tables.js';

const JOINABLE = new Set(['AGENT_ASSIGNED', 'IN_PROGRESS']);

/** What a caller inside the service knows beyond the request: the carrier the call is for, ELP details. */
export interface CallContext {
  driver_name?: string | null;
  /** The carrier the call is for, when the number may not be on file (a driver's phone). */
  carrier_id?: string | null;
  mc_number?: string | null;
  /** An outreach the agent queued: the call carries it instead of opening a new one. */
  outreach_id?: string | null;
}

/** What the voice agent hears back when a carrier names a rate (the agent's negotiation). */
export type OfferHandler = (
  call: CallRow,
  loadId: string,
  amount: number,
  notes: string | null,
) => Promise<Record<string, unknown>>;
export type ElpRequest = CallContext;

export class CallsService {
  constructor(
    private readonly db: Db,
    private readonly provider: VoiceProvider,
    private readonly loads: LoadsService,
    private readonly log: FastifyBaseLogger,
  ) {
    provider.attach((event) => this.applyEvent(event));
  }

  /** Set by the agent: offers named on a call go through its negotiation. */
  offerHandler: OfferHandler | undefined;

  /**
   * Creates the call PENDING, hands it to the voice provider, and (for a load, with a known carrier)
   * opens the call outreach; an ELP call also opens its ELP test.
   */
  async create(scope: OrgScope, input: CreateCallInput, context?: CallContext): Promise<CallRow> {
    const reachable = await carriersAtNumber(this.db, scope, input.phone_number);
    const stopped = reachable.find((c) => c.stop);
    if (stopped) {
      throw stateConflict(
        'stop_contact_requested',
        `The carrier at ${input.phone_number} ('${stopped.id}') asked not to be contacted`,
        'phone_number',
      );
    }
    let loadNumber: string | null = null;
    if (input.load_id) {
      const [load] = await this.db
        .select({ load_number: loads.load_number })
        .from(loads)
        .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, input.load_id)));
      if (!load) throw unprocessable('validation_error', `Load '${input.load_id}' does not exist`, 'load_id');
      loadNumber = load.load_number;
    }
    let carrierId = reachable[0]?.id ?? null;
    let carrier = reachable[0] ?? null;
    if (context?.carrier_id) {
      const [found] = await this.db
        .select({
          id: carriers.id,
          name: carriers.name,
          mc_number: carriers.mc_number,
          stop: carriers.stop_contact_requested_at,
        })
        .from(carriers)
        .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, context.carrier_id)));
      if (!found)
        throw unprocessable(
          'validation_error',
          `Carrier '${context.carrier_id}' does not exist`,
          'carrier_id',
        );
      carrierId = found.id;
      carrier = found;
    }
    if (input.load_id && carrierId) {
      // The contact guard: the stop-contact case keeps its own code above; the rest are refused here.
      const refusal = await contactRefusal(this.db, scope, carrierId, input.load_id);
      if (refusal?.reason === 'stop_contact_requested') {
        throw stateConflict('stop_contact_requested', refusal.message, 'phone_number');
      }
      if (refusal) throw stateConflict('contact_not_allowed', refusal.message, 'phone_number');
    }
    const callType = input.call_type ?? null;
    const call = await this.db.transaction(async (tx) => {
      const row = await insertCall(tx, scope, {
        id: newId('call'),
        status: input.scheduled_at ? 'SCHEDULED' : 'PENDING',
        scheduled_at: input.scheduled_at ?? null,
        call_direction: 'OUTBOUND',
        phone_number: input.phone_number,
        to_number: input.phone_number,
        call_type: callType,
        load_id: input.load_id ?? null,
        load_number: loadNumber,
        carrier_id: carrierId,
        created_by_id: scope.principal.userId,
        template_id: input.template_id ?? null,
        voice_agent_id: input.voice_agent_id ?? null,
        template_variables: input.template_variables ?? null,
        provider: this.provider.name,
      });
      await emitEvent(tx, scope.organizationId, 'call.created', toCall(row));
      if (input.load_id && carrierId && context?.outreach_id) {
        await tx
          .update(outreaches)
          .set({ call_id: row.id, updated_at: sql`now()` })
          .where(
            and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, context.outreach_id)),
          );
      } else if (input.load_id && carrierId) {
        const [outreach] = await tx
          .insert(outreaches)
          .values({
            id: newId('outreach'),
            organization_id: scope.organizationId,
            carrier_id: carrierId,
            load_id: input.load_id,
            modality: 'call',
            direction: 'outbound',
            status: 'pending',
            load_number: loadNumber,
            call_id: row.id,
          })
          .returning();
        await emitEvent(tx, scope.organizationId, 'outreach.created', outreachEventData(outreach!));
      }
      if (callType === 'ELP') {
        await tx.insert(elpTests).values({
          id: newId('elpTest'),
          organization_id: scope.organizationId,
          call_id: row.id,
          carrier_id: carrierId,
          phone_number: input.phone_number,
          driver_name: context?.driver_name ?? null,
          carrier_name: carrier?.name ?? null,
          mc_number: context?.mc_number ?? carrier?.mc_number ?? null,
          status: 'REQUESTED',
          scoring_status: 'PENDING',
        });
      }
      return row;
    });
    // The provider is called after commit: never inside a transaction. A scheduled call waits.
    if (!input.scheduled_at) await this.place(call);
    return (await findCall(this.db, scope, call.id))!;
  }

  /** Hands a committed call to the voice provider; a refusal ends it FAILED. */
  private async place(call: CallRow) {
    const variables = call.template_variables ?? {};
    try {
      const placed = await this.provider.placeCall({
        callId: call.id,
        to: call.to_number ?? '',
        callType: (call.call_type as CallType | null) ?? null,
        templateId: call.template_id,
        voiceAgentId: call.voice_agent_id,
        variables: {
          ...variables,
          ...(call.load_id ? { load_id: call.load_id, load_number: call.load_number } : {}),
        },
      });
      await setProviderCall(this.db, call.id, this.provider.name, placed.providerCallId, placed.controlUrl);
    } catch (err) {
      this.log.error({ err, callId: call.id }, 'voice provider refused the call');
      await this.applyEvent({
        kind: 'status',
        callId: call.id,
        providerCallId: '',
        status: 'FAILED',
        at: new Date(),
      });
    }
  }

  /**
   * Places scheduled calls whose time has come. Each is claimed (SCHEDULED to PENDING) in one
   * statement with SKIP LOCKED, so two instances never place the same call.
   */
  async placeDue(): Promise<number> {
    const due = await this.db.transaction(async (tx) => {
      const claimed = await tx.execute<{ id: string }>(sql`
        UPDATE calls SET status = 'PENDING', updated_at = now()
        WHERE id IN (
          SELECT id FROM calls WHERE status = 'SCHEDULED' AND scheduled_at <= now()
          ORDER BY scheduled_at LIMIT 20 FOR UPDATE SKIP LOCKED)
        RETURNING id`);
      if (claimed.rows.length === 0) return claimed;
      const rows = await tx
        .select()
        .from(calls)
        .where(
          inArray(
            calls.id,
            claimed.rows.map((r) => r.id),
          ),
        );
      for (const row of rows) {
        await emitEvent(tx, row.organization_id, 'call.status_changed', {
          ...toCall(row),
          previous_status: 'SCHEDULED',
        });
      }
      return claimed;
    });
    for (const { id } of due.rows) {
      const [row] = await this.db.select().from(calls).where(eq(calls.id, id));
      if (row) await this.place(row);
    }
    return due.rows.length;
  }

  async get(scope: OrgScope, id: string) {
    const row = await findCall(this.db, scope, id);
    if (!row) throw notFound('Call', id, 'call_id');
    return row;
  }

  async detail(scope: OrgScope, id: string) {
    const row = await this.get(scope, id);
    return { ...toCall(row), transcript: await transcriptOf(this.db, scope, id) };
  }

  async list(scope: OrgScope, q: ListCallsQuery) {
    const { rows, total } = await listCalls(this.db, scope, q);
    return { data: rows.map(toCall), pagination: pagination(q.page, q.page_size, total) };
  }

  /** Cold-transfers a live call to the caller's own phone (an API key: its creator's). */
  async join(scope: OrgScope, id: string) {
    const call = await this.get(scope, id);
    if (!JOINABLE.has(call.status)) {
      throw stateConflict(
        'call_not_in_progress',
        `Call '${id}' is ${call.status}, not in progress`,
        'call_id',
      );
    }
    const user = scope.principal.userId ? await findUserById(this.db, scope.principal.userId) : null;
    if (!user?.phone) {
      throw unprocessable(
        'caller_phone_missing',
        scope.principal.kind === 'api_key'
          ? 'The user who created this API key has no phone number to transfer the call to'
          : 'Your user has no phone number to transfer the call to',
        null,
      );
    }
    try {
      await this.provider.transfer(
        { providerCallId: call.provider_call_id ?? '', controlUrl: call.control_url },
        user.phone,
      );
    } catch (err) {
      this.log.error({ err, callId: id }, 'voice provider could not transfer the call');
      throw new AppError(
        502,
        'voice_provider_error',
        'The voice platform could not transfer the call; try again',
      );
    }
    await this.applyEvent({
      kind: 'status',
      callId: id,
      providerCallId: call.provider_call_id ?? '',
      status: 'TRANSFERRED',
      at: new Date(),
    });
    return { success: true, message: `Transferring call '${id}' to ${user.phone}`, call_id: id };
  }

  /** Hangs up; an ended call is returned as is. */
  async end(scope: OrgScope, id: string) {
    const call = await this.get(scope, id);
    const previous = call.status;
    if (!TERMINAL_STATUSES.has(previous)) {
      try {
        await this.provider.hangUp({
          providerCallId: call.provider_call_id ?? '',
          controlUrl: call.control_url,
        });
      } catch (err) {
        this.log.warn({ err, callId: id }, 'voice provider could not hang up; ending the call here');
      }
      await this.applyEvent({
        kind: 'status',
        callId: id,
        providerCallId: call.provider_call_id ?? '',
        status: previous === 'IN_PROGRESS' ? 'COMPLETED' : 'CANCELLED',
        at: new Date(),
      });
    }
    return { ...toCall((await findCall(this.db, scope, id))!), previous_status: previous };
  }

  async recording(scope: OrgScope, id: string) {
    const call = await this.get(scope, id);
    return { call_id: id, recording_status: call.recording_status, recording_url: call.recording_url };
  }

  /** Applies what the voice platform reports; safe to call with late, repeated or shuffled events. */
  async applyEvent(event: VoiceEvent): Promise<ToolResults | undefined> {
    const call = await findCallForEvent(this.db, this.provider.name, event.providerCallId, event.callId);
    if (!call) {
      this.log.warn({ providerCallId: event.providerCallId }, 'voice event for an unknown call');
      return event.kind === 'tool_calls'
        ? event.calls.map((c) => ({ toolCallId: c.id, result: { error: 'unknown call' } }))
        : undefined;
    }
    if (event.kind === 'tool_calls') return this.runTools(call, event.calls);
    const moved = await this.db.transaction(async (tx) => {
      const row =
        event.kind === 'status'
          ? await advanceCall(tx, call.id, event.status, { at: event.at })
          : await advanceCall(tx, call.id, event.status, {
              at: event.endedAt ?? new Date(),
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
      if (event.kind === 'report') {
        await storeTranscript(tx, call, event.transcript);
        await setRecording(tx, call.id, event.recordingUrl);
      }
      return row;
    });
    if (
      event.kind === 'report' ||
      (moved && TERMINAL_STATUSES.has(moved.status) && call.call_type === 'ELP')
    ) {
      await this.finishElp(call.id);
    }
    return undefined;
  }

  /** Post-call analysis of an ELP call, once the call has ended. */
  private async finishElp(callId: string) {
    const [test] = await this.db.select().from(elpTests).where(eq(elpTests.call_id, callId));
    const [call] = await this.db.select({ status: calls.status }).from(calls).where(eq(calls.id, callId));
    if (!test || !call || !TERMINAL_STATUSES.has(call.status)) return;
    const answers = await this.db.select().from(elpAnswers).where(eq(elpAnswers.elp_test_id, test.id));
    const outcome = scoreElp(answers, call.status);
    await this.db.transaction(async (tx) => {
      const [current] = await tx.select().from(elpTests).where(eq(elpTests.id, test.id)).for('update');
      if (!current) return;
      const [updated] = await tx
        .update(elpTests)
        .set({
          status: outcome.status,
          scoring_status: outcome.scoring_status,
          conversational_communication: outcome.scores?.conversational_communication ?? null,
          instruction_comprehension: outcome.scores?.instruction_comprehension ?? null,
          sign_recognition: outcome.scores?.sign_recognition ?? null,
          verbal_reporting: outcome.scores?.verbal_reporting ?? null,
          total_score: outcome.total_score,
          total_questions: outcome.total_questions,
          questions_answered: outcome.questions_answered,
          valid_answers: outcome.valid_answers,
          notes: outcome.notes,
          updated_at: sql`now()`,
        })
        .where(eq(elpTests.id, test.id))
        .returning();
      const data = {
        elp_test_id: updated!.id,
        call_id: updated!.call_id,
        status: updated!.status,
        scoring_status: updated!.scoring_status,
        total_score: updated!.total_score,
      };
      if (current.status === 'REQUESTED' && updated!.status !== 'REQUESTED') {
        await emitEvent(tx, updated!.organization_id, 'elp_test.completed', data);
      }
      if (current.scoring_status !== 'SCORED' && updated!.scoring_status === 'SCORED') {
        await emitEvent(tx, updated!.organization_id, 'elp_test.scored', data);
      }
    });
  }

  /** The voice agent's tools: what it may say about a load, and what it records. */
  private async runTools(
    call: CallRow,
    list: { id: string; function: { name: string; arguments: unknown } }[],
  ) {
    const scope = systemScope(call.organization_id);
    const results: ToolResults = [];
    for (const toolCall of list) {
      const args = (
        typeof toolCall.function.arguments === 'string'
          ? safeJson(toolCall.function.arguments)
          : (toolCall.function.arguments ?? {})
      ) as Record<string, unknown>;
      let result: unknown;
      try {
        result = await this.tool(scope, call, toolCall.function.name, args);
      } catch (err) {
        this.log.warn({ err, tool: toolCall.function.name, callId: call.id }, 'voice tool failed');
        result = { error: err instanceof AppError ? err.message : 'The tool failed' };
      }
      results.push({ toolCallId: toolCall.id, result });
    }
    return results;
  }

  private async tool(
    scope: OrgScope,
    call: CallRow,
    name: string,
    args: Record<string, unknown>,
  ): Promise<unknown> {
    const loadId = typeof args.load_id === 'string' ? args.load_id : call.load_id;
    switch (name) {
      case 'get_load_details': {
        if (!loadId) return { error: 'This call is not about a load' };
        const load = await this.loads.get(scope, loadId);
        // What may be said: never stop notes, the customer rate, the margin or the max buy rate.
        return {
          load_number: load.load_number,
          equipment_type: load.equipment_type,
          mode: load.mode ?? null,
          commodity: load.commodity ?? null,
          weight: load.weight ?? null,
          posted_rate: load.posted_rate ?? null,
          special_instructions: load.special_instructions ?? [],
          stops: (load.stops ?? []).map((s) => ({
            type: s.type ?? null,
            city: s.location.city,
            state: s.location.state,
            expected_date: s.expected_date ?? null,
            planned: s.planned ?? null,
            special_instructions: s.special_instructions ?? [],
          })),
        };
      }
      case 'submit_offer': {
        const amount = Number(args.offer_amount);
        if (!loadId) return { error: 'This call is not about a load' };
        if (!Number.isFinite(amount) || amount <= 0 || amount > 10_000_000)
          return { error: 'offer_amount must be a positive number' };
        const [load] = await this.db
          .select({ tms_load_id: loads.tms_load_id, load_number: loads.load_number })
          .from(loads)
          .where(and(eq(loads.organization_id, scope.organizationId), eq(loads.id, loadId)));
        if (!load) return { error: 'Unknown load' };
        const notes = typeof args.notes === 'string' ? args.notes.slice(0, 2000) : null;
        if (this.offerHandler) return this.offerHandler(call, loadId, amount, notes);
        const id = newId('offer');
        await this.db.transaction(async (tx) => {
          const [offer] = await tx
            .insert(offers)
            .values({
              id,
              organization_id: scope.organizationId,
              load_id: loadId,
              tms_load_id: load.tms_load_id,
              load_number: load.load_number,
              offer_amount: amount,
              status: 'pending',
              source: 'voice_agent',
              channel: 'voice',
              carrier_id: call.carrier_id,
              call_id: call.id,
              notes,
            })
            .returning();
          await emitOfferEvent(tx, scope, 'offer.created', offer!);
        });
        return { offer_id: id, status: 'pending' };
      }
      case 'request_stop_contact': {
        if (!call.carrier_id) return { recorded: false, reason: 'The number belongs to no known carrier' };
        await this.db
          .update(carriers)
          .set({
            stop_contact_requested_at: sql`coalesce(${carriers.stop_contact_requested_at}, now())`,
            updated_at: sql`now()`,
          })
          .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, call.carrier_id)));
        return { recorded: true };
      }
      case 'record_elp_answer': {
        const [test] = await this.db
          .select({ id: elpTests.id })
          .from(elpTests)
          .where(eq(elpTests.call_id, call.id));
        if (!test) return { error: 'This call is not an ELP test' };
        const questionId = String(args.question_id ?? '').slice(0, 100);
        if (!questionId) return { error: 'question_id is required' };
        await this.db
          .insert(elpAnswers)
          .values({
            id: newId('elpAnswer'),
            organization_id: scope.organizationId,
            elp_test_id: test.id,
            question_id: questionId,
            step: String(args.step ?? 'interview').slice(0, 50),
            competency: String(args.competency ?? 'conversational_communication').slice(0, 50),
            question: typeof args.question === 'string' ? args.question.slice(0, 2000) : null,
            answer: typeof args.answer === 'string' ? args.answer.slice(0, 2000) : null,
            valid: args.valid === true,
          })
          .onConflictDoNothing();
        return { recorded: true };
      }
      default:
        return { error: `Unknown tool '${name}'` };
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
