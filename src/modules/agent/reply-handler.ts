import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { amountOf, type ReplyIntent, replyText } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import type { EmailDeliveryEvent, InboundEmail } from '../../integrations/email/email-channel.js';
import type { ChatModel } from '../../integrations/llm/chat-model.js';
import type { DraftIntent } from '../../integrations/llm/reply-extraction.js';
import type { InboundWhatsApp } from '../../integrations/whatsapp/whatsapp-channel.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import { findCarrier, heldByStrictMode, type StopContactRequests } from '../carriers/index.js';
import { counterOffered, type OfferReceiver } from '../offers/index.js';
import { markUndelivered, type OutreachRow, recordReply } from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import { agentLoadOf } from './agent-repository.js';
import { readAgentSettings } from './agent-settings.js';
import { BundleReplies, bundleText, conversationOutreaches } from './bundle-replies.js';
import { Conversations } from './conversations.js';
import { answerAboutLoad } from './load-facts.js';
import { understandReply } from './reply-understanding.js';

/** What became of a bounce, spam complaint or subscription change. */
export interface DeliveryResult {
  status: 'bounce_recorded' | 'stop_contact_recorded' | 'ignored';
  record_type: string;
  outreach_id: string | null;
  carrier_id: string | null;
  reason: string | null;
}

export interface InboundResult {
  status: 'ignored' | 'recorded' | 'replied' | 'restriction_notice';
  outreach_id: string | null;
  offer_id: string | null;
  reason: string | null;
}

type ReplyChannel = 'email' | 'messaging';

/** The intents the chat model drafts wording of their own for; the others get its plain thanks. */
const DRAFTED: Partial<Record<ReplyIntent, DraftIntent>> = {
  counter: 'counter',
  final: 'counter',
  pass: 'decline',
  decline: 'decline',
  ask_rate: 'ask_rate',
  restriction_notice: 'restriction_notice',
};

/**
 * Carriers' replies and the channels' delivery events: each is matched to its conversation,
 * read (the reply extractor, the chat model when one is configured), and answered through the
 * offers module's one negotiation rule and the carriers module's one stop-contact rule.
 */
export class ReplyHandler {
  private readonly conversations: Conversations;
  private readonly bundles: BundleReplies;

  constructor(
    private readonly db: Db,
    private readonly messenger: AgentMessenger,
    private readonly offers: OfferReceiver,
    private readonly stopContact: StopContactRequests,
    private readonly chatModel: ChatModel | null,
    private readonly log: FastifyBaseLogger,
    clock: Clock,
  ) {
    this.conversations = new Conversations(db, log, clock);
    this.bundles = new BundleReplies(db, messenger, offers, log);
  }

  /** A reply e-mail from the inbound-parse webhook (or the simulation). */
  async onInboundEmail(email: InboundEmail): Promise<InboundResult> {
    const outreach = await this.conversations.ofReply('email', {
      conversationId: email.mailboxHash,
      messageIds: [email.inReplyTo, ...email.references].filter((x): x is string => !!x),
      address: email.from,
    });
    if (!outreach) return ignored('no conversation matches the reply');
    await this.messenger.record(outreach, 'inbound', null, email.text, email.messageId);
    const carrier = defined(
      await findCarrier(this.db, systemScope(outreach.organization_id), outreach.carrier_id),
      'carrier of the outreach',
    );
    const settings = await readAgentSettings(this.db, outreach.organization_id);
    const ids = { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    if (!carrier.is_active) {
      const status = carrier.tms_status?.trim().toLowerCase();
      if (
        settings.restriction_notices_enabled &&
        status &&
        settings.restriction_tms_statuses.includes(status)
      ) {
        await this.answer(outreach, 'restriction_notice', null, email.messageId, carrier.tms_status);
        this.log.info(ids, 'agent: restriction notice sent to an inactive carrier');
        return { status: 'restriction_notice', outreach_id: outreach.id, offer_id: null, reason: null };
      }
      this.log.info(ids, 'agent: reply from an inactive carrier recorded, not answered');
      return recordedOnly(outreach.id);
    }
    return this.understand(outreach, email.text, email.messageId, 'email');
  }

  /**
   * What the e-mail platform reports after a message left: a bounce stamps `delivery_failed_at`;
   * a spam complaint or an unsubscribe is the carrier asking to stop, honoured like a "stop" reply
   * (without an answer: nothing more is sent to that address).
   */
  async onEmailDelivery(e: EmailDeliveryEvent): Promise<DeliveryResult> {
    const result = (status: DeliveryResult['status'], row: OutreachRow | null, reason: string | null) => ({
      status,
      record_type: e.recordType,
      outreach_id: row?.id ?? null,
      carrier_id: row?.carrier_id ?? null,
      reason,
    });
    if (e.type === 'notice') return result('ignored', null, `not a failure or a stop request: ${e.reason}`);
    const outreach = await this.conversations.ofEmailDelivery(e);
    if (!outreach) return result('ignored', null, 'no e-mail outreach matches');
    if (e.type === 'bounce') {
      await this.undelivered(outreach, e.reason, e.at);
      return result('bounce_recorded', outreach, null);
    }
    const spam = e.type === 'spam_complaint';
    const said = spam ? `Marked our e-mail as spam (${e.reason})` : `Unsubscribed (${e.reason})`;
    await this.messenger.record(outreach, 'inbound', e.type, said, null);
    const scope = systemScope(outreach.organization_id);
    await this.stopContact.request(scope, outreach.carrier_id, spam ? 'spam_complaint' : 'unsubscribe');
    this.log.info(
      { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id, event: e.type },
      'agent: carrier asked not to be e-mailed; stop-contact stamped',
    );
    return result('stop_contact_recorded', outreach, e.type);
  }

  /** A WhatsApp delivery failure: the message never reached the carrier. */
  async onWhatsAppFailure(messageId: string, reason: string, at: Date) {
    const outreach = await this.conversations.ofMessage('whatsapp', messageId);
    if (outreach) await this.undelivered(outreach, reason, at);
    return outreach;
  }

  /** A WhatsApp message from the Cloud API webhook (or the simulation). */
  async onInboundWhatsApp(message: InboundWhatsApp): Promise<InboundResult> {
    const outreach = await this.conversations.ofReply('whatsapp', {
      conversationId: null,
      messageIds: message.contextMessageId ? [message.contextMessageId] : [],
      address: message.from,
    });
    if (!outreach) return ignored('no conversation matches the message');
    await this.messenger.record(outreach, 'inbound', null, message.text, message.messageId);
    const carrier = await findCarrier(this.db, systemScope(outreach.organization_id), outreach.carrier_id);
    if (!defined(carrier, 'carrier of the outreach').is_active) return recordedOnly(outreach.id);
    return this.understand(outreach, message.text, message.messageId, 'messaging');
  }

  /** Stamps `delivery_failed_at` on an outreach whose message never arrived; `status` stays as it is. */
  private async undelivered(outreach: OutreachRow, reason: string, at: Date) {
    await markUndelivered(this.db, outreach.id, reason, at);
    this.log.info(
      {
        loadId: outreach.load_id,
        carrierId: outreach.carrier_id,
        outreachId: outreach.id,
        modality: outreach.modality,
      },
      'agent: message not delivered',
    );
  }

  /** What the carrier said, and the agent's answer: stop, an offer, a question for a rate. */
  private async understand(
    outreach: OutreachRow,
    text: string,
    theirMessageId: string | null,
    channel: ReplyChannel,
  ): Promise<InboundResult> {
    const scope = systemScope(outreach.organization_id);
    const ids = { loadId: outreach.load_id, carrierId: outreach.carrier_id, outreachId: outreach.id };
    await recordReply(this.db, scope, outreach.id);
    const load = defined(
      await agentLoadOf(this.db, outreach.organization_id, outreach.load_id),
      'load of the outreach',
    );
    // A message that named several loads: read without its load numbers, answered per load. The
    // carrier answered every load the conversation offered, whatever the answer turns out to be.
    const members = await conversationOutreaches(this.db, outreach);
    for (const m of members) if (m.id !== outreach.id) await recordReply(this.db, scope, m.id);
    const heard = await this.heard(members.length > 1 ? bundleText(text, members) : text, load.distance, ids);
    if (heard.stop_contact) {
      await this.stopContact.request(scope, outreach.carrier_id, channel === 'email' ? 'email' : 'whatsapp');
      await this.answer(outreach, 'stop_confirmed', null, theirMessageId);
      this.log.info(ids, 'agent: carrier asked not to be contacted; stamped and withdrawn');
      return { status: 'replied', outreach_id: outreach.id, offer_id: null, reason: 'stop_contact' };
    }
    if (await this.heldByStrictMode(outreach)) {
      // Strict mode: the carrier has not passed vetting, so no offer is taken and no detail shared.
      await this.hold(outreach, theirMessageId);
      this.log.info(ids, 'agent: reply held by strict mode (carrier not vetted)');
      return { status: 'replied', outreach_id: outreach.id, offer_id: null, reason: 'vetting_pending' };
    }
    if (members.length > 1) {
      const bundled = await this.bundles.answer(outreach, members, text, heard, theirMessageId, channel);
      return { status: 'replied', outreach_id: outreach.id, ...bundled };
    }
    // A question about the load ("what's the weight?") is answered from its sayable facts, ahead of the reply.
    const told =
      heard.available === false
        ? null
        : await answerAboutLoad(this.db, outreach.organization_id, outreach.load_id, heard.questions);
    let rate = heard.rate;
    if (rate === null && heard.available === true) {
      // "Yes, that works" after our counter-offer: the carrier takes the countered amount.
      rate = await counterOffered(this.db, outreach.load_id, outreach.carrier_id);
    }
    if (rate !== null) {
      const { offerId, decision, amount } = await this.offers.receive(scope, {
        loadId: outreach.load_id,
        carrierId: outreach.carrier_id,
        amount: rate,
        channel,
        notes: heard.rate_basis === 'plus_fuel' ? 'plus fuel surcharge' : null,
        conversationId: outreach.conversation_id,
        emailMessageId: channel === 'email' ? theirMessageId : null,
      });
      await this.answer(outreach, decision.kind, amountOf(decision) ?? amount, theirMessageId, null, told);
      return { status: 'replied', outreach_id: outreach.id, offer_id: offerId, reason: decision.kind };
    }
    // No rate: a refusal, or the standing answer (a question for a rate only if none was quoted).
    const decision = await this.offers.hear(scope, {
      loadId: outreach.load_id,
      carrierId: outreach.carrier_id,
      said: heard.available === false ? 'declined' : 'no_rate',
    });
    await this.answer(outreach, decision.kind, amountOf(decision), theirMessageId, null, told);
    this.log.info(
      { ...ids, intent: decision.kind, questions: heard.questions },
      'agent: reply without a rate',
    );
    return { status: 'replied', outreach_id: outreach.id, offer_id: null, reason: decision.kind };
  }

  /** Strict mode is on and the carrier has not passed (compliance PASSED, risk not high). */
  private async heldByStrictMode(outreach: OutreachRow) {
    const c = defined(
      await findCarrier(this.db, systemScope(outreach.organization_id), outreach.carrier_id),
      'carrier of the outreach',
    );
    return heldByStrictMode(this.db, c);
  }

  /** The holding answer: the lane, dates and equipment only, and that a rep follows up after vetting. */
  private async hold(outreach: OutreachRow, theirMessageId: string | null) {
    const load = defined(
      await agentLoadOf(this.db, outreach.organization_id, outreach.load_id),
      'load of the outreach',
    );
    const text =
      `Thanks for your reply about load ${load.load_number} (${load.origin} to ${load.destination}, ${load.equipment_type}). ` +
      'Before we can discuss rates or take an offer we need to finish verifying your company; a rep will follow up with you.';
    const externalId = await this.messenger.deliver(outreach, load, text, theirMessageId).catch((err) => {
      this.log.warn({ err, outreachId: outreach.id }, 'agent: reply could not be sent');
      return null;
    });
    await this.messenger.record(outreach, 'outbound', 'vetting_pending', text, externalId);
  }

  /** The reply read by the rules, and by the chat model when the rules found nothing. */
  private async heard(text: string, distance: number | null, ids: Record<string, string>) {
    const heard = understandReply(text, { distance });
    const read =
      heard.rate !== null || heard.available !== null || heard.stop_contact || heard.questions.length > 0;
    if (!this.chatModel || read) return heard;
    try {
      const { extractWithModel } = await import('../../integrations/llm/reply-extraction.js');
      return { ...heard, ...(await extractWithModel(this.chatModel, text)) };
    } catch (err) {
      this.log.warn({ err, ...ids }, 'agent: the chat model could not read the reply');
      return heard;
    }
  }

  private async answer(
    outreach: OutreachRow,
    intent: ReplyIntent,
    amount: number | null,
    theirMessageId: string | null,
    detail?: string | null,
    /** Answers to the carrier's questions, said before the reply. */
    told?: string | null,
  ) {
    const load = defined(
      await agentLoadOf(this.db, outreach.organization_id, outreach.load_id),
      'load of the outreach',
    );
    const carrier = defined(
      await findCarrier(this.db, systemScope(outreach.organization_id), outreach.carrier_id),
      'carrier of the outreach',
    );
    let text = replyText(intent, load, carrier.name, amount, detail);
    if (this.chatModel) {
      try {
        const { draftReply } = await import('../../integrations/llm/reply-extraction.js');
        const drafted = await draftReply(this.chatModel, {
          carrierName: carrier.name,
          loadSummary: `load ${load.load_number}: ${load.origin} to ${load.destination}, ${load.equipment_type}`,
          intent: DRAFTED[intent] ?? 'thanks',
          ...(amount !== null ? { amount } : {}),
        });
        if (drafted) text = drafted;
      } catch (err) {
        this.log.warn(
          { err, outreachId: outreach.id },
          'agent: the chat model could not draft; default wording sent',
        );
      }
    }
    if (told) text = `${told}\n\n${text}`;
    const externalId = await this.messenger.deliver(outreach, load, text, theirMessageId).catch((err) => {
      this.log.warn({ err, outreachId: outreach.id }, 'agent: reply could not be sent');
      return null;
    });
    await this.messenger.record(outreach, 'outbound', intent, text, externalId);
  }
}

const recordedOnly = (outreachId: string): InboundResult => ({
  status: 'recorded',
  outreach_id: outreachId,
  offer_id: null,
  reason: 'the carrier is disabled',
});
const ignored = (reason: string): InboundResult => ({
  status: 'ignored',
  outreach_id: null,
  offer_id: null,
  reason,
});
