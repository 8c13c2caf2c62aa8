import { randomUUID } from 'node:crypto';
import type { SimulationProfile } from '../simulated-carrier.js';
import { chance, simulatedCarrierReply } from '../simulated-carrier.js';
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
  private sink: ((message: InboundWhatsApp) => Promise<void>) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Replies being handled: close() waits for them, so none outlives the database. */
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly speed: number,
    private readonly profile: SimulationProfile,
  ) {}

  attach(sink: (message: InboundWhatsApp) => Promise<void>) {
    this.sink = sink;
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
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.handOver({
            from: to,
            profileName: null,
            messageId: `wamid.SIMIN${randomUUID().replace(/-/g, '')}`,
            contextMessageId: messageId,
            text: reply,
            receivedAt: new Date(),
          });
        },
        (1000 + chance(messageId, 'delay') * 5000) / this.speed,
      );
      this.timers.add(timer);
    }
    return { messageId };
  }

  private handOver(message: Parameters<NonNullable<typeof this.sink>>[0]) {
    if (this.closed || !this.sink) return;
    const done = this.sink(message)
      .catch(() => {})
      .finally(() => this.inflight.delete(done));
    this.inflight.add(done);
  }

  async close() {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.inflight);
  }
}
