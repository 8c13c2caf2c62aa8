import type { Config } from '../config.js';
import type { Clock } from '../lib/clock.js';
import { defined } from '../lib/defined.js';
import type { EmailSender } from './email/email-channel.js';
import { SimulatedEmailSender } from './email/simulated-email-sender.js';
import { SmtpEmailSender } from './email/smtp-email-sender.js';
import type { ChatModel } from './llm/chat-model.js';
import { OpenAiCompatibleChatModel } from './llm/openai-compatible.js';
import { CarrierModel } from './simulation/carrier-model.js';
import { type MarketDirectory, SimulatedMarket } from './simulation/market.js';
import { CloudApiWhatsAppSender } from './whatsapp/cloud-api-sender.js';
import { SimulatedWhatsAppSender } from './whatsapp/simulated-whatsapp-sender.js';
import type { WhatsAppSender } from './whatsapp/whatsapp-channel.js';

export interface Channels {
  email: EmailSender;
  whatsapp: WhatsAppSender;
  chatModel: ChatModel | null;
}

/** The configured channel adapters; the in-process simulations (on `market`) when nothing is configured. */
export function channelsFrom(config: Config, market: SimulatedMarket | null): Channels {
  const { email, whatsapp, llm } = config.channels;
  return {
    email:
      email.transport === 'smtp'
        ? new SmtpEmailSender({ url: defined(email.smtpUrl, 'email.smtpUrl') })
        : new SimulatedEmailSender(market),
    whatsapp:
      whatsapp.provider === 'cloud_api'
        ? new CloudApiWhatsAppSender({
            baseUrl: whatsapp.baseUrl,
            accessToken: defined(whatsapp.accessToken, 'whatsapp.accessToken'),
            phoneNumberId: defined(whatsapp.phoneNumberId, 'whatsapp.phoneNumberId'),
          })
        : new SimulatedWhatsAppSender(market),
    chatModel: llm
      ? new OpenAiCompatibleChatModel({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model })
      : null,
  };
}

/**
 * The simulated market the in-process providers play, on the product clock; null when every
 * carrier-facing channel is a real one.
 */
export function simulatedMarketFrom(
  config: Config,
  clock: Clock,
  directory: MarketDirectory,
): SimulatedMarket | null {
  const real =
    config.voice.provider === 'vapi' &&
    config.channels.email.transport === 'smtp' &&
    config.channels.whatsapp.provider === 'cloud_api';
  if (real) return null;
  return new SimulatedMarket(
    new CarrierModel(config.simulation.seed, config.simulation.profile),
    clock,
    directory,
  );
}
