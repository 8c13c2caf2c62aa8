// The tools a voice assistant of the service declares, by purpose: their names, what each is for,
// and ONE schema of each tool's arguments, which gives both the parameters declared to the platform
// and the reading of the arguments it sends back (the voice-tools module answers them).

import { z } from 'zod';
import { AppError } from '../../domain/errors.js';
import { QUESTION_TOPICS, type QuestionTopic } from '../../domain/load-questions.js';
import type { ToolDefinition, VoicePurpose } from '../../integrations/voice/voice-provider.js';
import { defined } from '../../lib/defined.js';
import { objectOf } from '../../lib/json-object.js';

/** Tool errors that are the caller's to fix: their message goes back to the assistant. */
export const toolError = (message: string) => new AppError(422, 'tool_error', message);

/**
 * Arguments are read liberally: a number or a string where the other is declared, spaces trimmed,
 * an empty string as no value, a text over its length cut, fields not declared ignored.
 */
const blank = (v: unknown) => v === null || (typeof v === 'string' && v.trim() === '');

const trimmed = (max: number) => (v: unknown) => {
  if (blank(v)) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return typeof v === 'string' ? v.trim().slice(0, max) : v;
};

/** An optional text of at most `max` characters. */
const text = (max: number, description: string) =>
  z.preprocess(trimmed(max), z.string().optional()).meta({ description });

/** A text the tool needs, of at most `max` characters. */
const requiredText = (max: number, description: string) =>
  z.preprocess(trimmed(max), z.string()).meta({ description });

/** US dollars as said: 2150, "2150", "$2,150", "2,150.00 USD". */
const dollars = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const figure = v.replace(/usd|dollars?|[$,\s]/gi, '');
  return /^\d+(\.\d+)?$/.test(figure) ? Number(figure) : v;
};

const yesNo = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const said = v.trim().toLowerCase();
  return said === 'true' || said === 'yes' ? true : said === 'false' || said === 'no' ? false : v;
};

/** The topics of a question: a list, or one text separated by commas; an unknown one is refused. */
const topics = z
  .preprocess(
    (v) => (Array.isArray(v) ? v.map(String).join(',') : v),
    z.string().transform((raw, ctx): QuestionTopic[] => {
      const named = raw
        .split(',')
        .map((t) =>
          t
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, '_'),
        )
        .filter((t) => t !== '');
      const unknown = named.find((t) => !QUESTION_TOPICS.some((q) => q === t));
      if (named.length === 0 || unknown !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `${named.length === 0 ? 'Give topics' : `Unknown topic '${String(unknown).slice(0, 50)}'`}: one or more of ${QUESTION_TOPICS.join(', ')}, separated by commas, in topics`,
        });
        return z.NEVER;
      }
      return named.flatMap((t) => QUESTION_TOPICS.filter((q) => q === t));
    }),
  )
  .meta({
    description: `What the carrier asks about: one or more of ${QUESTION_TOPICS.join(', ')}, separated by commas`,
  });

const loadNumber = text(100, 'Which load, when the call offers several (the number as the carrier says it)');

/** The arguments of every tool, by name. */
export const TOOL_ARGUMENTS = {
  get_load_details: z.object({ load_number: loadNumber }),
  // `topic` (one) is read as `topics`.
  answer_question: z.preprocess(
    (v) => {
      const o = objectOf(v);
      return o && o.topics === undefined && o.topic !== undefined ? { ...o, topics: o.topic } : v;
    },
    z.object({ topics, load_number: loadNumber }),
  ),
  submit_offer: z.object({
    offer_amount: z
      .preprocess(
        dollars,
        z
          .number({ error: 'must be a positive number of US dollars' })
          .positive({ error: 'must be a positive number of US dollars' })
          .max(10_000_000, { error: 'must be at most 10,000,000 US dollars' }),
      )
      .meta({ description: 'The rate the carrier named, in US dollars, all in' }),
    notes: text(2000, 'Anything the carrier attached to the rate (fuel, timing)'),
    load_number: loadNumber,
    confirmed: z.preprocess(yesNo, z.boolean({ error: 'must be true or false' }).optional()).meta({
      description:
        'True only when the carrier said yes to the amount you read back after a "To confirm" sentence',
    }),
  }),
  request_stop_contact: z.object({ reason: text(500, 'What they said, briefly') }),
  transfer_to_rep: z.object({}),
  record_elp_answer: z.object({
    question_id: requiredText(100, 'The id of the question just asked'),
    answer: requiredText(2000, "The driver's answer, in their own words"),
    valid: z
      .preprocess(yesNo, z.boolean({ error: 'must be true or false' }))
      .meta({ description: 'True when the answer is relevant and understandable' }),
  }),
  find_load: z.object({
    load_number: text(100, 'The load number the caller gives'),
    origin_state: text(10, 'Two-letter state of the pickup'),
    destination_state: text(10, 'Two-letter state of the delivery'),
    pickup_date: text(10, 'Pickup date, YYYY-MM-DD'),
  }),
  identify_carrier: z.object({
    mc_number: text(30, 'The MC number, digits'),
    dot_number: text(30, 'The USDOT number, digits'),
  }),
  send_verification_code: z.object({}),
  verify_code: z.object({ code: requiredText(20, 'The six digits the caller reads') }),
} as const;

export type ToolName = keyof typeof TOOL_ARGUMENTS;
export type ToolArguments<N extends ToolName> = z.output<(typeof TOOL_ARGUMENTS)[N]>;

export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOL_ARGUMENTS, name);

/** Vapi's JSON Schema of a parameter carries its type and description; the checks stay in the reading. */
const declaredParameter = z.object({
  type: z.enum(['string', 'number', 'boolean']),
  description: z.string(),
});
const declaredObject = z.object({
  properties: z.record(z.string(), declaredParameter).default({}),
  required: z.array(z.string()).default([]),
});

/** A tool's arguments as the JSON Schema declared to the platform (what a caller may send). */
function parametersOf(args: z.ZodType): ToolDefinition['parameters'] {
  const schema = declaredObject.parse(z.toJSONSchema(args, { io: 'input' }));
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, p]) => [
      name,
      { type: p.type, description: p.description },
    ]),
  );
  return { type: 'object', properties, required: schema.required };
}

/**
 * A tool's arguments as the platform sent them (an object, or its JSON text), read with its schema;
 * a missing or wrong argument is a tool error naming it, said back to the assistant.
 */
export function readArguments<N extends ToolName>(name: N, raw: unknown): ToolArguments<N> {
  const given = typeof raw === 'string' ? parsedJson(raw) : raw;
  const args = objectOf(given) ?? {};
  const schema: z.ZodType = TOOL_ARGUMENTS[name];
  const read = schema.safeParse(args);
  // N's own schema parsed it, so it is N's arguments: TypeScript does not follow a lookup by a generic key.
  if (read.success) return read.data as ToolArguments<N>;
  const issue = defined(read.error.issues[0], 'a failed parse has an issue');
  const field = String(issue.path[0] ?? '');
  if (issue.code === 'custom') throw toolError(issue.message);
  const declared = defined(TOOLS[name], 'a tool of the map').parameters.properties[field];
  if (blank(args[field]) || args[field] === undefined) {
    throw toolError(`Give ${field}${declared ? `: ${declared.description}` : ''}`);
  }
  const wrong = issue.message.startsWith('must ') ? issue.message : `must be ${declared?.type ?? 'valid'}`;
  throw toolError(`${field} ${wrong}`);
}

function parsedJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

const tool = (name: ToolName, kind: ToolDefinition['kind'], description: string): ToolDefinition => ({
  name,
  kind,
  description,
  parameters: parametersOf(TOOL_ARGUMENTS[name]),
});

const TOOLS: Record<ToolName, ToolDefinition> = {
  get_load_details: tool(
    'get_load_details',
    'function',
    "The load's details you may share: lane, stops and dates, equipment, commodity, weight, special instructions and the posted rate. On a call offering several loads, every load's, unless load_number names one.",
  ),
  answer_question: tool(
    'answer_question',
    'function',
    "Answer the carrier's question about the load (weight, commodity, pickup or delivery time, appointments, drop and hook, stops, equipment, temperature, ...). Returns the answer to say, from the load's facts.",
  ),
  submit_offer: tool(
    'submit_offer',
    'function',
    "Record the carrier's all-in rate for the load (on a call offering several loads, for the load_number it names). Returns the sentence to say back to the carrier, word for word; when it asks the carrier to confirm the amount and the carrier says yes, call it again with the same offer_amount and confirmed true.",
  ),
  request_stop_contact: tool(
    'request_stop_contact',
    'function',
    'The carrier asked not to be called or contacted again: record it.',
  ),
  transfer_to_rep: tool(
    'transfer_to_rep',
    'transfer',
    "Transfer the call to the load's rep (a person at the brokerage).",
  ),
  record_elp_answer: tool(
    'record_elp_answer',
    'function',
    "Record the driver's answer to one test question and whether it is valid under the rubric. Returns what to ask next, or that the test is over.",
  ),
  find_load: tool(
    'find_load',
    'function',
    'Find the posted load the caller asks about: by load number, or by lane (origin and destination state, optionally the pickup date).',
  ),
  identify_carrier: tool(
    'identify_carrier',
    'function',
    'Identify the calling carrier by its MC number (or DOT number). Say what it returns.',
  ),
  send_verification_code: tool(
    'send_verification_code',
    'function',
    "When identify_carrier says the calling number is not on file: send a one-time code to the carrier's e-mail or phone on file with FMCSA.",
  ),
  verify_code: tool(
    'verify_code',
    'function',
    'Check the one-time code the caller reads back; the carrier is identified only when it is right.',
  ),
};

/** Tools that only read: a repeated delivery is answered afresh. The others are answered once. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set<ToolName>([
  'get_load_details',
  'answer_question',
]);

const TOOLS_BY_PURPOSE: Record<VoicePurpose, ToolName[]> = {
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
  return TOOLS_BY_PURPOSE[purpose].map((name) => TOOLS[name]);
}

/** Every tool any assistant of the service declares (docs/vapi.md lists them for your own assistants). */
export const ALL_TOOLS = Object.values(TOOLS);
