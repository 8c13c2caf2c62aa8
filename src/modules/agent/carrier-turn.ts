/**
 * A carrier's e-mail or WhatsApp message, handled once through one path: its conversation found,
 * the context loaded once (the loads the conversation offered, the carrier, the settings, where the
 * negotiation stands on each load, the offer gate's verdicts), the message read for each load, and
 * then, in ONE transaction, the provider's message id claimed (a repeat, concurrent ones included,
 * answers the first outcome and does nothing else), the message kept with its reading, a stop
 * request honoured, each load taken by the offer intake, and the answer queued in the outbox. The
 * answer is sent after the commit.
 */
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Db, DbOrTx } from '../../db/client.js';
import { runAgainOnCollision } from '../../db/pg-errors.js';
import { splitByLoadNumbers } from '../../domain/bundled-offers.js';
import { amountOf, intentOf, type ReplyIntent, replyText } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import type { ChatModel } from '../../integrations/llm/chat-model.js';
import { defined } from '../../lib/defined.js';
import { type CarrierRow, findCarrier, type StopContactRequests } from '../carriers/index.js';
import { lockLoads } from '../loads/index.js';
import { conversationOf, type OfferPolicyOf, type OfferReceiver } from '../offers/index.js';
import {
  claimReceipt,
  type GateVerdict,
  type OutreachRow,
  offerGate,
  outreachesOfConversation,
  receiptOutcome,
  recordReply,
  settleReceipt,
} from '../outreaches/index.js';
import type { AgentOutbox, Draft } from './agent-outbox.js';
import { agentLoadOf, insertMessage } from './agent-repository.js';
import { type AgentSettings, offerPolicyOf, readAgentSettings } from './agent-settings.js';
import { answerAboutLoad } from './load-facts.js';
import { readReply } from './reply-reading.js';
import { ownWords } from './reply-text.js';
import {
  bundledBody,
  keepInbound,
  type Line,
  type Member,
  type ModelReading,
  saidOf,
  sharedAnswers,
} from './turn-reading.js';

export interface InboundResult {
  status: 'ignored' | 'recorded' | 'replied' | 'restriction_notice';
  outreach_id: string | null;
  offer_id: string | null;
  reason: string | null;
}

const inboundResult = z.object({
  status: z.enum(['ignored', 'recorded', 'replied', 'restriction_notice']),
  outreach_id: z.string().nullable(),
  offer_id: z.string().nullable(),
  reason: z.string().nullable(),
});

/** The first outcome of a delivery handled already (none told of another organization's). */
const repeatOf = (stored: unknown): InboundResult => {
  const first = inboundResult.safeParse(stored);
  if (first.success) return first.data;
  return { status: 'ignored', outreach_id: null, offer_id: null, reason: 'a delivery handled already' };
};

/** A carrier's message as the channel delivered it. */
export interface CarrierMessage {
  /** The provider whose delivery id keys the receipt (`postmark`, `whatsapp`). */
  provider: string;
  /** The provider's id of the delivery, the same when it delivers the message again. */
  deliveryId: string | null;
  /** The message's own id, which the answer threads under. */
  messageId: string | null;
  text: string;
  channel: 'email' | 'messaging';
}

const OPEN: GateVerdict = { kind: 'open' };

export class CarrierTurns {
  constructor(
    private readonly db: Db,
    private readonly outbox: AgentOutbox,
    private readonly offers: OfferReceiver,
    private readonly stopContact: StopContactRequests,
    private readonly chatModel: ChatModel | null,
    private readonly log: FastifyBaseLogger,
  ) {}

  async take(outreach: OutreachRow, m: CarrierMessage): Promise<InboundResult> {
    const org = outreach.organization_id;
    const receipt = m.deliveryId;
    if (receipt) {
      // A repeat delivery: the first outcome, and nothing else.
      const first = inboundResult.safeParse(await receiptOutcome(this.db, m.provider, receipt, org));
      if (first.success) return first.data;
    }
    const scope = systemScope(org);
    const carrier = defined(
      await findCarrier(this.db, scope, outreach.carrier_id),
      'carrier of the outreach',
    );
    const settings = await readAgentSettings(this.db, org);
    const members = await this.membersOf(outreach, m.text);
    if (members.length === 0) {
      // Every load the conversation offered is gone (deleted): nothing to answer about.
      return { status: 'ignored', outreach_id: outreach.id, offer_id: null, reason: 'the loads are gone' };
    }
    const model = await this.modelReading(m.text, members);
    const policy = offerPolicyOf(settings);

    const done = await runAgainOnCollision(() =>
      this.db.transaction(async (tx) => {
        // The loads first, in one order, as a booking does before it touches their contacts: two
        // turns, or a turn and a booking, never hold each other's rows.
        await lockLoads(
          tx,
          members.map((x) => x.load.id),
        );
        if (receipt && !(await claimReceipt(tx, m.provider, receipt, org))) {
          // Claimed by a concurrent delivery, which has committed by now (the claim waited on it).
          return {
            result: repeatOf(await receiptOutcome(tx, m.provider, receipt, org)),
            outboxId: null,
          };
        }
        const turn = await this.decide(tx, outreach, carrier, settings, members, m, model, policy);
        if (receipt) await settleReceipt(tx, m.provider, receipt, turn.result, org);
        return turn;
      }),
    );
    if (done.outboxId)
      await this.outbox.flush(done.outboxId, { outreach, loads: members.map((x) => x.load) });
    return done.result;
  }

  /** The loads the conversation offered (one, or several named in one message), each read. */
  private async membersOf(outreach: OutreachRow, text: string): Promise<Member[]> {
    const rows = outreach.conversation_id
      ? await outreachesOfConversation(this.db, outreach.conversation_id, outreach.carrier_id)
      : [];
    const outreaches = rows.length ? rows : [outreach];
    const loaded: Omit<Member, 'reading' | 'figure'>[] = [];
    for (const o of outreaches) {
      const load = await agentLoadOf(this.db, o.organization_id, o.load_id);
      if (!load) continue;
      loaded.push({
        outreach: o,
        load,
        conversation: await conversationOf(this.db, o.load_id, o.carrier_id),
      });
    }
    const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);
    const numbers = loaded.map((l) => l.load.load_number);
    // Several loads and none named: an amount is the first load's only (a carrier with one truck).
    const { parts, rest } = splitByLoadNumbers(ownWords(text, numbers), numbers);
    const named = parts.length > 0;
    const figureIn = (number: string) => {
      const own = parts.find((p) => p.load_number.toLowerCase() === number.toLowerCase());
      return /\d{2,}/.test(own ? own.text : rest);
    };
    const read = loaded.map((l, i) => {
      const reading = readReply(text, {
        load_number: l.load.load_number,
        pickup_date: day(l.load.pickup_date),
        posted_rate: l.load.posted_rate,
        our_counter: l.conversation.lastCounter,
        confirm_amount: l.conversation.confirming,
        distance: l.load.distance,
        origin: l.load.origin,
        destination: l.load.destination,
        other_loads: loaded
          .filter((o) => o !== l)
          .map((o) => ({
            load_number: o.load.load_number,
            pickup_date: day(o.load.pickup_date),
            posted_rate: o.load.posted_rate,
            origin: o.load.origin,
            destination: o.load.destination,
          })),
      });
      const amountHere = loaded.length === 1 || named || i === 0;
      // The others hear the question again: the amount was not theirs, nor was the yes that came with it.
      const priced = reading.rate !== null || reading.tentative_rate !== null;
      const figure = figureIn(l.load.load_number);
      if (amountHere || !priced) return { ...l, reading, figure };
      return { ...l, figure, reading: { ...reading, rate: null, tentative_rate: null, available: null } };
    });
    return sharedAnswers(read, parts);
  }

  /** The chat model's reading of a one-load message, when one is configured (null otherwise). */
  private async modelReading(text: string, members: Member[]): Promise<ModelReading | null> {
    if (!this.chatModel || members.length !== 1) return null;
    try {
      const { extractWithModel } = await import('../../integrations/llm/reply-extraction.js');
      return await extractWithModel(this.chatModel, text);
    } catch (err) {
      this.log.warn({ err }, 'agent: the chat model could not read the reply');
      return null;
    }
  }

  private async decide(
    tx: DbOrTx,
    outreach: OutreachRow,
    carrier: CarrierRow,
    settings: AgentSettings,
    members: Member[],
    m: CarrierMessage,
    model: ModelReading | null,
    policy: OfferPolicyOf,
  ): Promise<{ result: InboundResult; outboxId: string | null }> {
    const scope = systemScope(outreach.organization_id);
    const first = defined(members[0], 'the conversation has a load');
    const disagreed = model !== null && model.rate !== first.reading.rate;
    await keepInbound(tx, outreach, members, m, model, disagreed);
    for (const x of members) await recordReply(tx, scope, x.outreach.id);
    const result = (
      status: InboundResult['status'],
      reason: string | null,
      offerId: string | null = null,
    ) => ({
      result: { status, outreach_id: outreach.id, offer_id: offerId, reason },
    });
    const language = first.reading.language;
    const say = (
      intent: ReplyIntent,
      body: string,
      amount: number | null = null,
      told: string | null = null,
    ) =>
      this.answer(tx, outreach, members, intent, told ? `${told}\n\n${body}` : body, m.messageId, {
        intent,
        amount,
        language,
        carrierName: carrier.name,
        told,
      });

    if (members.some((x) => x.reading.stop_contact) || model?.stop_contact) {
      // Always honoured, before anything else.
      await this.stopContact.request(scope, carrier.id, m.channel === 'email' ? 'email' : 'whatsapp', tx);
      const text = replyText('stop_confirmed', first.load, carrier.name, null, null, language);
      this.log.info(
        { carrierId: carrier.id, outreachId: outreach.id },
        'agent: carrier asked not to be contacted',
      );
      return { ...result('replied', 'stop_contact'), outboxId: await say('stop_confirmed', text) };
    }
    if (!carrier.is_active) {
      const status = carrier.tms_status?.trim().toLowerCase();
      if (
        !(
          settings.restriction_notices_enabled &&
          status &&
          settings.restriction_tms_statuses.includes(status)
        )
      )
        return { ...result('recorded', 'inactive'), outboxId: null };
      const text = replyText(
        'restriction_notice',
        first.load,
        carrier.name,
        null,
        carrier.tms_status,
        language,
      );
      return { ...result('restriction_notice', null), outboxId: await say('restriction_notice', text) };
    }

    const taken = await this.takeLoads(tx, carrier, members, m, disagreed ? model : null, policy);
    const reason = taken.reasons.join(',') || null;
    if (taken.lines.length === 0) return { ...result('recorded', taken.reasons[0] ?? null), outboxId: null };
    // A carrier held for vetting hears nothing about the load beyond the hold.
    const held = taken.lines.some((l) => l.intent === 'vetting_pending');
    const told =
      first.reading.available === false || held
        ? null
        : await answerAboutLoad(tx, outreach.organization_id, first.load.id, first.reading.questions);
    const [only, ...more] = taken.lines;
    if (only && more.length === 0) {
      const outboxId = await say(only.intent, only.text, only.amount, told);
      return { ...result('replied', reason, taken.offerId), outboxId };
    }
    const body = bundledBody(taken.lines);
    const intent = taken.lines[0]?.intent ?? 'ask_rate';
    const outboxId = await this.answer(
      tx,
      outreach,
      members,
      intent,
      told ? `${told}\n\n${body}` : body,
      m.messageId,
      null,
    );
    return { ...result('replied', reason, taken.offerId), outboxId };
  }

  /** Each load through the gate and the offer intake; the line the carrier hears about each. */
  private async takeLoads(
    tx: DbOrTx,
    carrier: CarrierRow,
    members: Member[],
    m: CarrierMessage,
    disagreeing: ModelReading | null,
    policy: OfferPolicyOf,
  ) {
    const scope = systemScope(carrier.organization_id);
    const language = defined(members[0], 'the conversation has a load').reading.language;
    const gate = await offerGate(
      tx,
      scope,
      carrier.id,
      members.map((x) => x.load.id),
    );
    const lines: Line[] = [];
    let offerId: string | null = null;
    const reasons: string[] = [];
    for (const x of members) {
      const verdict = gate.get(x.load.id) ?? OPEN;
      if (verdict.kind === 'refused') {
        // Refused by the contact guard: kept, and not answered about this load.
        reasons.push(verdict.reason);
        continue;
      }
      const outcome = await this.offers.take(tx, scope, policy, {
        loadId: x.load.id,
        carrierId: carrier.id,
        said: saidOf(x, members.length === 1 ? disagreeing : null),
        verdict,
        channel: m.channel,
        conversationId: x.outreach.conversation_id,
        emailMessageId: m.channel === 'email' ? m.messageId : null,
        notes: x.reading.rate_basis === 'plus_fuel' ? 'plus fuel surcharge' : null,
        carrierPassed: carrier.compliance_status === 'PASSED' && (carrier.risk_level ?? 'low') === 'low',
      });
      offerId ??= outcome.offerId;
      const intent = intentOf(outcome.decision);
      reasons.push(intent);
      const amount = amountOf(outcome.decision) ?? outcome.amount;
      lines.push({
        member: x,
        intent,
        amount,
        text: replyText(intent, x.load, carrier.name, amount, null, language),
      });
    }
    return { lines, offerId, reasons };
  }

  /** The answer kept on each load's conversation and queued for sending after the commit. */
  private async answer(
    tx: DbOrTx,
    outreach: OutreachRow,
    members: Member[],
    intent: ReplyIntent,
    body: string,
    inReplyTo: string | null,
    draft: Draft | null,
  ): Promise<string> {
    const messageIds: string[] = [];
    for (const x of members) {
      messageIds.push(
        await insertMessage(tx, x.outreach, { direction: 'outbound', intent, body, externalId: null }),
      );
    }
    return this.outbox.queue(tx, {
      organizationId: outreach.organization_id,
      outreachId: outreach.id,
      loadIds: members.map((x) => x.load.id),
      messageIds,
      body,
      inReplyTo,
      draft,
    });
  }
}
