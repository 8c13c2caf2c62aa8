// The ELP test records other modules write and read while a test call runs; the tables stay this module's.

import { eq } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import type { CallStatus } from '../../domain/calls.js';
import { newId } from '../../domain/ids.js';
import { systemScope } from '../../domain/scope.js';
import { emitEvents } from './calls-events.js';
import { scoreElp } from './elp-scoring.js';
import { elpAnswers, elpTests } from './elp-tables.js';
import { elpTestEventData } from './elp-view.js';

type NewElpTest = Omit<typeof elpTests.$inferInsert, 'id'>;
type NewElpAnswer = Omit<typeof elpAnswers.$inferInsert, 'id'>;

/** Opens the test of an ELP call, in the caller's transaction. */
export async function requestElpTest(tx: DbOrTx, values: NewElpTest) {
  await tx.insert(elpTests).values({ id: newId('elpTest'), ...values });
}

/** The test of a call, if it is an ELP call. */
export async function findElpTestOfCall(db: DbOrTx, callId: string) {
  const [test] = await db.select().from(elpTests).where(eq(elpTests.call_id, callId));
  return test;
}

/** The id of a call's test. */
export async function elpTestIdOfCall(db: DbOrTx, callId: string) {
  const [test] = await db.select({ id: elpTests.id }).from(elpTests).where(eq(elpTests.call_id, callId));
  return test;
}

/** The driver and carrier names a call's test was requested with. */
export async function elpNamesOfCall(db: DbOrTx, callId: string) {
  const [elp] = await db
    .select({ driver_name: elpTests.driver_name, carrier_name: elpTests.carrier_name })
    .from(elpTests)
    .where(eq(elpTests.call_id, callId));
  return elp;
}

/** The questions answered so far in a test, and whether each answer was valid. */
export function elpAnswersOf(db: DbOrTx, testId: string) {
  return db
    .select({ question_id: elpAnswers.question_id, valid: elpAnswers.valid })
    .from(elpAnswers)
    .where(eq(elpAnswers.elp_test_id, testId));
}

/** Records an answer; an answer to a question already answered is ignored. */
export async function recordElpAnswer(db: DbOrTx, values: NewElpAnswer) {
  await db
    .insert(elpAnswers)
    .values({ id: newId('elpAnswer'), ...values })
    .onConflictDoNothing();
}

type ElpState = Pick<typeof elpTests.$inferSelect, 'status' | 'scoring_status'>;

/** A test that ended without being scored: its call never got an answer (see `scoreElp`). */
const failed = (t: ElpState) => t.status === 'FAILED' || t.scoring_status === 'FAILED';

/**
 * Scores a test once its call has ended, and emits elp_test.completed, elp_test.scored and
 * elp_test.failed as the test reaches them, each with the whole test (`elpTestEventData`). Safe to
 * repeat (repeated or late provider events score again): the test row is locked, and an event is
 * emitted only on the change into its state. A failed test has no answers and answers are never
 * removed, so a test fails at most once.
 */
export async function scoreElpTest(db: Db, testId: string, callStatus: CallStatus) {
  await db.transaction(async (tx) => {
    const [current] = await tx.select().from(elpTests).where(eq(elpTests.id, testId)).for('update');
    if (!current) return;
    // Read under the lock: a scoring that waited for it sees every answer the one before it saw.
    const answers = await tx.select().from(elpAnswers).where(eq(elpAnswers.elp_test_id, testId));
    const outcome = scoreElp(answers, callStatus);
    const updated = firstRow(
      await tx
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
          updated_at: productNow,
        })
        .where(eq(elpTests.id, testId))
        .returning(),
      'update of the ELP test',
    );
    const types: ('elp_test.completed' | 'elp_test.scored' | 'elp_test.failed')[] = [];
    if (current.status === 'REQUESTED' && updated.status !== 'REQUESTED') types.push('elp_test.completed');
    if (current.scoring_status !== 'SCORED' && updated.scoring_status === 'SCORED') {
      types.push('elp_test.scored');
    }
    if (!failed(current) && failed(updated)) types.push('elp_test.failed');
    // One read of the test for all its events, and none when no endpoint or stream takes them.
    let body: ReturnType<typeof elpTestEventData> | undefined;
    const data = () => {
      body ??= elpTestEventData(tx, systemScope(updated.organization_id), updated.id);
      return body;
    };
    await emitEvents(
      tx,
      updated.organization_id,
      types.map((type) => ({ type, data })),
    );
  });
}
