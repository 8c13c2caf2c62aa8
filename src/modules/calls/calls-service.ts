// Size: a call's whole life (create, place, join, end, provider events), sharing one provider and guard.
import { eq, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type AfterCommit, runNow } from '../../db/after-commit.js';
import type { Db, DbOrTx } from '../../db/client.js';
import { tally } from '../../db/list-sql.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { CALL_STATUSES, CALL_TYPES, type CallType, TERMINAL_STATUSES } from '../../domain/calls.js';
import { AppError, notFound, stateConflict, unprocessable, validationFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import { type OrgScope, systemScope } from '../../domain/scope.js';
import { readBack, resultOf, type Written } from '../../domain/written.js';
import type { VoiceAnswer, VoiceEvent, VoiceProvider } from '../../integrations/voice/voice-provider.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { findUserById } from '../auth/index.js';
import { calleeById, carriersAtNumber } from '../carriers/index.js';
import { LOAD_ID_IN_BODY, LOAD_ID_IN_PATH, type LoadReader, requireLoad } from '../loads/index.js';
import { attachCallToOutreaches, contactRefusal, openCallOutreach } from '../outreaches/index.js';
import { outboundNumberId } from '../voice-numbers/index.js';
import type { VoiceTemplateRow, VoiceTemplatesService } from '../voice-templates/index.js';
import { listLoadCalls } from './call-queries.js';
import { assistantFor, callVariables, purposeOf } from './call-script.js';
import type { CallContext } from './call-starter.js';
import { emitEvent } from './calls-events.js';
import {
  type CallRow,
  callCounts,
  findCall,
  insertCall,
  listCalls,
  setProviderCall,
  setTransferTo,
  transcriptOf,
} from './calls-repository.js';
import {
  type CallFilters,
  type CallStats,
  type CreateCallInput,
  type ListCallsQuery,
  toCall,
  toCallDetail,
} from './calls-schemas.js';
import { CALL_DIRECTIONS, calls } from './calls-tables.js';
import { requestElpTest } from './elp-queries.js';
import { CallEvents } from './provider-events.js';
import type { VoiceTools } from './voice-tool-handlers.js';

const JOINABLE = new Set(['AGENT_ASSIGNED', 'IN_PROGRESS']);

/** Variables never handed to a voice platform, whatever a client puts in `template_variables`. */
const NEVER_SENT = ['customer_rate', 'margin', 'max_buy_rate'];

export type { CallContext } from './call-starter.js';
export type ElpRequest = CallContext;

/** The carrier a call reaches, as far as creating the call needs it. */
type Callee = NonNullable<Awaited<ReturnType<typeof calleeById>>>;

export class CallsService {
  constructor(
    private readonly db: Db,
    private readonly provider: VoiceProvider,
    private readonly loads: LoadReader,
    private readonly templates: VoiceTemplatesService,
    tools: VoiceTools,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
    private readonly reads: LaggedReads = onPrimary(db),
    /** When a call may be placed: after the commit of the handle's transaction (db/after-commit.ts). */
    private readonly afterCommit: AfterCommit = runNow,
    /** Who places it then: this service over the pool (a transaction's handle has ended by then). */
    private readonly placer?: CallsService,
  ) {
    this.events = new CallEvents(db, provider, templates, tools, log, clock, (call) =>
      this.assistantOf(call),
    );
  }

  private readonly events: CallEvents;

  /** A scheduled call is placed in the future, at most 30 days ahead (on the product clock). */
  private checkSchedule(at: Date) {
    const now = this.clock.ms();
    if (at.getTime() <= now || at.getTime() > now + 30 * 86_400_000) {
      throw validationFailed('body', ['scheduled_at'], 'Must be in the future, at most 30 days ahead');
    }
  }

  /** Creates the call PENDING, hands it to the provider, opens its outreach (and an ELP call's test). */
  async create(scope: OrgScope, input: CreateCallInput, context?: CallContext): Promise<CallRow> {
    return resultOf(await this.start(scope, input, context));
  }

  /** POST /calls: as create, but a placed call whose read-back failed is its id and the error (Written). */
  async start(scope: OrgScope, input: CreateCallInput, context?: CallContext): Promise<Written<CallRow>> {
    if (input.scheduled_at) this.checkSchedule(input.scheduled_at);
    const carrier = await this.callee(scope, input, context);
    let loadNumber: string | null = null;
    if (input.load_id) {
      const load = await requireLoad(this.db, scope, input.load_id, LOAD_ID_IN_BODY, ['load_number']);
      loadNumber = load.load_number;
    }
    const callType = input.call_type ?? null;
    // The script: the template named (422 on template_id when unknown or unfit), else the default.
    const template = await this.templates.forCall(
      scope,
      input.template_id,
      callType,
      purposeOf(callType, input.template_variables),
    );
    await this.guard(scope, carrier?.id ?? null, input.load_id);
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
        carrier_id: carrier?.id ?? null,
        created_by_id: scope.principal.userId,
        template_id: template.id,
        purpose: template.purpose,
        voice_agent_id: input.voice_agent_id ?? null,
        template_variables: input.template_variables ?? null,
        provider: this.provider.name,
      });
      await emitEvent(tx, scope.organizationId, 'call.created', toCall(row));
      await this.openRecords(tx, scope, row, carrier, context);
      return row;
    });
    // The provider is called after commit (of the keyed request's transaction too): never inside a
    // transaction. A scheduled call waits.
    if (!input.scheduled_at) await this.afterCommit(() => (this.placer ?? this).place(call));
    return readBack({ created: true, id: call.id }, () => this.get(scope, call.id));
  }

  /**
   * The carrier a new call reaches: the one the caller names (`context.carrier_id`), else the first
   * at the number. A carrier at the number that asked not to be contacted refuses the call (409).
   */
  private async callee(
    scope: OrgScope,
    input: CreateCallInput,
    context?: CallContext,
  ): Promise<Callee | null> {
    const reachable = await carriersAtNumber(this.db, scope, input.phone_number);
    const stopped = reachable.find((c) => c.stop);
    if (stopped) {
      throw stateConflict(
        'stop_contact_requested',
        `The carrier at ${input.phone_number} ('${stopped.id}') asked not to be contacted`,
        'phone_number',
      );
    }
    if (!context?.carrier_id) return reachable[0] ?? null;
    const found = await calleeById(this.db, scope, context.carrier_id);
    if (!found) {
      throw unprocessable('validation_error', `Carrier '${context.carrier_id}' does not exist`, 'carrier_id');
    }
    return found;
  }

  /** The contact guard for a call about a load: the stop-contact case keeps its own code. */
  private async guard(scope: OrgScope, carrierId: string | null, loadId: string | null | undefined) {
    if (!loadId || !carrierId) return;
    const refusal = await contactRefusal(this.db, scope, carrierId, loadId);
    if (refusal?.reason === 'stop_contact_requested') {
      throw stateConflict('stop_contact_requested', refusal.message, 'phone_number');
    }
    if (refusal) throw stateConflict('contact_not_allowed', refusal.message, 'phone_number');
  }

  /**
   * What a new call opens with it, in its transaction: the call outreach for a load and a known
   * carrier (the agent's queued one when the call carries it), and an ELP call's test.
   */
  private async openRecords(
    tx: DbOrTx,
    scope: OrgScope,
    row: CallRow,
    carrier: Callee | null,
    context?: CallContext,
  ) {
    if (row.load_id && carrier && context?.outreach_ids?.length) {
      await attachCallToOutreaches(tx, scope, context.outreach_ids, row.id);
    } else if (row.load_id && carrier) {
      await openCallOutreach(tx, scope, {
        carrierId: carrier.id,
        loadId: row.load_id,
        loadNumber: row.load_number,
        callId: row.id,
      });
    }
    if (row.call_type === 'ELP') {
      await requestElpTest(tx, {
        organization_id: scope.organizationId,
        call_id: row.id,
        carrier_id: carrier?.id ?? null,
        phone_number: row.phone_number,
        driver_name: context?.driver_name ?? null,
        carrier_name: carrier?.name ?? null,
        mc_number: context?.mc_number ?? carrier?.mc_number ?? null,
        status: 'REQUESTED',
        scoring_status: 'PENDING',
      });
    }
  }

  /** The template a call runs: the one it started with, else (deleted since) the default for its purpose. */
  private async templateOf(call: CallRow): Promise<VoiceTemplateRow> {
    const scope = systemScope(call.organization_id);
    const named = call.template_id ? await this.templates.find(scope, call.template_id) : null;
    return named ?? this.templates.defaultFor(scope, call.purpose ?? 'load_booking');
  }

  /** The assistant the service defines for a call, rendered with its variables now. */
  private async assistantOf(call: CallRow) {
    const { variables, references } = await callVariables(this.db, this.loads, call);
    return { variables, assistant: assistantFor(call, await this.templateOf(call), variables, references) };
  }

  /** Hands a committed call to the voice provider; a refusal ends it FAILED. */
  private async place(call: CallRow) {
    try {
      const { variables, assistant } = await this.assistantOf(call);
      const given = { ...(call.template_variables ?? {}) };
      for (const key of NEVER_SENT) delete given[key];
      const filled = Object.fromEntries(
        Object.entries(variables).filter(([, v]) => v !== null && v !== undefined),
      );
      const placed = await this.provider.placeCall({
        callId: call.id,
        organizationId: call.organization_id,
        fromNumberId: await outboundNumberId(this.db, call.organization_id, this.provider.name),
        to: call.to_number ?? '',
        // Written only from CALL_TYPES: the create schema's enum, or LOAD_BOOKING for an inbound call.
        callType: (call.call_type as CallType | null) ?? null,
        voiceAgentId: call.voice_agent_id,
        assistant,
        variables: {
          ...given,
          ...filled,
          ...(call.load_id ? { load_id: call.load_id } : {}),
        },
      });
      await setProviderCall(this.db, call.id, this.provider.name, placed.providerCallId, placed.controlUrl);
    } catch (err) {
      // The platform's own words (Vapi's error body) become the call's ended_reason.
      const reason =
        err instanceof Error ? err.message.slice(0, 1000) : 'The voice platform refused the call';
      this.log.error({ err, callId: call.id, reason }, 'voice provider refused the call');
      await this.applyEvent({
        kind: 'status',
        callId: call.id,
        providerCallId: '',
        status: 'FAILED',
        at: this.clock.now(),
        endedReason: reason,
      });
    }
  }

  /** Places scheduled calls now due, each claimed (SCHEDULED to PENDING) with SKIP LOCKED: placed once. */
  async placeDue(): Promise<number> {
    const due = await this.db.transaction(async (tx) => {
      const claimed = await tx.execute<{ id: string }>(sql`
        UPDATE calls SET status = 'PENDING', updated_at = envoy_now()
        WHERE id IN (
          SELECT id FROM calls WHERE status = 'SCHEDULED' AND scheduled_at <= envoy_now()
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
    return toCallDetail(row, await transcriptOf(this.db, scope, id));
  }

  async list(scope: OrgScope, q: ListCallsQuery) {
    const { page, page_size, order_by, order_desc, ...filters } = q;
    const sort = { field: order_by ?? 'call_time', desc: order_desc ?? true };
    const { rows, total } = await this.reads.read(scope, (db) =>
      listCalls(db, scope, filters, sort, { page, page_size }),
    );
    return { data: rows.map(toCall), pagination: pagination(page, page_size, total) };
  }

  /** Every call of the load, newest first (GET /loads/{load_id}/calls); 404 on a load not found. */
  async ofLoad(scope: OrgScope, loadId: string) {
    await requireLoad(this.db, scope, loadId, LOAD_ID_IN_PATH);
    return (await listLoadCalls(this.db, scope, loadId)).map(toCall);
  }

  /** GET /calls/stats: the list's matches counted per status, call type and direction. */
  async stats(scope: OrgScope, q: CallFilters): Promise<CallStats> {
    const rows = await this.reads.read(scope, (db) => callCounts(db, scope, q));
    return {
      total_count: rows.reduce((sum, r) => sum + r.n, 0),
      by_status: tally(CALL_STATUSES, rows, (r) => r.status),
      by_call_type: tally([...CALL_TYPES, 'none'], rows, (r) => r.call_type),
      by_direction: tally([...CALL_DIRECTIONS, 'none'], rows, (r) => r.call_direction),
    };
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
    // A transfer the platform asks about meanwhile (transfer-destination-request) goes to this user.
    await setTransferTo(this.db, id, user.phone);
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
      at: this.clock.now(),
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
        at: this.clock.now(),
      });
    }
    const ended = !TERMINAL_STATUSES.has(previous);
    return {
      ...toCall(defined(await findCall(this.db, scope, id), 'findCall')),
      success: true,
      message: ended ? 'Call ended' : `The call had already ended (${previous})`,
      call_id: id,
      previous_status: previous,
    };
  }

  async recording(scope: OrgScope, id: string) {
    const call = await this.get(scope, id);
    const { call_start_time: start, call_end_time: end } = call;
    return {
      call_id: id,
      recording_status: call.recording_status,
      recording_url: call.recording_url,
      url: call.recording_url,
      content_type: null,
      expires_at: null,
      duration_seconds: start && end ? (end.getTime() - start.getTime()) / 1000 : null,
      file_size_bytes: null,
      recording_start_time: start,
    };
  }

  /**
   * Applies what the voice platform reports, and answers what it asks (tool calls, a transfer
   * destination, the assistant for an inbound call); safe with late, repeated or shuffled events.
   */
  async applyEvent(event: VoiceEvent): Promise<VoiceAnswer | undefined> {
    return this.events.applyEvent(event);
  }
}
