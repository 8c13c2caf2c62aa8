import type { DbOrTx } from '../../db/client.js';
import type { CallType } from '../../domain/calls.js';
import { systemScope } from '../../domain/scope.js';
import type { AssistantSpec } from '../../integrations/voice/voice-provider.js';
import { speakable, spokenDate, spokenReference, spokenState } from '../../lib/spoken.js';
import { organizationContact } from '../auth/index.js';
import { carrierNameOf } from '../carriers/index.js';
import type { CarrierFacingLoad, Load, LoadReader } from '../loads/index.js';
import { loadsOfCall } from '../outreaches/index.js';
import { renderScript, type VoiceTemplateRow, type VoiceVariables } from '../voice-templates/index.js';
import type { CallRow } from './calls-repository.js';
import { elpNamesOfCall } from './elp-queries.js';
import { ELP_QUESTIONS, ELP_RUBRIC, INTERVIEW_PASS } from './elp-questions.js';
import { toolsFor } from './voice-tool-declarations.js';

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
const day = (d: Date | null | undefined) => (d ? d.toISOString().slice(0, 10) : null);

/**
 * What may be said about a load on a call: lane, stops, dates, equipment, commodity, weight,
 * special instructions and the posted rate. Never the customer rate, the margin, the max buy rate
 * or stop notes: they are not read here, so they cannot reach a script or a tool answer.
 */
export function sayableLoad(load: CarrierFacingLoad) {
  const stops = load.stops.map((s, i) => ({
    stop_number: s.stop_number ?? i + 1,
    type: s.type,
    city: s.location.city,
    state: s.location.state,
    date: day(s.expected_date ?? s.planned?.start ?? null),
    window: s.planned ? { start: s.planned.start, end: s.planned.end } : null,
    special_instructions: s.special_instructions ?? [],
  }));
  const pickups = stops.filter((s) => s.type !== 'Dropoff');
  const drops = stops.filter((s) => s.type === 'Dropoff');
  const first = pickups[0] ?? stops[0] ?? null;
  const last = drops.at(-1) ?? stops.at(-1) ?? null;
  return {
    load_number: load.load_number,
    origin: first ? { city: first.city, state: first.state } : null,
    destination: last ? { city: last.city, state: last.state } : null,
    pickup_date: first?.date ?? null,
    delivery_date: last?.date ?? null,
    equipment_type: load.equipment_type,
    mode: load.mode,
    commodity: load.commodity,
    weight_lb: load.weight,
    posted_rate: load.posted_rate,
    special_instructions: [
      ...(load.special_instructions ?? []),
      ...stops.flatMap((s) => s.special_instructions),
    ],
    stops,
  };
}
export type SayableLoad = ReturnType<typeof sayableLoad>;

/** A load's sayable facts as template variables. */
export function loadVariables(s: SayableLoad): VoiceVariables {
  return {
    load_number: s.load_number,
    origin_city: s.origin?.city ?? null,
    origin_state: s.origin?.state ?? null,
    destination_city: s.destination?.city ?? null,
    destination_state: s.destination?.state ?? null,
    stops_summary: s.stops
      .map(
        (st) =>
          `${st.stop_number}. ${st.type ?? 'Stop'}: ${st.city}, ${st.state}${st.date ? ` on ${st.date}` : ''}`,
      )
      .join('; '),
    pickup_date: s.pickup_date,
    delivery_date: s.delivery_date,
    equipment_type: s.equipment_type,
    commodity: s.commodity,
    weight: s.weight_lb === null ? null : `${s.weight_lb.toLocaleString('en-US')} lb`,
    special_instructions: s.special_instructions.length ? s.special_instructions.join('; ') : 'none',
    posted_rate: s.posted_rate === null ? null : usd(s.posted_rate),
  };
}

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** The loads a call offers, as its script names them: "load OUT-1", or "3 loads: OUT-1, OUT-2 and OUT-3". */
export function loadsOnCall(numbers: readonly string[]): string {
  if (numbers.length <= 1) return `load ${numbers[0] ?? ''}`.trim();
  return `${numbers.length} loads: ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

/** A load's lane as said: "Dallas, TX to Houston, TX". */
const laneOf = (l: SayableLoad) =>
  `${[l.origin?.city, l.origin?.state].filter(Boolean).join(', ') || 'origin not given'} to ${
    [l.destination?.city, l.destination?.state].filter(Boolean).join(', ') || 'destination not given'
  }`;

/** The lanes of a call's loads, each once, in the order of the loads: "Dallas, TX to Houston, TX and Tulsa, OK to Reno, NV". */
export function lanesOnCall(onCall: readonly SayableLoad[]): string {
  const lanes = [...new Set(onCall.map(laneOf))];
  return lanes.length <= 1 ? (lanes[0] ?? '') : `${lanes.slice(0, -1).join(', ')} and ${lanes.at(-1)}`;
}

/**
 * The other loads of a call, a line each: number, lane, equipment, pickup date and posted rate
 * (what a carrier is told). A call may offer loads of several of the carrier's lanes.
 */
export function otherLoads(others: readonly SayableLoad[]): string {
  if (others.length === 0) return 'none';
  return others
    .map(
      (o) =>
        `${o.load_number}: ${laneOf(o)}${o.equipment_type ? `, ${o.equipment_type}` : ''}, pickup ${o.pickup_date ?? 'date not given'}` +
        (o.posted_rate !== null ? `, posted rate ${usd(o.posted_rate)}` : ''),
    )
    .join('; ');
}

/**
 * Every variable of a call: the load's sayable facts, the other loads the call offers (of any of the carrier's lanes),
 * who is called, the organization and its rep, and the tracking instructions. `template_variables`
 * the caller sent fill only `driver_name` and `instructions`: the facts of a load come from the load.
 * `references` are the load numbers the call names (said one character at a time).
 */
export async function callVariables(
  db: DbOrTx,
  loads: LoadReader,
  call: CallRow,
): Promise<{ variables: VoiceVariables; references: string[] }> {
  const scope = systemScope(call.organization_id);
  const given = call.template_variables ?? {};
  const org = await organizationContact(db, call.organization_id);
  const onCall = call.load_id
    ? (
        await Promise.all((await loadsOfCall(db, call)).map((l) => loads.get(scope, l.id).catch(() => null)))
      ).filter((l): l is Load => l !== null)
    : [];
  const load = onCall.find((l) => l.id === call.load_id) ?? null;
  const sayable = onCall.map(sayableLoad);
  const others = sayable.filter((_, i) => onCall[i] !== load);
  const carrier = call.carrier_id ? await carrierNameOf(db, call.carrier_id) : undefined;
  const elp = call.call_type === 'ELP' ? await elpNamesOfCall(db, call.id) : undefined;
  const loadDriver = load?.driver
    ? [load.driver.first_name, load.driver.last_name].filter(Boolean).join(' ') || null
    : null;
  const references = onCall.map((l) => l.load_number);
  const variables: VoiceVariables = {
    ...(load ? loadVariables(sayableLoad(load)) : {}),
    ...(load
      ? {
          loads_on_call: loadsOnCall(references),
          lanes_on_call: lanesOnCall(sayable),
          other_loads: otherLoads(others),
        }
      : {}),
    carrier_name: carrier?.name ?? elp?.carrier_name ?? null,
    driver_name: str(given.driver_name) ?? elp?.driver_name ?? loadDriver,
    broker_name: org.name,
    rep_name: load?.carrier_rep_user_name ?? org.ownerName,
    instructions: str(given.instructions),
  };
  return { variables, references };
}

/** The ELP test as the assistant reads it: the rubric and the bank, in order. */
function elpScript(): string {
  const lines = ELP_QUESTIONS.map(
    (q, i) =>
      `${i + 1}. [${q.id}] (${q.step === 'interview' ? 'interview' : 'signs'}) "${q.text}" Valid when it ${q.expects}.`,
  );
  return [
    `Rubric: ${ELP_RUBRIC}`,
    `The interview comes first; with fewer than ${INTERVIEW_PASS} valid interview answers the test ends before the signs (record_elp_answer will say so).`,
    'The questions, in order ([question_id] (step) "question" and what makes an answer valid):',
    ...lines,
  ].join('\n');
}

/**
 * The variables as a dispatcher says them, for what the voice reads aloud word for word (the first
 * message and the voicemail): dates, states, the posted rate and the load number spoken.
 */
export function spokenVariables(v: VoiceVariables, references: readonly string[] = []): VoiceVariables {
  const say = (value: string | null | undefined, as: (s: string) => string) =>
    typeof value === 'string' ? as(value) : value;
  const loadNumber = [...(typeof v.load_number === 'string' ? [v.load_number] : []), ...references];
  return {
    ...v,
    load_number: say(v.load_number, spokenReference),
    origin_state: say(v.origin_state, spokenState),
    destination_state: say(v.destination_state, spokenState),
    pickup_date: say(v.pickup_date, spokenDate),
    delivery_date: say(v.delivery_date, spokenDate),
    posted_rate: say(v.posted_rate, (s) => speakable(s)),
    stops_summary: say(v.stops_summary, (s) => speakable(s, loadNumber)),
    loads_on_call: say(v.loads_on_call, (s) => speakable(s, loadNumber)),
    lanes_on_call: say(v.lanes_on_call, (s) => speakable(s, loadNumber)),
    other_loads: say(v.other_loads, (s) => speakable(s, loadNumber)),
  };
}

/**
 * The assistant the service defines for a call: the template rendered with the call's variables,
 * the purpose's tools, and for ELP the question bank and rubric.
 */
export function assistantFor(
  call: Pick<CallRow, 'id' | 'organization_id'>,
  template: VoiceTemplateRow,
  variables: VoiceVariables,
  references: readonly string[] = [],
): AssistantSpec {
  const purpose = template.purpose;
  const instructions = renderScript(template.instructions, variables);
  const spoken = spokenVariables(variables, references);
  return {
    name: template.name,
    purpose,
    firstMessage: renderScript(template.first_message, spoken),
    instructions: purpose === 'elp' ? `${instructions}\n\n${elpScript()}` : instructions,
    voicemailMessage: template.voicemail_message ? renderScript(template.voicemail_message, spoken) : null,
    tools: toolsFor(purpose),
    voice: template.voice,
    model: template.model,
    questions: purpose === 'elp' ? ELP_QUESTIONS : null,
    metadata: { envoy_call_id: call.id, organization_id: call.organization_id },
  };
}

/**
 * What a call is for. The call type decides (LOAD_BOOKING, ELP); without one, a `purpose` the
 * service's own callers put in the variables (tracking check calls), else load booking.
 */
export function purposeOf(callType: CallType | null, variables: Record<string, unknown> | null | undefined) {
  if (callType === 'ELP') return 'elp' as const;
  if (callType === 'LOAD_BOOKING') return 'load_booking' as const;
  return variables?.purpose === 'tracking_check' ? ('tracking_check' as const) : ('load_booking' as const);
}
