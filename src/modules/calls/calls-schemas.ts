import { z } from 'zod';
import { CALL_STATUSES, CALL_TYPES } from '../../domain/calls.js';
import { checkCreatedRange, countsBy, createdRangeShape, sortShape } from '../../http/list-query.js';
import { pageQuery } from '../../http/page-query.js';
import {
  dateInput,
  dateTime,
  dateTimeInput,
  e164Input,
  prefixedId,
  queryList,
  text,
} from '../../http/schemas.js';
import { VOICE_PURPOSES } from '../../integrations/voice/voice-provider.js';
import { CALL_DIRECTIONS, type calls } from './calls-tables.js';

export const callSchema = z
  .object({
    id: z.string(),
    status: z.enum(CALL_STATUSES),
    call_time: dateTime(),
    created_at: dateTime(),
    updated_at: dateTime(),
    call_direction: z.enum(CALL_DIRECTIONS).nullable(),
    phone_number: z.string().nullable(),
    to_number: z.string().nullable(),
    from_number: z.string().nullable(),
    call_start_time: dateTime().nullable(),
    call_end_time: dateTime().nullable(),
    call_type: z.string().nullable(),
    load_id: z.string().nullable(),
    organization_id: z.string().nullable(),
    created_by_id: z.string().nullable(),
    recording_status: z.string().nullable(),
    load_number: z.string().nullable(),
    scheduled_at: dateTime().nullable().meta({ description: 'When a SCHEDULED call is to be placed.' }),
  })
  .meta({ id: 'Call' });
export type Call = z.infer<typeof callSchema>;

export function toCall(row: typeof calls.$inferSelect): Call {
  return {
    id: row.id,
    status: row.status,
    call_time: row.call_time,
    created_at: row.created_at,
    updated_at: row.updated_at,
    call_direction: row.call_direction,
    phone_number: row.phone_number,
    to_number: row.to_number,
    from_number: row.from_number,
    call_start_time: row.call_start_time,
    call_end_time: row.call_end_time,
    call_type: row.call_type,
    load_id: row.load_id,
    organization_id: row.organization_id,
    created_by_id: row.created_by_id,
    recording_status: row.recording_status,
    load_number: row.load_number,
    scheduled_at: row.scheduled_at,
  };
}

export const e164 = e164Input;

export const createCallBody = z.object({
  phone_number: e164(),
  load_id: prefixedId('load').nullish(),
  template_id: prefixedId('voiceTemplate').nullish().meta({
    description: 'A voice template (`vt_...`) visible to the organization whose purpose fits the call',
  }),
  voice_agent_id: text(100)
    .nullish()
    .meta({ description: 'Your own Vapi assistant id, run instead of a template' }),
  call_type: z.enum(CALL_TYPES).nullish(),
  template_variables: z
    .record(z.string().max(100), z.unknown())
    .refine((v) => JSON.stringify(v).length <= 20_000, { message: 'At most 20,000 characters of JSON' })
    .nullish(),
  // In the future and at most 30 days ahead on the product clock: checked by the service.
  scheduled_at: dateTimeInput().nullish().meta({
    description:
      'Place the call at this time instead of now (in the future, at most 30 days ahead): the call is SCHEDULED until then.',
  }),
});
export type CreateCallInput = z.output<typeof createCallBody>;

const isoDate = dateInput();

/** The documented sort fields of the call list; anything else is a 422. */
export const CALL_SORT_FIELDS = [
  'created_at',
  'call_time',
  'call_start_time',
  'call_end_time',
  'status',
] as const;
export type CallSortField = (typeof CALL_SORT_FIELDS)[number];

const callFilters = {
  status: queryList(z.enum(CALL_STATUSES)).optional(),
  call_type: queryList(z.enum(CALL_TYPES)).optional(),
  call_direction: queryList(z.enum(CALL_DIRECTIONS)).optional(),
  load_id: prefixedId('load').optional(),
  start_date: isoDate.optional().meta({ description: 'Calls placed on or after this UTC day' }),
  end_date: isoDate.optional().meta({ description: 'Calls placed on or before this UTC day' }),
  ...createdRangeShape,
};

/** GET /calls/stats: the list's filters, without paging or sorting. */
export const callStatsQuery = checkCreatedRange(z.object(callFilters));
export type CallFilters = z.output<typeof callStatsQuery>;

export const listCallsQuery = checkCreatedRange(
  pageQuery().extend({
    ...callFilters,
    ...sortShape(CALL_SORT_FIELDS, 'call_time', '`status` sorts by the name of the status.'),
  }),
);
export type ListCallsQuery = z.output<typeof listCallsQuery>;

export const callStatsSchema = z
  .object({
    total_count: z.number().int(),
    by_status: countsBy(CALL_STATUSES, 'Calls per status.'),
    by_call_type: countsBy([...CALL_TYPES, 'none'], 'Calls per call_type; `none` counts those without one.'),
    by_direction: countsBy(
      [...CALL_DIRECTIONS, 'none'],
      'Calls per call_direction; `none` counts those without one.',
    ),
  })
  .meta({ id: 'CallStats' });
export type CallStats = z.infer<typeof callStatsSchema>;

export const callIdParams = z.object({ call_id: prefixedId('call') });

export const transcriptMessageSchema = z
  .looseObject({
    role: z.string(),
    content: z.string().nullable().optional(),
    id: z.string().nullable().optional(),
    timestamp: z.string().nullable().optional(),
    interrupted: z.boolean().nullable().optional(),
    transcript_confidence: z.number().nullable().optional(),
    tool_calls: z
      .array(
        z.object({
          id: z.string().default(''),
          type: z.string().default(''),
          function: z.object({ name: z.string().default(''), arguments: z.unknown() }),
        }),
      )
      .nullable()
      .optional(),
    tool_call_id: z.string().nullable().optional(),
  })
  .meta({ id: 'TranscriptMessage' });

export const callDetailSchema = callSchema
  .extend({
    transcript: z.array(transcriptMessageSchema),
    purpose: z.enum(VOICE_PURPOSES).nullable().meta({ description: 'What the call is for (its script)' }),
    template_id: z.string().nullable().meta({ description: 'The voice template the call runs' }),
    voice_agent_id: z.string().nullable(),
    ended_reason: z.string().nullable().meta({ description: "The voice platform's reason the call ended" }),
    analysis: z
      .object({
        summary: z.string().nullable(),
        structured_data: z.record(z.string(), z.unknown()).nullable(),
        success_evaluation: z.string().nullable(),
      })
      .nullable()
      .meta({
        description:
          "The platform's post-call analysis, from its end-of-call report: a summary, the purpose's structured " +
          'data (load booking: offer_amount, available, equipment_type, earliest_pickup; tracking check: ' +
          'location, eta, on_schedule, issues; ELP: answers) and a pass/fail success evaluation',
      }),
    cost: z
      .number()
      .nullable()
      .meta({ description: 'What the voice platform charged for the call, in US dollars' }),
    transfer: z
      .object({
        status: z.enum(['started', 'failed', 'connected']),
        destination: z.string().nullable(),
        updated_at: dateTime().nullable(),
      })
      .nullable()
      .meta({
        description:
          "The assistant's last transfer: started, failed (the caller came back to the assistant, or the call " +
          'ended without it) or connected',
      }),
    hangs: z
      .number()
      .int()
      .meta({ description: 'How often the assistant went quiet waiting on a model, voice or tool' }),
  })
  .meta({ id: 'CallDetail' });

/** The call as it is now, plus the hosted API's end answer (`success`, `message`, `call_id`, `previous_status`). */
export const endCallSchema = callSchema
  .extend({
    success: z.boolean(),
    message: z.string(),
    call_id: z.string(),
    previous_status: z.enum(CALL_STATUSES),
  })
  .meta({ id: 'EndedCall' });

export const joinResultSchema = z
  .object({ success: z.boolean(), message: z.string(), call_id: z.string() })
  .meta({ id: 'JoinResult' });

export const recordingSchema = z
  .object({
    call_id: z.string(),
    recording_status: z.string().nullable(),
    recording_url: z.string().nullable(),
    url: z
      .string()
      .nullable()
      .meta({ description: 'The same address as `recording_url`, as the hosted API names it' }),
    content_type: z
      .string()
      .nullable()
      .meta({ description: 'Not reported by the voice platform: always null' }),
    expires_at: dateTime().nullable().meta({ description: 'The address does not expire here: always null' }),
    duration_seconds: z
      .number()
      .nullable()
      .meta({ description: 'From the call’s start and end, once it ended' }),
    file_size_bytes: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Not reported by the voice platform: always null' }),
    recording_start_time: dateTime().nullable().meta({ description: 'When the call was answered' }),
  })
  .meta({ id: 'CallRecording' });

/** GET /calls/{id}: the call with its transcript, script, outcome, analysis, cost and transfer. */
export function toCallDetail<T>(row: typeof calls.$inferSelect, transcript: T[]) {
  return {
    ...toCall(row),
    transcript,
    purpose: row.purpose,
    template_id: row.template_id,
    voice_agent_id: row.voice_agent_id,
    ended_reason: row.ended_reason,
    analysis: row.analysis,
    cost: row.cost,
    transfer: row.transfer_status
      ? {
          status: row.transfer_status,
          destination: row.transfer_destination,
          updated_at: row.transfer_updated_at,
        }
      : null,
    hangs: row.hangs,
  };
}
