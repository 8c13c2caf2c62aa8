import { z } from 'zod';
import { CALL_STATUSES } from '../../domain/calls.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, prefixedId, text } from '../../http/schemas.js';
import { digitsOnly } from '../carriers/index.js';
import { e164, transcriptMessageSchema } from './calls-schemas.js';
import { ELP_STATUSES, SCORING_STATUSES } from './elp-tables.js';

export const startElpBody = z.object({
  phone_number: e164(),
  driver_name: text(200).nullish(),
  carrier_id: prefixedId('carrier').nullish(),
  mc_number: text(30)
    .transform((v) => digitsOnly(v) || null)
    .nullish(),
});

export const listElpQuery = pageQuery().extend({
  phone_number: text(20).optional(),
  mc_number: text(30)
    .transform((v) => digitsOnly(v))
    .optional(),
  call_id: prefixedId('call').optional(),
});

const score = () => z.number().int().nullable();

export const elpTestSchema = z
  .object({
    id: z.string(),
    status: z.enum(ELP_STATUSES),
    created_at: dateTime(),
    call_id: z.string().nullable(),
    carrier_id: z.string().nullable(),
    phone_number: z.string().nullable(),
    driver_name: z.string().nullable(),
    carrier_name: z.string().nullable(),
    mc_number: z.string().nullable(),
    scoring_status: z.enum(SCORING_STATUSES).nullable(),
    conversational_communication: score(),
    instruction_comprehension: score(),
    sign_recognition: score(),
    verbal_reporting: score(),
    total_score: score(),
    total_questions: score(),
    questions_answered: score(),
    valid_answers: score(),
    notes: z.string().nullable(),
    call: z
      .object({
        id: z.string(),
        status: z.enum(CALL_STATUSES),
        call_time: dateTime(),
        created_at: dateTime(),
        updated_at: dateTime(),
        call_direction: z.string().nullable(),
        phone_number: z.string().nullable(),
        to_number: z.string().nullable(),
        from_number: z.string().nullable(),
        call_start_time: dateTime().nullable(),
        call_end_time: dateTime().nullable(),
        transcript: z.array(transcriptMessageSchema).nullable(),
      })
      .nullable(),
  })
  .meta({ id: 'ElpTest' });

export const elpIdParams = z.object({ elp_test_id: prefixedId('elpTest') });

/** One ELP test with the answers recorded, question by question, in the order they were given. */
export const elpTestDetailSchema = elpTestSchema
  .extend({
    answers: z.array(
      z.object({
        question_id: z.string(),
        step: z.string().meta({ description: '`interview` or `signs`' }),
        competency: z.string(),
        question: z.string().nullable(),
        answer: z
          .string()
          .nullable()
          .meta({ description: "The driver's answer, as the assistant recorded it" }),
        valid: z.boolean().meta({ description: 'Relevant and understandable (not judged on grammar)' }),
        answered_at: dateTime(),
      }),
    ),
  })
  .meta({ id: 'ElpTestDetail' });
