import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { systemScope } from '../../domain/scope.js';
import type { EmailDeliveryEvent, InboundEmail } from '../../integrations/email/email-channel.js';
import type { InboundWhatsApp } from '../../integrations/whatsapp/whatsapp-channel.js';
import type { Clock } from '../../lib/clock.js';
import type { StopContactRequests } from '../carriers/index.js';
import { markUndelivered, type OutreachRow } from '../outreaches/index.js';
import type { AgentMessenger } from './agent-messenger.js';
import type { CarrierTurns, InboundResult } from './carrier-turn.js';
import { Conversations } from './conversations.js';

export type { InboundResult } from './carrier-turn.js';

/** What became of a bounce, spam complaint or subscription change. */
export interface DeliveryResult {
  status: 'bounce_recorded' | 'stop_contact_recorded' | 'ignored';
  record_type: string;
  outreach_id: string | null;
  carrier_id: string | null;
  reason: string | null;
}

/**
 * Carriers' replies and the channels' delivery events: each is matched to its conversation; a
 * reply is the carrier's turn (carrier-turn.ts), a spam complaint or an unsubscribe the carriers
 * module's one stop-contact rule, a bounce a stamp on the outreach.
 */
export class ReplyHandler {
  private readonly conversations: Conversations;

  constructor(
    private readonly db: Db,
    private readonly messenger: AgentMessenger,
    private readonly turns: CarrierTurns,
    private readonly stopContact: StopContactRequests,
    private readonly log: FastifyBaseLogger,
    clock: Clock,
  ) {
    this.conversations = new Conversations(db, log, clock);
  }

  /** A reply e-mail from the inbound-parse webhook (or the simulation). */
  async onInboundEmail(email: InboundEmail): Promise<InboundResult> {
    const outreach = await this.conversations.ofReply('email', {
      conversationId: email.mailboxHash,
      messageIds: [email.inReplyTo, ...email.references].filter((x): x is string => !!x),
      address: email.from,
    });
    if (!outreach) return ignored('no conversation matches the reply');
    return this.turns.take(outreach, {
      provider: 'postmark',
      deliveryId: email.deliveryId,
      messageId: email.messageId,
      text: email.text,
      channel: 'email',
    });
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
    return this.turns.take(outreach, {
      provider: 'whatsapp',
      deliveryId: message.messageId,
      messageId: message.messageId,
      text: message.text,
      channel: 'messaging',
    });
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
}

const ignored = (reason: string): InboundResult => ({
  status: 'ignored',
  outreach_id: null,
  offer_id: null,
  reason,
});
