import { randomUUID } from 'node:crypto';
import type { SimulatedMarket } from '../simulation/market.js';
import type { SendContext, SentWhatsApp, WhatsAppSender, WhatsAppTemplate } from './whatsapp-channel.js';

/** The text a template renders to: its parameters joined, as the approved body would read. */
export const renderTemplate = (t: WhatsAppTemplate) => t.bodyParameters.join(' ');

/**
 * WhatsApp in process: the default when no Cloud API number is configured. Messages are kept
 * (`sent`); one to a carrier goes to the simulated market, whose carrier answers through the
 * WhatsApp webhook's handler, as a Cloud API payload.
 */
export class SimulatedWhatsAppSender implements WhatsAppSender {
  readonly name = 'simulated';
  readonly sent: { to: string; text: string; messageId: string }[] = [];

  constructor(private readonly market: SimulatedMarket | null) {}

  async sendTemplate(to: string, template: WhatsAppTemplate, context?: SendContext): Promise<SentWhatsApp> {
    return this.deliver(to, renderTemplate(template), true, context);
  }

  async sendText(
    to: string,
    text: string,
    _replyTo?: string | null,
    context?: SendContext,
  ): Promise<SentWhatsApp> {
    return this.deliver(to, text, false, context);
  }

  private deliver(to: string, text: string, first: boolean, context: SendContext | undefined): SentWhatsApp {
    const messageId = `wamid.SIM${randomUUID().replace(/-/g, '')}`;
    this.sent.push({ to, text, messageId });
    this.market?.onWhatsApp(to, text, messageId, first, context?.outreachId ?? null);
    return { messageId };
  }

  async close() {}
}
