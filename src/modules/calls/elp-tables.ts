import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { timestamps } from '../../db/columns.js';
import { organizationId } from '../auth/auth-tables.js';
import { carriers } from '../carriers/carriers-tables.js';
import { calls } from './calls-tables.js';

export const ELP_STATUSES = ['REQUESTED', 'COMPLETED', 'FAILED', 'INCOMPLETE'] as const;
export const SCORING_STATUSES = ['PENDING', 'SCORED', 'FAILED'] as const;

/** A driver English-proficiency test, run as an ELP call. */
export const elpTests = pgTable(
  'elp_tests',
  {
    id: text('id').primaryKey(),
    organization_id: organizationId(),
    call_id: text('call_id').references(() => calls.id, { onDelete: 'set null' }),
    carrier_id: text('carrier_id').references(() => carriers.id, { onDelete: 'set null' }),
    status: text('status', { enum: ELP_STATUSES }).notNull().default('REQUESTED'),
    phone_number: text('phone_number'),
    driver_name: text('driver_name'),
    carrier_name: text('carrier_name'),
    mc_number: text('mc_number'),
    scoring_status: text('scoring_status', { enum: SCORING_STATUSES }).default('PENDING'),
    conversational_communication: integer('conversational_communication'),
    instruction_comprehension: integer('instruction_comprehension'),
    sign_recognition: integer('sign_recognition'),
    verbal_reporting: integer('verbal_reporting'),
    total_score: integer('total_score'),
    total_questions: integer('total_questions'),
    questions_answered: integer('questions_answered'),
    valid_answers: integer('valid_answers'),
    notes: text('notes'),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('elp_tests_call_key').on(t.call_id),
    index('elp_tests_org_created_idx').on(t.organization_id, t.created_at),
    index('elp_tests_org_phone_idx').on(t.organization_id, t.phone_number),
    index('elp_tests_org_mc_idx').on(t.organization_id, t.mc_number),
    check('elp_tests_status_check', sql`${t.status} IN ('REQUESTED', 'COMPLETED', 'FAILED', 'INCOMPLETE')`),
  ],
);

/** One answer given during an ELP call, as the voice agent recorded it. */
export const elpAnswers = pgTable(
  'elp_answers',
  {
    id: text('id').primaryKey(),
    organization_id: text('organization_id').notNull(),
    elp_test_id: text('elp_test_id')
      .notNull()
      .references(() => elpTests.id, { onDelete: 'cascade' }),
    question_id: text('question_id').notNull(),
    step: text('step').notNull(),
    competency: text('competency').notNull(),
    question: text('question'),
    answer: text('answer'),
    valid: boolean('valid').notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('elp_answers_test_question_key').on(t.elp_test_id, t.question_id)],
);
