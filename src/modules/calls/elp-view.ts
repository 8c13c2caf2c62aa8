// An ELP test as the API shows it: GET /elp/tests/{id}'s body, read on a connection or in the
// transaction that just changed the test (its webhook events carry the same body).

import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import type { TranscriptMessage } from '../../integrations/voice/voice-provider.js';
import { type CallRow, findCalls, transcriptsOf } from './call-queries.js';
import { elpTestDetailSchema } from './elp-schemas.js';
import { elpAnswers, elpTests } from './elp-tables.js';

export type ElpRow = typeof elpTests.$inferSelect;

/**
 * Tests with their nested call and transcript: two queries whatever the number of tests, one after
 * the other (a transaction's connection takes one query at a time).
 */
export async function elpTestViews(db: DbOrTx, scope: OrgScope, rows: ElpRow[]) {
  const callIds = rows.map((r) => r.call_id).filter((id): id is string => id !== null);
  const callsById = await findCalls(db, scope, callIds);
  const transcripts = await transcriptsOf(db, scope, callIds);
  return rows.map((row) =>
    toView(row, row.call_id ? (callsById.get(row.call_id) ?? null) : null, transcripts),
  );
}

/** One test with the answers recorded, in the order they were given; undefined when there is none. */
export async function findElpTestDetail(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select()
    .from(elpTests)
    .where(and(eq(elpTests.organization_id, scope.organizationId), eq(elpTests.id, id)));
  if (!row) return undefined;
  const [view] = await elpTestViews(db, scope, [row]);
  const answers = await db
    .select({
      question_id: elpAnswers.question_id,
      step: elpAnswers.step,
      competency: elpAnswers.competency,
      question: elpAnswers.question,
      answer: elpAnswers.answer,
      valid: elpAnswers.valid,
      answered_at: elpAnswers.created_at,
    })
    .from(elpAnswers)
    .where(and(eq(elpAnswers.organization_id, scope.organizationId), eq(elpAnswers.elp_test_id, id)))
    .orderBy(asc(elpAnswers.created_at), asc(elpAnswers.id));
  return view && { ...view, answers };
}

/**
 * The `data` of an ELP test's events: the test exactly as GET /elp/tests/{id} answers (its response
 * schema encodes it, as the route's serializer does), with `elp_test_id`, the id the first payloads
 * carried, kept for their receivers.
 */
export async function elpTestEventData(db: DbOrTx, scope: OrgScope, id: string) {
  const detail = await findElpTestDetail(db, scope, id);
  if (!detail) throw new Error(`ELP test '${id}' vanished while its event was written`);
  return { elp_test_id: id, ...z.encode(elpTestDetailSchema, detail) };
}

function toView(row: ElpRow, call: CallRow | null, transcripts: Map<string, TranscriptMessage[]>) {
  const { organization_id: _org, updated_at: _updated, ...fields } = row;
  return {
    ...fields,
    call: call
      ? {
          id: call.id,
          status: call.status,
          call_time: call.call_time,
          created_at: call.created_at,
          updated_at: call.updated_at,
          call_direction: call.call_direction,
          phone_number: call.phone_number,
          to_number: call.to_number,
          from_number: call.from_number,
          call_start_time: call.call_start_time,
          call_end_time: call.call_end_time,
          transcript: transcripts.get(call.id) ?? [],
        }
      : null,
  };
}
