import nodemailer, { type Transporter } from 'nodemailer';
import { objectOf } from '../../lib/json-object.js';
import type { EmailSender, OutboundEmail, SentEmail } from './email-channel.js';

export interface SmtpEmailSenderOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://...` (TLS from the start). */
  url: string;
  /** Bounds connecting, the greeting and each socket wait, so a stuck relay cannot hold a worker. */
  timeoutMs?: number;
}

export class EmailSendError extends Error {
  override name = 'EmailSendError';
}

interface SmtpTarget {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  pass: string | null;
}

/** The URL split into transport options; a bad URL is reported without echoing it (it holds the password). */
export function parseSmtpUrl(url: string): SmtpTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EmailSendError('The SMTP URL is not a valid URL');
  }
  const secure = parsed.protocol === 'smtps:';
  if (!secure && parsed.protocol !== 'smtp:')
    throw new EmailSendError('The SMTP URL must be smtp:// or smtps://');
  if (!parsed.hostname) throw new EmailSendError('The SMTP URL has no host');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : secure ? 465 : 587,
    secure,
    user: parsed.username ? decodeURIComponent(parsed.username) : null,
    pass: parsed.password ? decodeURIComponent(parsed.password) : null,
  };
}

/**
 * Headers Postmark's SMTP service reads (other relays pass them along unread): keep our Message-ID
 * (Postmark replaces it otherwise, and a carrier's reply threads on it), and carry the outreach id
 * as metadata, which Postmark echoes as `Metadata.outreach_id` in its bounce, spam-complaint and
 * subscription-change webhooks.
 */
export function postmarkHeaders(email: OutboundEmail): Record<string, string> {
  return {
    'X-PM-KeepID': 'true',
    ...(email.outreachId ? { 'X-PM-Metadata-outreach_id': email.outreachId } : {}),
  };
}

/**
 * Sends through an SMTP relay with nodemailer. The Message-ID is ours (it threads the carrier's
 * reply back to the outreach), so the relay's own id is not used.
 */
export class SmtpEmailSender implements EmailSender {
  readonly name = 'smtp';
  private readonly transport: Transporter;
  private readonly secrets: string[];

  constructor(options: SmtpEmailSenderOptions) {
    const target = parseSmtpUrl(options.url);
    const timeout = options.timeoutMs ?? 15_000;
    this.secrets = target.pass ? [target.pass, encodeURIComponent(target.pass)] : [];
    this.transport = nodemailer.createTransport({
      host: target.host,
      port: target.port,
      secure: target.secure,
      ...(target.user ? { auth: { user: target.user, pass: target.pass ?? '' } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      // Never log: the transcript would carry the AUTH exchange.
      logger: false,
      debug: false,
    });
  }

  async send(email: OutboundEmail): Promise<SentEmail> {
    const threading = email.inReplyTo
      ? { inReplyTo: `<${email.inReplyTo}>`, references: [`<${email.inReplyTo}>`] }
      : {};
    try {
      await this.transport.sendMail({
        messageId: `<${email.messageId}>`,
        from: email.from,
        to: email.to,
        replyTo: email.replyTo,
        subject: email.subject,
        text: email.text,
        ...threading,
        headers: postmarkHeaders(email),
      });
    } catch (err) {
      throw new EmailSendError(`SMTP send failed: ${this.scrub(err)}`);
    }
    return { messageId: email.messageId };
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  /** The failure's message and SMTP code, with the password removed should the relay echo it. */
  private scrub(err: unknown): string {
    const e = objectOf(err);
    let message = typeof e?.message === 'string' ? e.message : 'unknown error';
    for (const secret of this.secrets) message = message.split(secret).join('***');
    const code = typeof e?.responseCode === 'number' ? ` (${e.responseCode})` : '';
    return `${message.slice(0, 500)}${code}`;
  }
}
