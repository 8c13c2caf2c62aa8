/**
 * The e-mail channel: outbound through a sender (SMTP, or the in-process simulation), inbound
 * replies and bounces through the inbound-parse webhook, normalized to the shapes below.
 */
export interface OutboundEmail {
  /** Our RFC 5322 Message-ID without angle brackets, e.g. `otr_...@mail.example.com`. */
  messageId: string;
  from: string;
  to: string;
  /** Where replies go: a plus address carrying the conversation id, e.g. `reply+cnv_...@...`. */
  replyTo: string;
  subject: string;
  text: string;
  /** The Message-ID (no brackets) this e-mail answers, for threading. */
  inReplyTo?: string | null;
  /**
   * Our outreach id, carried so the sending platform hands it back on bounces and complaints
   * (over Postmark SMTP: an `X-PM-Metadata-outreach_id` header, echoed as `Metadata.outreach_id`).
   */
  outreachId?: string | null;
}

export interface SentEmail {
  /** The id the transport accepted the message under (for SMTP: our own Message-ID). */
  messageId: string;
}

export interface EmailSender {
  readonly name: string;
  send(email: OutboundEmail): Promise<SentEmail>;
  close(): Promise<void>;
}

/** A reply as the inbound-parse webhook delivers it, normalized. */
export interface InboundEmail {
  /** Sender address, lower-cased. */
  from: string;
  fromName: string | null;
  /** Recipient addresses, lower-cased. */
  to: string[];
  /** The `+tag` of the first recipient that has one (our conversation id), else null. */
  mailboxHash: string | null;
  subject: string;
  /** The new text of the reply, with quoted history and signatures removed where recognisable. */
  text: string;
  /** Message-IDs without angle brackets. */
  inReplyTo: string | null;
  references: string[];
  messageId: string | null;
  /** The platform's id of this delivery (Postmark's MessageID), the same when it delivers again. */
  deliveryId: string | null;
  receivedAt: Date;
}

/**
 * What the sending platform reports about a message after it left: it did not arrive (`bounce`),
 * the recipient marked it as spam or unsubscribed (both mean "stop e-mailing me"), or a notice that
 * is neither (an auto-reply, a delay, a resubscription) and changes nothing.
 */
export interface EmailDeliveryEvent {
  type: 'bounce' | 'spam_complaint' | 'unsubscribe' | 'notice';
  /** The platform's record type, e.g. `Bounce`, `SpamComplaint`, `SubscriptionChange`. */
  recordType: string;
  /** The platform's id of the message, when it names one (brackets removed). */
  messageId: string | null;
  /** Our outreach id, when the platform echoes the metadata we sent. */
  outreachId: string | null;
  /** The recipient the event is about, lower-cased. */
  email: string;
  reason: string;
  at: Date;
}

export type InboundEmailEvent =
  | { kind: 'inbound'; email: InboundEmail }
  | { kind: 'delivery'; event: EmailDeliveryEvent }
  /** A record type nothing here acts on (deliveries, opens, clicks). */
  | { kind: 'ignored'; recordType: string };
