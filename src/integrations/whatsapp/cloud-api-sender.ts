import { errorName } from '../../lib/error-text.js';
import { objectOf, objectsOf } from '../../lib/json-object.js';
import type { SentWhatsApp, WhatsAppSender, WhatsAppTemplate } from './whatsapp-channel.js';

export interface CloudApiSenderOptions {
  /** Graph API root with its version; overridable for tests and version upgrades. */
  baseUrl?: string;
  accessToken: string;
  phoneNumberId: string;
  timeoutMs?: number;
}

/** A refused or failed send; `code` is the Graph error code when Graph gave one (e.g. 131047). */
export class WhatsAppSendError extends Error {
  override name = 'WhatsAppSendError';
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly code: number | null = null,
    readonly subcode: number | null = null,
  ) {
    super(message);
  }
}

const MAX_TEXT = 4096; // the Cloud API's limit for a text message body

/** `+1 (555) 123-4567` -> `15551234567`: the Cloud API takes digits without the plus. */
export function toWaId(e164: string): string {
  const digits = e164.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15)
    throw new WhatsAppSendError('The recipient is not an E.164 number');
  return digits;
}

/** Sends through the WhatsApp Cloud API (`POST /{phone-number-id}/messages`). */
export class CloudApiWhatsAppSender implements WhatsAppSender {
  readonly name = 'whatsapp_cloud_api';
  private readonly baseUrl: string;

  constructor(private readonly options: CloudApiSenderOptions) {
    this.baseUrl = (options.baseUrl ?? 'https://graph.facebook.com/v21.0').replace(/\/+$/, '');
  }

  async sendTemplate(to: string, template: WhatsAppTemplate): Promise<SentWhatsApp> {
    return this.post({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: toWaId(to),
      type: 'template',
      template: {
        name: template.name,
        language: { code: template.language },
        // A template without variables takes no body component.
        ...(template.bodyParameters.length
          ? {
              components: [
                { type: 'body', parameters: template.bodyParameters.map((text) => ({ type: 'text', text })) },
              ],
            }
          : {}),
      },
    });
  }

  async sendText(to: string, text: string, replyToMessageId?: string | null): Promise<SentWhatsApp> {
    if (text.length === 0 || text.length > MAX_TEXT) {
      throw new WhatsAppSendError(`A text message must be 1 to ${MAX_TEXT} characters`);
    }
    return this.post({
      messaging_product: 'whatsapp',
      to: toWaId(to),
      type: 'text',
      text: { body: text, preview_url: false },
      ...(replyToMessageId ? { context: { message_id: replyToMessageId } } : {}),
    });
  }

  async close(): Promise<void> {}

  private async post(body: unknown): Promise<SentWhatsApp> {
    const url = `${this.baseUrl}/${encodeURIComponent(this.options.phoneNumberId)}/messages`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${this.options.accessToken}`,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      // Only the error's name: a network error's message may quote the request.
      throw new WhatsAppSendError(`WhatsApp request failed: ${errorName(err)}`);
    }
    // Graph answers `{messages: [{id}]}`, or `{error: {message, code, error_subcode}}` on a failure.
    const json = objectOf(await response.json().catch(() => null));
    if (!response.ok) {
      const error = objectOf(json?.error);
      const code = typeof error?.code === 'number' ? error.code : null;
      const subcode = typeof error?.error_subcode === 'number' ? error.error_subcode : null;
      // Graph does not echo the token, but a proxy in between might; it never leaves this class.
      const detail =
        typeof error?.message === 'string'
          ? `: ${redact(error.message, this.options.accessToken).slice(0, 500)}`
          : '';
      throw new WhatsAppSendError(
        `WhatsApp answered ${response.status}${code === null ? '' : ` (code ${code})`}${detail}`,
        response.status,
        code,
        subcode,
      );
    }
    const id = objectsOf(json?.messages)[0]?.id;
    if (typeof id !== 'string' || id.length === 0 || id.length > 500) {
      throw new WhatsAppSendError('WhatsApp answered without a message id', response.status);
    }
    return { messageId: id };
  }
}

const redact = (text: string, secret: string) => (secret ? text.split(secret).join('***') : text);
