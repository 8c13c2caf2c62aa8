/**
 * The variables a call script may use as `{{name}}` placeholders, each with what it holds. They
 * are the sayable facts of a call: never the customer rate, the margin, the max buy rate or stop
 * notes, which no variable carries.
 */
export const VOICE_VARIABLES = {
  load_number: "The load's number",
  loads_on_call:
    'The loads the call offers: "load OUT-1", or "3 loads: OUT-1, OUT-2 and OUT-3" when the agent offers several loads on one call',
  lanes_on_call:
    'The lanes of the loads the call offers, each once: "Dallas, TX to Houston, TX", or "Dallas, TX to Houston, TX and Tulsa, OK to Denver, CO" when the loads are on several of the carrier\'s lanes',
  other_loads:
    'The other loads the call offers, each with its lane, equipment, pickup date and posted rate ("none" on a call about one load)',
  origin_city: 'City of the first pickup',
  origin_state: 'State of the first pickup',
  destination_city: 'City of the last drop-off',
  destination_state: 'State of the last drop-off',
  stops_summary: 'Every stop in order: type, city, state and date',
  pickup_date: 'Date of the first pickup (YYYY-MM-DD)',
  delivery_date: 'Date of the last drop-off (YYYY-MM-DD)',
  equipment_type: 'Equipment the load needs (VAN, REEFER, ...)',
  commodity: 'What is hauled',
  weight: 'Weight in pounds',
  special_instructions: "The load's and its stops' special instructions (spoken to carriers)",
  posted_rate: 'The posted rate in USD: the opening number of a negotiation',
  carrier_name: 'The carrier called (or calling)',
  driver_name: 'The driver, when known (ELP tests, check calls)',
  broker_name: "The organization's name",
  rep_name: "The load's rep, else the organization's owner",
  instructions: 'What a tracking check call is to ask or say',
} as const;

export type VoiceVariable = keyof typeof VOICE_VARIABLES;

const isVoiceVariable = (name: string): name is VoiceVariable => Object.hasOwn(VOICE_VARIABLES, name);
export type VoiceVariables = Partial<Record<VoiceVariable, string | null>>;

/** Fields that are never a variable and never leave the service on a call. */
export const NEVER_SAID = ['customer_rate', 'margin', 'max_buy_rate', 'notes'] as const;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The first placeholder in `text` that names no variable, or a Liquid tag, else null. */
export function unknownPlaceholder(text: string): string | null {
  if (text.includes('{%')) return '{%';
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (!isVoiceVariable(name)) return match[0];
  }
  return null;
}

/** What a variable without a value renders as. */
export const MISSING = 'not given';

/**
 * Fills the placeholders with their values. A value cannot open a placeholder of its own (braces
 * are dropped), so what a carrier or a load says is never read as a script.
 */
export function renderScript(text: string, values: VoiceVariables): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => {
    // An unknown name is handled as an empty value below.
    const value = isVoiceVariable(name) ? values[name] : undefined;
    return value === null || value === undefined || value === ''
      ? MISSING
      : value.replace(/[{}]|\{%|%\}/g, '');
  });
}
