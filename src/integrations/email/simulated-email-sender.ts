import type { SimulatedMarket } from '../simulation/market.js';
import type { EmailSender, OutboundEmail, SentEmail } from './email-channel.js';

/**
 * E-mail in process: the default when no SMTP server is configured. Every message is kept (`sent`);
 * one to a carrier goes to the simulated market, whose carrier answers later on the product clock
 * through the inbound e-mail webhook's handler, as a Postmark payload.
 */
export class SimulatedEmailSender implements EmailSender {
  readonly name = 'simulated';
  readonly sent: OutboundEmail[] = [];

  constructor(private readonly market: SimulatedMarket | null) {}

  async send(email: OutboundEmail): Promise<SentEmail> {
    this.sent.push(email);
    this.market?.onEmail(email);
    return { messageId: email.messageId };
  }

  async close() {}
}
