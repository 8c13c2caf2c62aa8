import type { Vapi } from '@vapi-ai/server-sdk';
import type { VoicePurpose } from './voice-provider.js';

/**
 * What Vapi extracts from a call after it ends, per purpose: the structured data our services read
 * (`structured_data` of the call's `analysis`), a summary, and a pass/fail success evaluation.
 * Every field is optional: the model leaves out what the call did not say.
 */

const text = (description: string): Vapi.JsonSchema => ({ type: 'string', description });
const num = (description: string): Vapi.JsonSchema => ({ type: 'number', description });
const yesNo = (description: string): Vapi.JsonSchema => ({ type: 'boolean', description });

const LOAD_BOOKING: Vapi.JsonSchema = {
  type: 'object',
  properties: {
    offer_amount: num(
      'The all-in rate in US dollars the carrier last said they would haul the load for; leave out when they named none',
    ),
    available: yesNo('Whether the carrier has a truck available for this load'),
    equipment_type: text('The equipment the carrier said they have (dry van, reefer, flatbed, ...)'),
    earliest_pickup: text('The earliest pickup the carrier can make, as YYYY-MM-DD or YYYY-MM-DDTHH:MM'),
    notes: text('Anything else a rep should know, in one sentence'),
  },
};

const TRACKING_CHECK: Vapi.JsonSchema = {
  type: 'object',
  properties: {
    location: text('Where the driver is now: city and state, or highway and mile marker'),
    eta: text('When the driver expects to reach the next stop, as YYYY-MM-DDTHH:MM local time'),
    on_schedule: yesNo('Whether the driver expects to make the appointment'),
    issues: text('Delays, breakdowns, detention or other problems the driver reported; leave out when none'),
  },
};

/** Each question's answer, keyed by the ids the assistant was given (the fallback of record_elp_answer). */
const ELP: Vapi.JsonSchema = {
  type: 'object',
  properties: {
    answers: {
      type: 'array',
      description: 'One entry per question the driver answered, in the order asked',
      items: {
        type: 'object',
        properties: {
          question_id: text('The id in square brackets of the question asked, e.g. interview_trip'),
          answer: text("The driver's answer, as said"),
          valid: yesNo('Whether the answer was relevant and understandable (grammar does not matter)'),
        },
        required: ['question_id', 'answer', 'valid'],
      },
    },
  },
};

const SCHEMAS: Record<VoicePurpose, Vapi.JsonSchema> = {
  load_booking: LOAD_BOOKING,
  inbound_sales: LOAD_BOOKING,
  tracking_check: TRACKING_CHECK,
  elp: ELP,
};

const SUCCESS: Record<VoicePurpose, string> = {
  load_booking:
    'The call succeeded when the carrier named a rate for the load or asked to be transferred to a rep.',
  inbound_sales:
    'The call succeeded when the caller named a rate for a load or asked to be transferred to a rep.',
  tracking_check: 'The call succeeded when the driver gave their location and an ETA.',
  elp: 'The call succeeded when the driver answered every question asked.',
};

export function analysisPlanFor(purpose: VoicePurpose): Vapi.AnalysisPlan {
  return {
    summaryPlan: { enabled: true },
    structuredDataPlan: { enabled: true, schema: SCHEMAS[purpose] },
    successEvaluationPlan: {
      enabled: true,
      rubric: 'PassFail',
      messages: [
        {
          role: 'system',
          content: `${SUCCESS[purpose]} Answer true or false.\n\nRubric:\n{{rubric}}`,
        },
        { role: 'user', content: 'Here is the transcript:\n\n{{transcript}}\n\n' },
      ],
    },
  } satisfies Vapi.AnalysisPlan;
}
