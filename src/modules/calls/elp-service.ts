import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { notFound } from '../../domain/errors.js';
import { offsetOf, pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import type { TranscriptMessage } from '../../integrations/voice/voice-provider.js';
import { defined } from '../../lib/defined.js';
import { type CallRow, findCalls, transcriptsOf } from './call-queries.js';
import type { CallStarter } from './call-starter.js';
import { elpAnswers, elpTests } from './elp-tables.js';

type ElpRow = typeof elpTests.$inferSelect;

export class ElpService {
  constructor(
    private readonly db: Db,
    private readonly calls: CallStarter,
  ) {}

  /** Starts an ELP test: an ELP call to the driver, with its test REQUESTED. */
  async start(
    scope: OrgScope,
    input: {
      phone_number: string;
      driver_name?: string | null;
      carrier_id?: string | null;
      mc_number?: string | null;
    },
  ) {
    const call = await this.calls.create(
      scope,
      { phone_number: input.phone_number, call_type: 'ELP' },
      input,
    );
    const [test] = await this.db.select().from(elpTests).where(eq(elpTests.call_id, call.id));
    return this.view(scope, defined(test, 'test'));
  }

  async get(scope: OrgScope, id: string) {
    const [row] = await this.db
      .select()
      .from(elpTests)
      .where(and(eq(elpTests.organization_id, scope.organizationId), eq(elpTests.id, id)));
    if (!row) throw notFound('ELP test', id, 'elp_test_id');
    const answers = await this.db
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
    return { ...(await this.view(scope, row)), answers };
  }

  async list(
    scope: OrgScope,
    q: { page: number; page_size: number; phone_number?: string; mc_number?: string; call_id?: string },
  ) {
    const conditions: SQL[] = [eq(elpTests.organization_id, scope.organizationId)];
    if (q.phone_number) conditions.push(eq(elpTests.phone_number, q.phone_number));
    if (q.mc_number) conditions.push(eq(elpTests.mc_number, q.mc_number));
    if (q.call_id) conditions.push(eq(elpTests.call_id, q.call_id));
    const where = and(...conditions);
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(elpTests)
        .where(where)
        .orderBy(desc(elpTests.created_at), desc(elpTests.id))
        .limit(q.page_size)
        .offset(offsetOf(q.page, q.page_size)),
      this.db.select({ n: count() }).from(elpTests).where(where),
    ]);
    return {
      data: await this.views(scope, rows),
      pagination: pagination(q.page, q.page_size, total?.n ?? 0),
    };
  }

  private async view(scope: OrgScope, row: ElpRow) {
    const [view] = await this.views(scope, [row]);
    return defined(view, 'view');
  }

  /** Tests with their nested call and transcript: two queries whatever the number of tests. */
  private async views(scope: OrgScope, rows: ElpRow[]) {
    const callIds = rows.map((r) => r.call_id).filter((id): id is string => id !== null);
    const [callsById, transcripts] = await Promise.all([
      findCalls(this.db, scope, callIds),
      transcriptsOf(this.db, scope, callIds),
    ]);
    return rows.map((row) =>
      this.toView(row, row.call_id ? (callsById.get(row.call_id) ?? null) : null, transcripts),
    );
  }

  private toView(row: ElpRow, call: CallRow | null, transcripts: Map<string, TranscriptMessage[]>) {
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
}
