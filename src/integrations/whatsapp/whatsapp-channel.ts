/**
 * The WhatsApp channel (WhatsApp Cloud API shapes): a business-initiated conversation opens with an
 * approved template; replies inside the customer-service window may be free text.
 */
export interface WhatsAppTemplate {
  name: string;
  /** Language code of the approved template, e.g. `en_US`. */
  language: string;
  /** Values for the template body's {{1}}, {{2}}, ... in order. */
  bodyParameters: string[];
}

export interface SentWhatsApp {
  /** The platform's message id (`wamid....`). */
  messageId: string;
}

/** What a message is about, for the sender's own records (a real platform ignores it). */
export interface SendContext {
  /** The outreach the message belongs to. */
  outreachId?: string | null;
}

export interface WhatsAppSender {
  readonly name: string;
  /** `to` is E.164 (`+15551234567`). */
  sendTemplate(to: string, template: WhatsAppTemplate, context?: SendContext): Promise<SentWhatsApp>;
  sendText(
    to: string,
    text: string,
    replyToMessageId?: string | null,
    context?: SendContext,
  ): Promise<SentWhatsApp>;
  close(): Promise<void>;
}

/** A message a carrier sent us, normalized from the webhook. */
export interface InboundWhatsApp {
  /** E.164 of the sender. */
  from: string;
  profileName: string | null;
  messageId: string;
  /** The id of our message this one replies to (`context.id`), when quoted. */
  contextMessageId: string | null;
  text: string;
  receivedAt: Date;
}

/** A delivery status of a message we sent. */
export interface WhatsAppStatus {
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipient: string | null;
  /** For `failed`: the platform's error title or message. */
  error: string | null;
  at: Date;
}

export interface WhatsAppWebhookBatch {
  messages: InboundWhatsApp[];
  statuses: WhatsAppStatus[];
}
