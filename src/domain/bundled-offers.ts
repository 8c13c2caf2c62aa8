/**
 * Loads offered to one carrier in one message (of one lane, or of the carrier's lanes), and the
 * carrier's answer split by the load numbers it names. Pure: no I/O. Nothing internal is said (the
 * lines come from describeLoad).
 */
import { describeLoad, type LoadSummary } from './negotiation.js';

/** Whether the loads share one lane: origin, destination and equipment. */
export const oneLane = (loads: readonly Pick<LoadSummary, 'origin' | 'destination' | 'equipment_type'>[]) =>
  new Set(loads.map((l) => `${l.origin}|${l.destination}|${l.equipment_type}`)).size <= 1;

/** The first message of a conversation naming several loads (of one lane, or of the carrier's lanes). */
export function bundledFirstContact(loads: readonly LoadSummary[], carrierName: string): string {
  const lines = loads.map((l) => `- ${describeLoad(l)}`).join('\n');
  const which = oneLane(loads) ? 'on the same lane' : 'on your lanes';
  return (
    `Hi ${carrierName}, we have ${loads.length} loads ${which}:\n${lines}\n` +
    'Do you have trucks for any of them? Reply with the load numbers you can take and your rate for each, all in.'
  );
}

/** A part of the carrier's answer about one load: the text that follows its load number. */
export type NamedPart = { load_number: string; text: string };

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The load numbers the answer names, in the order it names them, each with the text after it up to
 * the next load number named; and the answer with every load number taken out (so a number such as
 * "1042" is never read as an amount). A load number counts when it stands as a word of its own
 * (case-insensitive; "#1042" and "load 1042" both name 1042).
 */
export function splitByLoadNumbers(
  text: string,
  loadNumbers: readonly string[],
): { parts: NamedPart[]; rest: string } {
  const hits: { load_number: string; start: number; end: number }[] = [];
  for (const n of loadNumbers) {
    if (!n) continue;
    const re = new RegExp(`(?<![A-Za-z0-9-])${escapeRegExp(n)}(?![A-Za-z0-9-])`, 'gi');
    for (const m of text.matchAll(re))
      hits.push({ load_number: n, start: m.index, end: m.index + m[0].length });
  }
  hits.sort((a, b) => a.start - b.start);
  const parts: NamedPart[] = [];
  hits.forEach((h, i) => {
    const to = hits[i + 1]?.start ?? text.length;
    if (!parts.some((p) => p.load_number === h.load_number))
      parts.push({ load_number: h.load_number, text: text.slice(h.end, to) });
  });
  let rest = '';
  let at = 0;
  for (const h of hits) {
    rest += `${text.slice(at, h.start)} `;
    at = h.end;
  }
  rest += text.slice(at);
  return { parts, rest };
}

/** Asks for the loads and rates when the carrier's answer to a message about several loads named no rate. */
export function bundledAskRate(loadNumbers: readonly string[]): string {
  return `Thanks! Which of loads ${loadNumbers.join(', ')} can you take, and at what rate for each, all in?`;
}

/** Added when one rate without a load number was taken for the first load only. */
export function bundledOthersNote(others: readonly string[]): string {
  return `If you can take load${others.length > 1 ? 's' : ''} ${others.join(', ')} as well, reply with the load number${others.length > 1 ? 's' : ''} and your rate.`;
}
