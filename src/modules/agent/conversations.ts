import type { FastifyBaseLogger } from 'fastify';
import type { DbOrTx } from '../../db/client.js';
import type { EmailDeliveryEvent } from '../../integrations/email/email-channel.js';
import type { Clock } from '../../lib/clock.js';
import {
  type ChannelModality,
  type OutreachRow,
  outreachOfConversation,
  outreachOnChannel,
  recentToAddress,
} from '../outreaches/index.js';
import { outreachOfMessages } from './agent-repository.js';

/** Finds the outreach a carrier's message or a channel's delivery event belongs to. */
export class Conversations {
  constructor(
    private readonly db: DbOrTx,
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
  ) {}

  /**
   * The outreach a reply belongs to: by our conversation id, then by the message it answers, then
   * the latest outreach on that channel to the sender's address (in the last 30 days, and only when
   * a single organization contacted that address).
   */
  async ofReply(
    modality: ChannelModality,
    key: { conversationId: string | null; messageIds: string[]; address: string },
  ): Promise<OutreachRow | null> {
    if (key.conversationId) {
      const row = await outreachOfConversation(this.db, key.conversationId);
      if (row) return row;
    }
    const byMessage = await outreachOfMessages(this.db, modality, key.messageIds);
    if (byMessage) return byMessage;
    return this.latestToAddress(modality, key.address, this.clock.now());
  }

  /**
   * The e-mail outreach a delivery event is about: by the id the platform echoes, else the
   * message id, else the address and the time (of a message that went out).
   */
  async ofEmailDelivery(e: EmailDeliveryEvent): Promise<OutreachRow | null> {
    if (e.outreachId) {
      const row = await outreachOnChannel(this.db, e.outreachId, 'email');
      if (row) return row;
    }
    const byMessage = await outreachOfMessages(this.db, 'email', e.messageId ? [e.messageId] : []);
    if (byMessage) return byMessage;
    return this.latestToAddress('email', e.email, e.at, true);
  }

  /** The outreach whose message, or a later one, carries this channel message id. */
  ofMessage(modality: ChannelModality, messageId: string): Promise<OutreachRow | null> {
    return outreachOfMessages(this.db, modality, [messageId]);
  }

  /**
   * The latest outreach on a channel to an address, started in the 30 days before `at` (with
   * `sentOnly`, one whose message went out), and only when a single organization contacted that
   * address then: several brokers may reach the same dispatcher, and an event must never land in
   * another organization's conversation.
   */
  private async latestToAddress(
    modality: ChannelModality,
    address: string,
    at: Date,
    sentOnly = false,
  ): Promise<OutreachRow | null> {
    const rows = await recentToAddress(this.db, modality, address, at, sentOnly);
    if (new Set(rows.map((r) => r.organization_id)).size > 1) {
      this.log.warn(
        { modality },
        'agent: an event matched by address alone belongs to several organizations; ignored',
      );
      return null;
    }
    return rows[0] ?? null;
  }
}
