import { and, count, eq, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { createdBetween, listOrder } from '../../db/list-sql.js';
import { firstRow } from '../../db/rows.js';
import { type CallStatus, statusRank, TERMINAL_STATUSES } from '../../domain/calls.js';
import { newId } from '../../domain/ids.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { CallAnalysis, TranscriptMessage } from '../../integrations/voice/voice-provider.js';
import { type CallRow, transcriptsOf } from './call-queries.js';
import type { CallFilters, CallSortField } from './calls-schemas.js';
import { calls, transcriptMessages } from './calls-tables.js';

export { type CallRow, findCalls, transcriptsOf } from './call-queries.js';

export async function insertCall(
  db: DbOrTx,
  scope: OrgScope,
  values: Omit<typeof calls.$inferInsert, 'organization_id'>,
) {
  return firstRow(
    await db
      .insert(calls)
      .values({ ...values, organization_id: scope.organizationId })
      .returning(),
    'insertCall',
  );
}

export async function findCall(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select()
    .from(calls)
    .where(and(eq(calls.organization_id, scope.organizationId), eq(calls.id, id)))
    .limit(1);
  return row ?? null;
}

/** A call by the provider's id (or ours, echoed back in metadata): events carry no organization. */
export async function findCallForEvent(
  db: DbOrTx,
  provider: string,
  providerCallId: string,
  callId: string | null,
) {
  const match = callId
    ? or(and(eq(calls.provider, provider), eq(calls.provider_call_id, providerCallId)), eq(calls.id, callId))
    : and(eq(calls.provider, provider), eq(calls.provider_call_id, providerCallId));
  const [row] = await db.select().from(calls).where(match).limit(1);
  return row ?? null;
}

export async function setProviderCall(
  db: DbOrTx,
  id: string,
  provider: string,
  providerCallId: string,
  controlUrl: string | null,
) {
  await db
    .update(calls)
    .set({ provider, provider_call_id: providerCallId, control_url: controlUrl, updated_at: productNow })
    .where(eq(calls.id, id));
}

const RANK_SQL = sql`(CASE ${calls.status} WHEN 'SCHEDULED' THEN 0 WHEN 'PENDING' THEN 1 WHEN 'AGENT_ASSIGNED' THEN 2 WHEN 'IN_PROGRESS' THEN 3 ELSE 4 END)`;

/**
 * Moves a call forward to `status`, never back and never from one terminal state to another:
 * late, repeated or out-of-order events change nothing. Returns the row when it moved.
 */
export async function advanceCall(
  db: DbOrTx,
  id: string,
  status: CallStatus,
  times: { at: Date; startedAt?: Date | null; endedAt?: Date | null },
) {
  const terminal = TERMINAL_STATUSES.has(status);
  const startedAt = status === 'IN_PROGRESS' ? times.at : (times.startedAt ?? null);
  const endedAt = terminal ? (times.endedAt ?? times.at) : null;
  const [row] = await db
    .update(calls)
    .set({
      status,
      call_start_time: sql`coalesce(${calls.call_start_time}, ${startedAt ? startedAt.toISOString() : null}::timestamptz)`,
      call_end_time: sql`coalesce(${calls.call_end_time}, ${endedAt ? endedAt.toISOString() : null}::timestamptz)`,
      updated_at: productNow,
    })
    .where(and(eq(calls.id, id), lt(RANK_SQL, statusRank(status))))
    .returning();
  return row ?? null;
}

export async function setRecording(db: DbOrTx, id: string, url: string | null) {
  await db
    .update(calls)
    .set({ recording_url: url, recording_status: url ? 'available' : 'unavailable', updated_at: productNow })
    .where(eq(calls.id, id));
}

/** Stores the transcript once: a repeated end-of-call report keeps the first. */
export async function storeTranscript(db: DbOrTx, call: CallRow, messages: TranscriptMessage[]) {
  if (messages.length === 0) return;
  const [existing] = await db
    .select({ n: count() })
    .from(transcriptMessages)
    .where(eq(transcriptMessages.call_id, call.id));
  if ((existing?.n ?? 0) > 0) return;
  await db.insert(transcriptMessages).values(
    messages.map((m, position) => {
      const {
        role,
        content,
        id,
        timestamp,
        interrupted,
        transcript_confidence,
        tool_calls,
        tool_call_id,
        ...extra
      } = m;
      return {
        id: newId('transcript'),
        organization_id: call.organization_id,
        call_id: call.id,
        position,
        role,
        content: content ?? null,
        message_id: id ?? null,
        timestamp: timestamp ?? null,
        interrupted: interrupted ?? null,
        transcript_confidence: transcript_confidence ?? null,
        tool_calls: tool_calls ?? null,
        tool_call_id: tool_call_id ?? null,
        extra: Object.keys(extra).length ? extra : null,
      };
    }),
  );
}

export async function transcriptOf(
  db: DbOrTx,
  scope: OrgScope,
  callId: string,
): Promise<TranscriptMessage[]> {
  return (await transcriptsOf(db, scope, [callId])).get(callId) ?? [];
}

const SORT_COLUMNS: Record<CallSortField, AnyPgColumn> = {
  created_at: calls.created_at,
  call_time: calls.call_time,
  call_start_time: calls.call_start_time,
  call_end_time: calls.call_end_time,
  status: calls.status,
};

/** The list's filters as one condition, always inside the organization. */
function callsWhere(scope: OrgScope, q: CallFilters) {
  const conditions: SQL[] = [eq(calls.organization_id, scope.organizationId)];
  if (q.status?.length) conditions.push(inArray(calls.status, q.status));
  if (q.call_type?.length) conditions.push(inArray(calls.call_type, q.call_type));
  if (q.call_direction?.length) conditions.push(inArray(calls.call_direction, q.call_direction));
  if (q.load_id) conditions.push(eq(calls.load_id, q.load_id));
  if (q.start_date) conditions.push(gte(calls.call_time, new Date(`${q.start_date}T00:00:00Z`)));
  if (q.end_date)
    conditions.push(lt(calls.call_time, new Date(Date.parse(`${q.end_date}T00:00:00Z`) + 86_400_000)));
  conditions.push(...createdBetween(calls.created_at, q));
  return and(...conditions);
}

export async function listCalls(
  db: DbOrTx,
  scope: OrgScope,
  q: CallFilters,
  sort: { field: CallSortField; desc: boolean },
  page: { page: number; page_size: number },
) {
  const where = callsWhere(scope, q);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(calls)
      .where(where)
      .orderBy(...listOrder(SORT_COLUMNS[sort.field], calls.id, sort.desc))
      .limit(page.page_size)
      .offset(offsetOf(page.page, page.page_size)),
    db.select({ n: count() }).from(calls).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** The calls the filters match, counted per (status, call_type, call_direction): one scan, a few rows. */
export function callCounts(db: DbOrTx, scope: OrgScope, q: CallFilters) {
  return db
    .select({
      status: calls.status,
      call_type: calls.call_type,
      call_direction: calls.call_direction,
      n: count(),
    })
    .from(calls)
    .where(callsWhere(scope, q))
    .groupBy(calls.status, calls.call_type, calls.call_direction);
}

/** Links a call to the load and carrier its tools found (inbound calls); returns the row. */
export async function linkCall(
  db: DbOrTx,
  id: string,
  link: { load_id?: string; load_number?: string | null; carrier_id?: string },
) {
  const [row] = await db
    .update(calls)
    .set({ ...link, updated_at: productNow })
    .where(eq(calls.id, id))
    .returning();
  return row ?? null;
}

/** What the platform said when the call ended: its reason and post-call analysis. */
export async function setCallOutcome(
  db: DbOrTx,
  id: string,
  outcome: { endedReason?: string | null; analysis?: CallAnalysis | null },
) {
  await db
    .update(calls)
    .set({
      // The first reason and analysis stand: late or repeated messages change nothing.
      ended_reason: sql`coalesce(${calls.ended_reason}, ${outcome.endedReason ?? null}::text)`,
      analysis: sql`coalesce(${calls.analysis}, ${outcome.analysis ? JSON.stringify(outcome.analysis) : null}::jsonb)`,
      updated_at: productNow,
    })
    .where(eq(calls.id, id));
}

export async function setTransferTo(db: DbOrTx, id: string, phone: string) {
  await db.update(calls).set({ transfer_to: phone, updated_at: productNow }).where(eq(calls.id, id));
}
