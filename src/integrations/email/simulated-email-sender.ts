import {
  chance,
  SimulatedReplies,
  type SimulationProfile,
  simulatedCarrierReply,
} from '../simulated-carrier.js';
import type { EmailSender, InboundEmail, OutboundEmail, SentEmail } from './email-channel.js';

/**
 * E-mail in process: the default when no SMTP server is configured. Every message is kept (`sent`),
 * and to an outreach the simulated carrier's answer arrives a few seconds later (divided by
 * `speed`) at the sink, shaped as the inbound-parse webhook would deliver it.
 */
export class SimulatedEmailSender implements EmailSender {
  readonly name = 'simulated';
  readonly sent: OutboundEmail[] = [];
  private readonly replies = new SimulatedReplies<InboundEmail>();

  constructor(
    private readonly speed: number,
    private readonly profile: SimulationProfile,
  ) {}

  attach(sink: (email: InboundEmail) => Promise<unknown>) {
    this.replies.attach(sink);
  }

  async send(email: OutboundEmail): Promise<SentEmail> {
    this.sent.push(email);
    // Only a carrier answers, and only an outreach goes to a carrier: an invitation or any other
    // message without an outreach gets no simulated reply.
    if (!email.outreachId) return { messageId: email.messageId };
    const reply = simulatedCarrierReply(email.messageId, email.text, this.profile);
    if (reply !== null) {
      this.replies.after((2000 + chance(email.messageId, 'delay') * 6000) / this.speed, () => ({
        from: email.to.toLowerCase(),
        fromName: null,
        to: [email.replyTo.toLowerCase()],
        mailboxHash: /\+([^@]+)@/.exec(email.replyTo)?.[1] ?? null,
        subject: `Re: ${email.subject}`,
        text: reply,
        inReplyTo: email.messageId,
        references: [email.messageId],
        messageId: `sim-${email.messageId}`,
        receivedAt: new Date(),
      }));
    }
    return { messageId: email.messageId };
  }

  close() {
    return this.replies.close();
  }
}
