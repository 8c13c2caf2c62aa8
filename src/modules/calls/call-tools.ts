// The tools a voice assistant of the service declares, by purpose: their names, what each is for
// and the parameters the platform sends back (the voice-tools module answers them).

import { QUESTION_TOPICS } from '../../domain/load-questions.js';
import type { ToolDefinition, VoicePurpose } from '../../integrations/voice/voice-provider.js';
import { defined } from '../../lib/defined.js';

const TOOLS: Record<string, ToolDefinition> = {
  get_load_details: {
    name: 'get_load_details',
    kind: 'function',
    description:
      "The load's details you may share: lane, stops and dates, equipment, commodity, weight, special instructions and the posted rate. On a call offering several loads, every load's, unless load_number names one.",
    parameters: {
      type: 'object',
      properties: {
        load_number: {
          type: 'string',
          description: 'Which load, when the call offers several (the number as the carrier says it)',
        },
      },
      required: [],
    },
  },
  answer_question: {
    name: 'answer_question',
    kind: 'function',
    description:
      "Answer the carrier's question about the load (weight, commodity, pickup or delivery time, appointments, drop and hook, stops, equipment, temperature, ...). Returns the answer to say, from the load's facts.",
    parameters: {
      type: 'object',
      properties: {
        topics: {
          type: 'string',
          description: `What the carrier asks about: one or more of ${QUESTION_TOPICS.join(', ')}, separated by commas`,
        },
        load_number: {
          type: 'string',
          description: 'Which load, when the call offers several (the number as the carrier says it)',
        },
      },
      required: ['topics'],
    },
  },
  submit_offer: {
    name: 'submit_offer',
    kind: 'function',
    description:
      "Record the carrier's all-in rate for the load (on a call offering several loads, for the load_number it names). Returns the sentence to say back to the carrier, word for word.",
    parameters: {
      type: 'object',
      properties: {
        offer_amount: { type: 'number', description: 'The rate the carrier named, in US dollars, all in' },
        notes: { type: 'string', description: 'Anything the carrier attached to the rate (fuel, timing)' },
        load_number: {
          type: 'string',
          description: 'Which load, when the call offers several (the number as the carrier says it)',
        },
      },
      required: ['offer_amount'],
    },
  },
  request_stop_contact: {
    name: 'request_stop_contact',
    kind: 'function',
    description: 'The carrier asked not to be called or contacted again: record it.',
    parameters: {
      type: 'object',
      properties: { reason: { type: 'string', description: 'What they said, briefly' } },
      required: [],
    },
  },
  transfer_to_rep: {
    name: 'transfer_to_rep',
    kind: 'transfer',
    description: "Transfer the call to the load's rep (a person at the brokerage).",
    parameters: { type: 'object', properties: {}, required: [] },
  },
  record_elp_answer: {
    name: 'record_elp_answer',
    kind: 'function',
    description:
      "Record the driver's answer to one test question and whether it is valid under the rubric. Returns what to ask next, or that the test is over.",
    parameters: {
      type: 'object',
      properties: {
        question_id: { type: 'string', description: 'The id of the question just asked' },
        answer: { type: 'string', description: "The driver's answer, in their own words" },
        valid: { type: 'boolean', description: 'True when the answer is relevant and understandable' },
      },
      required: ['question_id', 'answer', 'valid'],
    },
  },
  find_load: {
    name: 'find_load',
    kind: 'function',
    description:
      'Find the posted load the caller asks about: by load number, or by lane (origin and destination state, optionally the pickup date).',
    parameters: {
      type: 'object',
      properties: {
        load_number: { type: 'string', description: 'The load number the caller gives' },
        origin_state: { type: 'string', description: 'Two-letter state of the pickup' },
        destination_state: { type: 'string', description: 'Two-letter state of the delivery' },
        pickup_date: { type: 'string', description: 'Pickup date, YYYY-MM-DD' },
      },
      required: [],
    },
  },
  identify_carrier: {
    name: 'identify_carrier',
    kind: 'function',
    description: 'Identify the calling carrier by its MC number (or DOT number). Say what it returns.',
    parameters: {
      type: 'object',
      properties: {
        mc_number: { type: 'string', description: 'The MC number, digits' },
        dot_number: { type: 'string', description: 'The USDOT number, digits' },
      },
      required: [],
    },
  },
};

const IDENTITY_TOOLS: Record<string, ToolDefinition> = {
  send_verification_code: {
    name: 'send_verification_code',
    kind: 'function',
    description:
      "When identify_carrier says the calling number is not on file: send a one-time code to the carrier's e-mail or phone on file with FMCSA.",
    parameters: { type: 'object', properties: {}, required: [] },
  },
  verify_code: {
    name: 'verify_code',
    kind: 'function',
    description:
      'Check the one-time code the caller reads back; the carrier is identified only when it is right.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The six digits the caller reads' } },
      required: ['code'],
    },
  },
};
Object.assign(TOOLS, IDENTITY_TOOLS);

const TOOLS_BY_PURPOSE: Record<VoicePurpose, string[]> = {
  load_booking: [
    'get_load_details',
    'answer_question',
    'submit_offer',
    'request_stop_contact',
    'transfer_to_rep',
  ],
  elp: ['record_elp_answer'],
  tracking_check: ['get_load_details', 'request_stop_contact', 'transfer_to_rep'],
  inbound_sales: [
    'find_load',
    'identify_carrier',
    'send_verification_code',
    'verify_code',
    'get_load_details',
    'answer_question',
    'submit_offer',
    'request_stop_contact',
    'transfer_to_rep',
  ],
};

export function toolsFor(purpose: VoicePurpose): ToolDefinition[] {
  return TOOLS_BY_PURPOSE[purpose].map((name) => defined(TOOLS[name], 'TOOLS[name]'));
}

/** Every tool any assistant of the service declares (docs/vapi.md lists them for your own assistants). */
export const ALL_TOOLS = Object.values(TOOLS);
