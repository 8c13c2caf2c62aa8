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
  receivedAt: Date;
}

export interface EmailBounce {
  /** The Message-ID (no brackets) of the message that bounced, when the webhook names it. */
  messageId: string | null;
  /** Our outreach id when the sender passed it as metadata. */
  outreachId: string | null;
  email: string;
  reason: string;
  bouncedAt: Date;
}

export type InboundEmailEvent =
  | { kind: 'inbound'; email: InboundEmail }
  | { kind: 'bounce'; bounce: EmailBounce };
