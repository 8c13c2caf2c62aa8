import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTx } from '../../db/client.js';
import { bundledAskRate, bundledOthersNote, splitByLoadNumbers } from '../../domain/bundled-offers.js';
import { amountOf, replyText } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { findCarrier } from '../carriers/index.js';
import { counterOffered, type OfferReceiver } from '../offers/index.js';
import { type OutreachRow, outreachesOfConversation } from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import { type AgentLoad, agentLoadOf } from './agent-repository.js';
import { understandReply } from './reply-understanding.js';

type Heard = ReturnType<typeof understandReply>;

/** The outreaches of the reply's conversation: several when one message named several loads. */
export async function conversationOutreaches(db: DbOrTx, outreach: OutreachRow): Promise<OutreachRow[]> {
  if (!outreach.conversation_id) return [outreach];
  const rows = await outreachesOfConversation(db, outreach.conversation_id, outreach.carrier_id);
  return rows.length ? rows : [outreach];
}

/** The text an answer about several loads is read from: every load number taken out. */
export const bundleText = (text: string, members: OutreachRow[]) =>
  splitByLoadNumbers(
    text,
    members.map((m) => m.load_number ?? ''),
  ).rest;

export type BundleAnswer = { offer_id: string | null; reason: string };

/** A part of an answer that says the same as the load before it: "too", "as well", "same". */
const SAME_AS_BEFORE =
  /^[\s,.!:;-]*(?:too|also|as well|(?:at )?(?:the )?same(?: rate| price)?|tambi[eé]n)[\s,.!]*$/i;

/** A part of an answer with no words of its own: only connectives between load numbers. */
const isBare = (text: string) => !/[\p{L}\p{N}]/u.test(text.replace(/\b(?:and|y|&)\b/gi, ''));

/**
 * A carrier's answer to a message naming several loads. Each load number the answer names is
 * read from its own words (the text after that number): an amount there is an offer, a refusal
 * there ("no trucks", "pass") is the carrier's no on that load, a yes there takes the agent's
 * counter-offer. Another load's amount is never this load's; only a load named with nothing of
 * its own ("OUT-1 and OUT-2: 2400 each") takes the words that follow it, and one said "too" the
 * answer before it. An answer naming no load
 * number applies its amount to the first load of the message only (a carrier with one truck may
 * quote "2100" meaning one load; the others are asked for again), and a bare "yes" takes each
 * load's counter-offer the agent made. The answers go out in one message.
 */
type Target = { member: OutreachRow; rate: number | null; available: boolean | null };

/** What the answer says of each load it is about: its amount, or its yes or no. */
function targetsOf(
  text: string,
  members: OutreachRow[],
  heard: Heard,
  loads: Map<string, AgentLoad>,
): { targets: Target[]; named: boolean } {
  const byNumber = new Map(members.map((m) => [m.load_number?.toLowerCase(), m]));
  const { parts } = splitByLoadNumbers(
    text,
    members.map((m) => m.load_number ?? ''),
  );
  const targets: Target[] = [];
  for (const [i, part] of parts.entries()) {
    const member = byNumber.get(part.load_number.toLowerCase());
    if (!member) continue;
    const before = targets.at(-1);
    if (before && SAME_AS_BEFORE.test(part.text)) {
      // "N1 at 1950 and N2 too": the same answer for this load.
      targets.push({ ...before, member });
      continue;
    }
    const words = parts.slice(i).find((p) => !isBare(p.text))?.text ?? '';
    const own = understandReply(words, { distance: loads.get(member.load_id)?.distance ?? null });
    targets.push({ member, rate: own.rate, available: own.rate !== null ? true : own.available });
  }
  if (targets.length === 0 && heard.rate !== null)
    targets.push({ member: defined(members[0], 'members[0]'), rate: heard.rate, available: true });
  if (targets.length === 0 && heard.available === true) {
    for (const member of members) targets.push({ member, rate: null, available: true });
  }
  return { targets, named: parts.length > 0 };
}

export class BundleReplies {
  constructor(
    private readonly db: Db,
    private readonly messenger: AgentMessenger,
    private readonly offers: OfferReceiver,
    private readonly log: FastifyBaseLogger,
  ) {}

  async answer(
    outreach: OutreachRow,
    members: OutreachRow[],
    text: string,
    heard: Heard,
    theirMessageId: string | null,
    channel: 'email' | 'messaging',
  ): Promise<BundleAnswer> {
    const scope = systemScope(outreach.organization_id);
    const loads = new Map<string, AgentLoad>();
    for (const m of members) {
      const load = await agentLoadOf(this.db, m.organization_id, m.load_id);
      if (load) loads.set(m.load_id, load);
    }
    const { targets, named } = targetsOf(text, members, heard, loads);
    const lines: string[] = [];
    const decisions: string[] = [];
    let offerId: string | null = null;
    // Every load of a message is the same carrier's.
    const carrier = defined(
      await findCarrier(this.db, scope, outreach.carrier_id),
      'carrier of the outreach',
    );
    for (const t of targets) {
      const load = loads.get(t.member.load_id);
      if (!load) continue;
      if (t.available === false) {
        // Its no on this load: heard as a refusal, never as a yes to the agent's counter.
        const decision = await this.offers.hear(scope, {
          loadId: t.member.load_id,
          carrierId: t.member.carrier_id,
          said: 'declined',
        });
        decisions.push(decision.kind);
        lines.push(`Load ${load.load_number}: ${replyText('not_available', load, carrier.name)}`);
        continue;
      }
      const rate =
        t.rate ?? (t.available ? await counterOffered(this.db, t.member.load_id, t.member.carrier_id) : null);
      if (rate === null) continue;
      const outcome = await this.offers.receive(scope, {
        loadId: t.member.load_id,
        carrierId: t.member.carrier_id,
        amount: rate,
        channel,
        notes: heard.rate_basis === 'plus_fuel' ? 'plus fuel surcharge' : null,
        conversationId: t.member.conversation_id,
        emailMessageId: channel === 'email' ? theirMessageId : null,
      });
      offerId ??= outcome.offerId;
      decisions.push(outcome.decision.kind);
      const said = amountOf(outcome.decision) ?? outcome.amount;
      lines.push(replyText(outcome.decision.kind, load, carrier.name, said));
    }
    const numbers = members.map((m) => m.load_number ?? '');
    let intent = decisions[0] ?? 'ask_rate';
    if (lines.length === 0) {
      if (heard.available === false) {
        intent = 'not_available';
        // The refusal is the carrier's answer on each load of the message: no rate is asked again.
        for (const m of members)
          await this.offers.hear(scope, { loadId: m.load_id, carrierId: m.carrier_id, said: 'declined' });
        lines.push(
          replyText(
            'not_available',
            defined(loads.get(defined(members[0], 'members[0]').load_id), 'loads.get(members[0].load_id)'),
            '',
          ),
        );
      } else lines.push(bundledAskRate(numbers));
    } else if (!named && members.length > 1 && heard.rate !== null) {
      lines.push(bundledOthersNote(numbers.slice(1)));
    }
    const body = lines.join('\n');
    const first = loads.get(outreach.load_id) ?? defined([...loads.values()][0], '[...loads.values()][0]');
    const externalId = await this.messenger
      .deliver(outreach, first, body, theirMessageId, [...loads.values()])
      .catch((err) => {
        this.log.warn({ err, outreachId: outreach.id }, 'agent: reply could not be sent');
        return null;
      });
    for (const m of members) await this.messenger.record(m, 'outbound', intent, body, externalId);
    this.log.info(
      { carrierId: outreach.carrier_id, outreachId: outreach.id, loads: members.length, decisions },
      'agent: answer to a message about several loads',
    );
    return { offer_id: offerId, reason: decisions.length ? decisions.join(',') : intent };
  }
}
