/**
 * A carrier's questions about a load, answered from the load's sayable facts. The facts a caller
 * can hand in (LoadFacts) hold nothing internal: no customer rate, margin, max buy rate or stop
 * notes, so no answer can say them. Where the load does not tell, the answer says a rep will
 * confirm rather than guess.
 */

export const QUESTION_TOPICS = [
  'weight',
  'commodity',
  'pickup_time',
  'delivery_time',
  'appointment',
  'drop_and_hook',
  'unloading',
  'tarps',
  'hazmat',
  'stops',
  'equipment',
  'temperature',
  'miles',
  'location',
  'rate',
  'payment_terms',
  'shipper',
  'still_open',
  'details',
] as const;
export type QuestionTopic = (typeof QUESTION_TOPICS)[number];

export interface FactStop {
  type: 'Pickup' | 'Dropoff' | null;
  city: string;
  state: string;
  /** YYYY-MM-DD. */
  date: string | null;
  /** The appointment window (ISO 8601, UTC), when the stop has one. */
  window: { start: string | null; end: string | null } | null;
}

/** What may be told to a carrier about a load. */
export interface LoadFacts {
  load_number: string;
  equipment_type: string | null;
  length_feet: number | null;
  commodity: string | null;
  handling_units: { count: number | null; type: string | null } | null;
  weight_lb: number | null;
  distance_miles: number | null;
  posted_rate: number | null;
  temperature_f: { min: number | null; max: number | null } | null;
  /** The load's and its stops' special instructions, which are written for carriers. */
  special_instructions: string[];
  stops: FactStop[];
  /** Whether the load still takes offers; unknown when not given. */
  open?: boolean;
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
const CONFIRM = 'a rep will confirm';

function time(iso: string | null): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  const hm = d.toISOString().slice(11, 16);
  return `${d.toISOString().slice(0, 10)}${hm === '00:00' ? '' : ` ${hm} UTC`}`;
}

function when(stop: FactStop | undefined): string | null {
  if (!stop) return null;
  const start = time(stop.window?.start ?? null);
  const end = time(stop.window?.end ?? null);
  if (start && end && start !== end) {
    const sameDay = start.slice(0, 10) === end.slice(0, 10);
    return `${start} to ${sameDay ? end.slice(11) : end}`;
  }
  return start ?? stop.date;
}

const place = (stop: FactStop | undefined) => (stop ? `${stop.city}, ${stop.state}` : null);
const pickupOf = (f: LoadFacts) => f.stops.find((s) => s.type !== 'Dropoff') ?? f.stops[0];
const deliveryOf = (f: LoadFacts) => f.stops.findLast((s) => s.type === 'Dropoff') ?? f.stops.at(-1);

/** The special instructions that speak of a topic, quoted. */
function noted(f: LoadFacts, pattern: RegExp): string | null {
  const found = f.special_instructions.filter((line) => pattern.test(line));
  return found.length ? found.join('; ') : null;
}

function fromInstructions(f: LoadFacts, pattern: RegExp, what: string): string {
  const said = noted(f, pattern);
  return said
    ? `On ${what}, the load notes say: ${said}.`
    : `Nothing on the load mentions ${what}; ${CONFIRM}.`;
}

function weight(f: LoadFacts): string {
  return f.weight_lb !== null
    ? `It weighs ${f.weight_lb.toLocaleString('en-US')} lb.`
    : `The weight is not on the load yet; ${CONFIRM}.`;
}

function commodity(f: LoadFacts): string {
  const units = f.handling_units?.count
    ? `, ${f.handling_units.count} ${(f.handling_units.type ?? 'units').toLowerCase()}`
    : '';
  return f.commodity ? `It is ${f.commodity}${units}.` : `The commodity is not on the load yet; ${CONFIRM}.`;
}

function stopTime(f: LoadFacts, which: 'Pickup' | 'Delivery'): string {
  const stop = which === 'Pickup' ? pickupOf(f) : deliveryOf(f);
  const at = when(stop);
  return at
    ? `${which} is ${at} in ${place(stop)}.`
    : `The ${which.toLowerCase()} time is not set yet; ${CONFIRM}.`;
}

function appointment(f: LoadFacts): string {
  const windows = f.stops.filter((s) => s.window?.start);
  const said = noted(f, /appointment|appt|fcfs|first come/i);
  const parts = windows.map(
    (s) => `${s.type === 'Dropoff' ? 'delivery' : 'pickup'} in ${place(s)} ${when(s)}`,
  );
  if (parts.length) return `Appointments: ${parts.join('; ')}.${said ? ` Notes: ${said}.` : ''}`;
  if (said) return `On appointments, the load notes say: ${said}.`;
  return `No appointment times are set on the load yet; ${CONFIRM}.`;
}

function stops(f: LoadFacts): string {
  const list = f.stops.map(
    (s, i) =>
      `${i + 1}. ${s.type === 'Dropoff' ? 'delivery' : 'pickup'} ${place(s)}${s.date ? ` ${s.date}` : ''}`,
  );
  return `${f.stops.length} stop${f.stops.length === 1 ? '' : 's'}: ${list.join('; ')}.`;
}

function equipment(f: LoadFacts): string {
  if (!f.equipment_type) return `The equipment is not set yet; ${CONFIRM}.`;
  return `It needs a ${f.length_feet ? `${f.length_feet} ft ` : ''}${f.equipment_type.toLowerCase().replace(/_/g, ' ')}.`;
}

function temperature(f: LoadFacts): string {
  const t = f.temperature_f;
  if (t && (t.min !== null || t.max !== null)) {
    if (t.min !== null && t.max !== null && t.min !== t.max) return `It runs at ${t.min} to ${t.max} °F.`;
    return `It runs at ${t.min ?? t.max} °F.`;
  }
  const said = noted(f, /°|degrees|\btemp/i);
  if (said) return `On temperature, the load notes say: ${said}.`;
  if (f.equipment_type && !/reefer|refrig/i.test(f.equipment_type))
    return 'It is not temperature controlled.';
  return `The temperature is not set on the load yet; ${CONFIRM}.`;
}

function details(f: LoadFacts): string {
  const pickupDate = pickupOf(f)?.date;
  const deliveryDate = deliveryOf(f)?.date;
  const bits = [
    `Load ${f.load_number}: ${place(pickupOf(f)) ?? 'TBD'} to ${place(deliveryOf(f)) ?? 'TBD'}`,
    f.equipment_type?.toLowerCase(),
    pickupDate ? `pickup ${pickupDate}` : null,
    deliveryDate ? `delivery ${deliveryDate}` : null,
    f.commodity,
    f.weight_lb !== null ? `${f.weight_lb.toLocaleString('en-US')} lb` : null,
    f.distance_miles !== null ? `${Math.round(f.distance_miles).toLocaleString('en-US')} miles` : null,
  ];
  return `${bits.filter(Boolean).join(', ')}.`;
}

const ANSWERS: Record<QuestionTopic, (f: LoadFacts) => string | null> = {
  weight,
  commodity,
  pickup_time: (f) => stopTime(f, 'Pickup'),
  delivery_time: (f) => stopTime(f, 'Delivery'),
  appointment,
  drop_and_hook: (f) =>
    fromInstructions(
      f,
      /drop\s*(?:and|&|n)\s*hook|drop trailer|live (?:load|unload)|pre-?loaded/i,
      'drop and hook',
    ),
  unloading: (f) => fromInstructions(f, /unload|lumper|driver assist|touch/i, 'unloading'),
  tarps: (f) => fromInstructions(f, /tarp/i, 'tarps'),
  hazmat: (f) => fromInstructions(f, /hazmat|hazardous|placard/i, 'hazmat'),
  stops: (f) => (f.stops.length ? stops(f) : null),
  equipment,
  temperature,
  miles: (f) =>
    f.distance_miles !== null
      ? `It is about ${Math.round(f.distance_miles).toLocaleString('en-US')} miles.`
      : `The mileage is not on the load yet; ${CONFIRM}.`,
  location: (f) =>
    `It picks up in ${place(pickupOf(f)) ?? 'a place not set yet'} and delivers to ${place(deliveryOf(f)) ?? 'a place not set yet'}; the full addresses come with the rate confirmation.`,
  rate: (f) => (f.posted_rate !== null ? `It is posted at ${usd(f.posted_rate)}, all in.` : null),
  payment_terms: () => `Payment terms, quick pay included, come with the rate confirmation; ${CONFIRM}.`,
  shipper: () => 'The shipper and receiver details come with the rate confirmation once the load is booked.',
  still_open: (f) =>
    f.open === undefined ? null : f.open ? 'Yes, it is still open.' : 'It has been covered.',
  details,
};

/** The answers to the topics asked, in order, as one short paragraph; null when none has one. */
export function answerQuestions(topics: readonly QuestionTopic[], facts: LoadFacts): string | null {
  const said = [...new Set(topics)].map((topic) => ANSWERS[topic](facts)).filter((a): a is string => !!a);
  return said.length ? said.join(' ') : null;
}
