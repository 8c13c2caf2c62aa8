import type { Db } from '../../db/client.js';
import { oneLane } from '../../domain/bundled-offers.js';
import { newId } from '../../domain/ids.js';
import type { EmailSender } from '../../integrations/email/email-channel.js';
import type { ChatModel } from '../../integrations/llm/chat-model.js';
import type { WhatsAppSender } from '../../integrations/whatsapp/whatsapp-channel.js';
import { defined } from '../../lib/defined.js';
import type { OutreachRow } from '../outreaches/index.js';
import { type AgentLoad, insertMessage } from './agent-repository.js';

export interface AgentChannels {
  email: EmailSender;
  whatsapp: WhatsAppSender;
  chatModel: ChatModel | null;
  emailFrom: string;
  replyDomain: string;
  whatsappTemplate: { name: string; language: string };
}

/** Puts the agent's messages on the e-mail and WhatsApp channels, and keeps every message of a conversation. */
export class AgentMessenger {
  constructor(
    private readonly db: Db,
    private readonly channels: AgentChannels,
  ) {}

  /**
   * Puts one message on the outreach's channel; returns the channel's message id. `loads`: every
   * load the message names (a message about several loads of one lane), for the subject.
   */
  async deliver(
    outreach: OutreachRow,
    load: AgentLoad,
    text: string,
    inReplyTo: string | null,
    loads: readonly AgentLoad[] = [load],
  ) {
    if (outreach.modality === 'email') {
      const messageId = `${newId('agentMessage')}@${this.channels.replyDomain}`;
      const sent = await this.channels.email.send({
        messageId,
        from: this.channels.emailFrom,
        to: defined(outreach.address, 'outreach.address'),
        replyTo: `reply+${outreach.conversation_id}@${this.channels.replyDomain}`,
        subject:
          loads.length === 1
            ? `Load ${load.load_number}: ${load.origin} to ${load.destination}`
            : `Loads ${loads.map((l) => l.load_number).join(', ')}${oneLane(loads) ? `: ${load.origin} to ${load.destination}` : ''}`,
        text,
        inReplyTo,
        outreachId: outreach.id,
      });
      return sent.messageId;
    }
    const sent = inReplyTo
      ? await this.channels.whatsapp.sendText(
          defined(outreach.address, 'outreach.address'),
          text,
          inReplyTo,
          {
            outreachId: outreach.id,
          },
        )
      : await this.channels.whatsapp.sendTemplate(
          defined(outreach.address, 'outreach.address'),
          { ...this.channels.whatsappTemplate, bodyParameters: [text] },
          { outreachId: outreach.id },
        );
    return sent.messageId;
  }

  /** Keeps one message of the outreach's conversation, either way. */
  async record(
    outreach: OutreachRow,
    direction: 'outbound' | 'inbound',
    intent: string | null,
    body: string,
    externalId: string | null,
  ) {
    await insertMessage(this.db, outreach, { direction, intent, body, externalId });
  }
}
