import { randomUUID } from 'node:crypto';
import {
  chance,
  SimulatedReplies,
  type SimulationProfile,
  simulatedCarrierReply,
} from '../simulated-carrier.js';
import type { InboundWhatsApp, SentWhatsApp, WhatsAppSender, WhatsAppTemplate } from './whatsapp-channel.js';

/** The text a template renders to: its parameters joined, as the approved body would read. */
export const renderTemplate = (t: WhatsAppTemplate) => t.bodyParameters.join(' ');

/**
 * WhatsApp in process: the default when no Cloud API number is configured. Messages are kept
 * (`sent`); the simulated carrier answers at the sink as the webhook would deliver it.
 */
export class SimulatedWhatsAppSender implements WhatsAppSender {
  readonly name = 'simulated';
  readonly sent: { to: string; text: string; messageId: string }[] = [];
  private readonly replies = new SimulatedReplies<InboundWhatsApp>();

  constructor(
    private readonly speed: number,
    private readonly profile: SimulationProfile,
  ) {}

  attach(sink: (message: InboundWhatsApp) => Promise<unknown>) {
    this.replies.attach(sink);
  }

  async sendTemplate(to: string, template: WhatsAppTemplate): Promise<SentWhatsApp> {
    return this.deliver(to, renderTemplate(template));
  }

  async sendText(to: string, text: string): Promise<SentWhatsApp> {
    return this.deliver(to, text);
  }

  private deliver(to: string, text: string): SentWhatsApp {
    const messageId = `wamid.SIM${randomUUID().replace(/-/g, '')}`;
    this.sent.push({ to, text, messageId });
    const reply = simulatedCarrierReply(messageId, text, this.profile);
    if (reply !== null) {
      this.replies.after((1000 + chance(messageId, 'delay') * 5000) / this.speed, () => ({
        from: to,
        profileName: null,
        messageId: `wamid.SIMIN${randomUUID().replace(/-/g, '')}`,
        contextMessageId: messageId,
        text: reply,
        receivedAt: new Date(),
      }));
    }
    return { messageId };
  }

  close() {
    return this.replies.close();
  }
}
