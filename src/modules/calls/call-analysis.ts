import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import type { CallAnalysis } from '../../integrations/voice/voice-provider.js';
import { objectOf } from '../../lib/json-object.js';
import { claimAnalysis } from './call-control-repository.js';
import type { CallRow } from './calls-repository.js';
import { elpAnswersOf, elpTestIdOfCall, recordElpAnswer } from './elp-queries.js';
import { elpQuestion, nextElpQuestion } from './elp-questions.js';
import type { VoiceTools } from './voice-tool-handlers.js';
import { elpAnswerOf } from './voice-tool-wording.js';

/**
 * What the platform's post-call analysis adds once a call has ended, applied once per call: an
 * offer the carrier named that the assistant did not record with `submit_offer`, and the ELP
 * answers it did not record with `record_elp_answer`. The analysis itself is stored on the call.
 */
export async function applyCallAnalysis(
  db: Db,
  tools: VoiceTools,
  call: CallRow,
  analysis: CallAnalysis,
  log: FastifyBaseLogger,
) {
  const data = analysis.structured_data;
  if (!data || !(await claimAnalysis(db, call.id))) return;
  if (call.purpose === 'load_booking' || call.purpose === 'inbound_sales') {
    const amount = typeof data.offer_amount === 'number' ? data.offer_amount : Number.NaN;
    if (Number.isFinite(amount) && amount > 0) {
      const recorded = await tools.offerFromAnalysis(call, amount);
      log.info({ callId: call.id, amount, recorded }, 'voice: offer from the post-call analysis');
    }
  }
  if (call.purpose === 'elp' && Array.isArray(data.answers)) await elpFallback(db, call, data.answers);
}

/** ELP answers the analysis heard that the assistant did not record, in the bank's order. */
async function elpFallback(db: Db, call: CallRow, answers: unknown[]) {
  const test = await elpTestIdOfCall(db, call.id);
  if (!test) return;
  for (const raw of answers) {
    const a = objectOf(raw) ?? {};
    const question = typeof a.question_id === 'string' ? elpQuestion(a.question_id) : undefined;
    if (!question || typeof a.valid !== 'boolean') continue;
    const answered = await elpAnswersOf(db, test.id);
    if (nextElpQuestion(answered) === null) return;
    if (answered.some((x) => x.question_id === question.id)) continue;
    const said = typeof a.answer === 'string' ? a.answer.slice(0, 2000) : null;
    await recordElpAnswer(db, elpAnswerOf(call, test.id, question, said, a.valid));
  }
}
