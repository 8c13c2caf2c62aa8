/**
 * The parts of a carrier's turn that follow from what it read: which load an answer about several
 * is about, what the carrier said for the negotiation, the one answer about several loads, and the
 * message kept with its reading.
 */

import type { DbOrTx } from '../../db/client.js';
import { bundledAskRate, bundledOthersNote } from '../../domain/bundled-offers.js';
import type { CarrierSaid, Conversation, ReplyIntent } from '../../domain/negotiation.js';
import { defined } from '../../lib/defined.js';
import type { OutreachRow } from '../outreaches/index.js';
import { type AgentLoad, insertMessage } from './agent-repository.js';
import { CONFIRM_BELOW, type Reading } from './reply-reading.js';

/** One load of the conversation, with what the turn knows of it. */
export type Member = {
  outreach: OutreachRow;
  load: AgentLoad;
  conversation: Conversation;
  reading: Reading;
  /** The carrier's own words name a figure (besides load numbers), whether or not it was read. */
  figure: boolean;
};

export type ModelReading = { rate: number | null; available: boolean | null; stop_contact: boolean };
export type Line = { member: Member; intent: ReplyIntent; text: string; amount: number | null };

/** The answer about several loads: a line per load the carrier said something of, one question for the rest. */
export function bundledBody(lines: Line[]): string {
  const numbers = lines.map((l) => l.member.load.load_number);
  if (lines.every((l) => l.intent === 'ask_rate')) return bundledAskRate(numbers);
  if (lines.every((l) => l.intent === 'not_available')) return defined(lines[0], 'a line').text;
  const said = lines
    .filter((l) => l.intent !== 'ask_rate')
    .map((l) =>
      l.text.includes(l.member.load.load_number) ? l.text : `Load ${l.member.load.load_number}: ${l.text}`,
    );
  const asked = lines.filter((l) => l.intent === 'ask_rate').map((l) => l.member.load.load_number);
  return [...said, ...(asked.length ? [bundledOthersNote(asked)] : [])].join('\n');
}

/** A part of an answer that says the same as the load before it: "too", "as well", "same". */
const SAME_AS_BEFORE =
  /^[\s,.!:;-]*(?:too|also|as well|(?:at )?(?:the )?same(?: rate| price)?|tambi[eé]n)[\s,.!]*$/i;
/** A part of an answer with no words of its own: only connectives between load numbers. */
const isBare = (text: string) => !/[\p{L}\p{N}]/u.test(text.replace(/\b(?:and|y|&)\b/gi, ''));

/**
 * Loads named together share one answer: "N1 at 1950 and N2 too" gives N2 the answer on N1, and
 * "N1 and N2: 2400 each" gives N1 the words that follow N2.
 */
export function sharedAnswers(
  members: Member[],
  parts: readonly { load_number: string; text: string }[],
): Member[] {
  const byNumber = new Map(members.map((x) => [x.load.load_number.toLowerCase(), x]));
  const reading = new Map<Member, Reading>();
  parts.forEach((part, i) => {
    const x = byNumber.get(part.load_number.toLowerCase());
    if (!x) return;
    const before =
      i > 0 ? byNumber.get(defined(parts[i - 1], 'the part before').load_number.toLowerCase()) : undefined;
    if (before && SAME_AS_BEFORE.test(part.text)) {
      reading.set(x, reading.get(before) ?? before.reading);
      return;
    }
    if (!isBare(part.text)) return;
    const next = parts.slice(i + 1).find((p) => !isBare(p.text));
    const owner = next ? byNumber.get(next.load_number.toLowerCase()) : undefined;
    if (owner) reading.set(x, owner.reading);
  });
  return members.map((x) => {
    const shared = reading.get(x);
    return shared ? { ...x, reading: shared } : x;
  });
}

/**
 * What the carrier said about the load, as the negotiation takes it. A firm amount is confirmed
 * when it answers the amount the agent asked it to confirm (or its counter, said yes to); an amount
 * read with low confidence, or that the chat model read otherwise, is only asked to be confirmed.
 */
export function saidOf(x: Member, disagreeing: { rate: number | null } | null): CarrierSaid {
  const r = x.reading;
  const c = x.conversation;
  if (r.available === false && r.rate === null) return { kind: 'declined' };
  if (disagreeing) {
    const amount = r.rate ?? r.tentative_rate ?? disagreeing.rate;
    return amount !== null ? { kind: 'tentative', amount } : { kind: 'no_rate' };
  }
  if (r.rate !== null) {
    // The very amount the agent asked about, said back: the carrier's yes to it.
    const confirmed = r.rate === c.confirming || (c.confirming === null && r.rate === c.lastCounter);
    if (confirmed) return { kind: 'offer', amount: r.rate, confirmed: true };
    if (r.confidence < CONFIRM_BELOW) return { kind: 'tentative', amount: r.rate };
    return { kind: 'offer', amount: r.rate };
  }
  if (r.tentative_rate !== null) return { kind: 'tentative', amount: r.tentative_rate };
  if (r.available === true && !x.figure) {
    // A plain "yes" to the amount we asked it to confirm, or to our counter: that amount,
    // confirmed. A yes with a figure the reading did not take is no yes to ours.
    const yesTo = c.confirming ?? c.lastCounter;
    if (yesTo !== null) return { kind: 'offer', amount: yesTo, confirmed: true };
  }
  return { kind: 'no_rate' };
}

/** The carrier's message kept on the conversation, with how each load was read (and by the model). */
export function keepInbound(
  tx: DbOrTx,
  outreach: OutreachRow,
  members: Member[],
  m: { text: string; messageId: string | null },
  model: ModelReading | null,
  disagreed: boolean,
) {
  return insertMessage(tx, outreach, {
    direction: 'inbound',
    intent: null,
    body: m.text,
    externalId: m.messageId,
    reading: {
      loads: members.map((x) => ({ load_id: x.load.id, ...x.reading })),
      ...(model ? { model, agreed: !disagreed } : {}),
    },
  });
}
