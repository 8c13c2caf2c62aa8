import type { Config } from '../config.js';
import { defined } from '../lib/defined.js';
import type { EmailSender } from './email/email-channel.js';
import { SimulatedEmailSender } from './email/simulated-email-sender.js';
import { SmtpEmailSender } from './email/smtp-email-sender.js';
import type { ChatModel } from './llm/chat-model.js';
import { OpenAiCompatibleChatModel } from './llm/openai-compatible.js';
import { CloudApiWhatsAppSender } from './whatsapp/cloud-api-sender.js';
import { SimulatedWhatsAppSender } from './whatsapp/simulated-whatsapp-sender.js';
import type { WhatsAppSender } from './whatsapp/whatsapp-channel.js';

export interface Channels {
  email: EmailSender;
  whatsapp: WhatsAppSender;
  chatModel: ChatModel | null;
}

/** The configured channel adapters; the in-process simulations when nothing is configured. */
export function channelsFrom(config: Config): Channels {
  const { email, whatsapp, llm, simulationProfile } = config.channels;
  const speed = config.voice.simulationSpeed;
  return {
    email:
      email.transport === 'smtp'
        ? new SmtpEmailSender({ url: defined(email.smtpUrl, 'email.smtpUrl') })
        : new SimulatedEmailSender(speed, simulationProfile),
    whatsapp:
      whatsapp.provider === 'cloud_api'
        ? new CloudApiWhatsAppSender({
            baseUrl: whatsapp.baseUrl,
            accessToken: defined(whatsapp.accessToken, 'whatsapp.accessToken'),
            phoneNumberId: defined(whatsapp.phoneNumberId, 'whatsapp.phoneNumberId'),
          })
        : new SimulatedWhatsAppSender(speed, simulationProfile),
    chatModel: llm
      ? new OpenAiCompatibleChatModel({ baseUrl: llm.baseUrl, apiKey: llm.apiKey, model: llm.model })
      : null,
  };
}
