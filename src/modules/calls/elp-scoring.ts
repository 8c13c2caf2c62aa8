import type { CallStatus } from '../../domain/calls.js';
import { ELP_COMPETENCIES, ELP_QUESTIONS, INTERVIEW_PASS, INTERVIEW_QUESTIONS } from './elp-questions.js';

export interface RecordedAnswer {
  question_id: string;
  step: string;
  competency: string;
  valid: boolean;
}

const COMPETENCIES = ELP_COMPETENCIES;

export interface ElpOutcome {
  status: 'COMPLETED' | 'FAILED' | 'INCOMPLETE';
  scoring_status: 'SCORED' | 'FAILED';
  scores: Record<(typeof COMPETENCIES)[number], number> | null;
  total_score: number | null;
  total_questions: number;
  questions_answered: number;
  valid_answers: number;
  notes: string;
}

/**
 * Post-call analysis of an ELP test from its recorded answers. An answer is valid when it is
 * relevant and understandable, not when it is grammatical (the voice agent judged that). Each
 * competency scores 0-10 from the share of its questions answered validly; the total is their sum.
 * No pass or fail verdict: the status says whether the test ran.
 */
export function scoreElp(answers: RecordedAnswer[], callStatus: CallStatus): ElpOutcome {
  const totalQuestions = ELP_QUESTIONS.length;
  const valid = answers.filter((a) => a.valid).length;
  const interview = answers.filter((a) => a.step === 'interview');
  const interviewDone = interview.length >= INTERVIEW_QUESTIONS;
  const interviewFailed = interviewDone && interview.filter((a) => a.valid).length < INTERVIEW_PASS;
  const everyQuestion = answers.length >= totalQuestions;

  let status: ElpOutcome['status'];
  let notes: string;
  if (answers.length === 0) {
    status = 'FAILED';
    notes = `No answers were recorded (call ${callStatus.toLowerCase()}).`;
  } else if (everyQuestion || interviewFailed) {
    status = 'COMPLETED';
    notes = interviewFailed
      ? `The interview ended the test early: ${interview.filter((a) => a.valid).length} of ${interview.length} answers valid.`
      : `All ${totalQuestions} questions answered.`;
  } else {
    status = 'INCOMPLETE';
    notes = `The call ended after ${answers.length} of ${totalQuestions} questions.`;
  }
  if (answers.length === 0) {
    return {
      status,
      scoring_status: 'FAILED',
      scores: null,
      total_score: null,
      total_questions: totalQuestions,
      questions_answered: 0,
      valid_answers: 0,
      notes,
    };
  }
  // Object.fromEntries over every competency: the record has each of its keys.
  const scores = Object.fromEntries(
    COMPETENCIES.map((c) => {
      const asked = answers.filter((a) => a.competency === c);
      const good = asked.filter((a) => a.valid).length;
      return [c, asked.length ? Math.round((10 * good) / asked.length) : 0];
    }),
  ) as ElpOutcome['scores'] & object;
  return {
    status,
    scoring_status: 'SCORED',
    scores,
    total_score: Object.values(scores).reduce((a, b) => a + b, 0),
    total_questions: totalQuestions,
    questions_answered: answers.length,
    valid_answers: valid,
    notes,
  };
}
