import type { SimulationProfile } from '../simulated-carrier.js';
import { chance, simulatedCarrierReply } from '../simulated-carrier.js';
import type { EmailSender, InboundEmail, OutboundEmail, SentEmail } from './email-channel.js';

/**
 * E-mail in process: the default when no SMTP server is configured. Every message is kept (`sent`),
 * and the simulated carrier's answer arrives a few seconds later (divided by `speed`) at the sink,
 * shaped as the inbound-parse webhook would deliver it.
 */
export class SimulatedEmailSender implements EmailSender {
  readonly name = 'simulated';
  readonly sent: OutboundEmail[] = [];
  private sink: ((email: InboundEmail) => Promise<void>) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Replies being handled: close() waits for them, so none outlives the database. */
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly speed: number,
    private readonly profile: SimulationProfile,
  ) {}

  attach(sink: (email: InboundEmail) => Promise<void>) {
    this.sink = sink;
  }

  async send(email: OutboundEmail): Promise<SentEmail> {
    this.sent.push(email);
    const reply = simulatedCarrierReply(email.messageId, email.text, this.profile);
    if (reply !== null) {
      const delay = (2000 + chance(email.messageId, 'delay') * 6000) / this.speed;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        const hash = /\+([^@]+)@/.exec(email.replyTo)?.[1] ?? null;
        this.handOver({
          from: email.to.toLowerCase(),
          fromName: null,
          to: [email.replyTo.toLowerCase()],
          mailboxHash: hash,
          subject: `Re: ${email.subject}`,
          text: reply,
          inReplyTo: email.messageId,
          references: [email.messageId],
          messageId: `sim-${email.messageId}`,
          receivedAt: new Date(),
        });
      }, delay);
      this.timers.add(timer);
    }
    return { messageId: email.messageId };
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
