import { z } from 'zod';
import { unprocessable, validationFailed } from '../../domain/errors.js';
import { defined } from '../../lib/defined.js';
import { objectOf } from '../../lib/json-object.js';
import type { EmailDeliveryEvent, InboundEmail, InboundEmailEvent } from './email-channel.js';

/**
 * Postmark's inbound webhook and its bounce, spam-complaint and subscription-change webhooks,
 * normalized. Only the fields we use are validated; everything else Postmark sends (attachments,
 * spam headers, the raw message, ...) is dropped with the parsed body. The route's body limit
 * bounds the whole; the message bodies are cut to what a reply needs, never refused for length.
 */

/** What is read of a text or HTML body: a carrier's answer sits at the top of it. */
const MAX_TEXT_READ = 200_000;
const MAX_HTML_READ = 1_000_000;
/** Bounds what we keep of a reply: a carrier's answer is a few lines, not a novel. */
const MAX_TEXT = 50_000;

const address = z.string().max(320);
const name = z.string().max(500);
const messageIdText = z.string().max(1000);
const body = z.string();
const metadata = z.record(z.string().max(200), z.unknown()).nullish();

const inboundSchema = z.object({
  RecordType: z.literal('Inbound').nullish(),
  From: address.nullish(),
  FromName: name.nullish(),
  FromFull: z.object({ Email: address.nullish(), Name: name.nullish() }).nullish(),
  To: z.string().max(20_000).nullish(),
  ToFull: z
    .array(z.object({ Email: address, Name: name.nullish(), MailboxHash: z.string().max(500).nullish() }))
    .max(200)
    .nullish(),
  Subject: z.string().max(10_000).nullish(),
  MessageID: messageIdText.nullish(),
  MailboxHash: z.string().max(500).nullish(),
  Date: z.string().max(200).nullish(),
  TextBody: body.nullish(),
  HtmlBody: body.nullish(),
  StrippedTextReply: body.nullish(),
  Headers: z
    // Read liberally: an entry without a Name or a Value is skipped, not a refused reply.
    .array(z.unknown())
    .max(5000)
    .nullish(),
});

/** `Bounce` and `SpamComplaint` share one published shape. */
const bounceSchema = z.object({
  RecordType: z.enum(['Bounce', 'SpamComplaint']),
  MessageID: messageIdText.nullish(),
  Type: z.string().max(100).nullish(),
  TypeCode: z.number().int().nullish(),
  Description: z.string().max(2000).nullish(),
  Details: z.string().max(10_000).nullish(),
  Email: address,
  BouncedAt: z.string().max(100).nullish(),
  Metadata: metadata,
});

const subscriptionSchema = z.object({
  RecordType: z.literal('SubscriptionChange'),
  MessageID: messageIdText.nullish(),
  Recipient: address,
  ChangedAt: z.string().max(100).nullish(),
  Origin: z.string().max(100).nullish(),
  SuppressSending: z.boolean(),
  SuppressionReason: z.string().max(100).nullish(),
  Metadata: metadata,
});

/** Record types of Postmark's other outbound webhooks: accepted, acted on by nothing here. */
const IGNORED_RECORD_TYPES = new Set(['Delivery', 'Open', 'Click']);

/**
 * Bounce types that are not a failed delivery (Postmark's bounce type names): a delay that will be
 * retried, an auto-reply, an address-change notice, a test. Every other type means the message
 * did not arrive.
 */
const NOT_A_FAILURE = new Set([
  'Transient',
  'AutoResponder',
  'AddressChange',
  'Subscribe',
  'OpenRelayTest',
  'VirusNotification',
  'ChallengeVerification',
]);
const NOT_A_FAILURE_CODES = new Set([2, 32, 64, 128, 1024, 8192, 16384]);

export function parseInboundEmailWebhook(payload: unknown): InboundEmailEvent {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw validationFailed('body', [], 'Expected a JSON object', 'invalid_type');
  }
  const recordType = objectOf(payload)?.RecordType;
  if (recordType === 'Bounce' || recordType === 'SpamComplaint') {
    return { kind: 'delivery', event: fromBounce(parse(bounceSchema, payload)) };
  }
  if (recordType === 'SubscriptionChange') {
    return { kind: 'delivery', event: fromSubscriptionChange(parse(subscriptionSchema, payload)) };
  }
  if (typeof recordType === 'string' && IGNORED_RECORD_TYPES.has(recordType)) {
    return { kind: 'ignored', recordType };
  }
  if (recordType === undefined || recordType === null || recordType === 'Inbound') {
    return { kind: 'inbound', email: toInbound(parse(inboundSchema, payload)) };
  }
  throw unprocessable(
    'unsupported_record_type',
    `RecordType '${String(recordType).slice(0, 50)}' is not handled here`,
    'RecordType',
  );
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = defined(parsed.error.issues[0], 'parsed.error.issues[0]');
  throw validationFailed('body', issue.path, issue.message, issue.code);
}

function toInbound(p: z.infer<typeof inboundSchema>): InboundEmail {
  const from = bareAddress(p.FromFull?.Email || p.From || '');
  if (!from.includes('@'))
    throw validationFailed('body', ['From'], 'A sender address is required', 'missing');
  const headers = new Map<string, string>();
  for (const h of p.Headers ?? []) {
    const entry = objectOf(h);
    const name = entry?.Name;
    const value = entry?.Value;
    if (typeof name !== 'string' || typeof value !== 'string' || name.length > 200) continue;
    const key = name.toLowerCase();
    if (!headers.has(key)) headers.set(key, value.slice(0, 100_000));
  }
  const to = p.ToFull?.length
    ? p.ToFull.map((r) => bareAddress(r.Email))
    : splitAddresses(p.To ?? '').map(bareAddress);
  const mailboxHash =
    p.ToFull?.find((r) => r.MailboxHash)?.MailboxHash ||
    p.MailboxHash ||
    to.map(plusTag).find((tag) => tag !== null) ||
    null;
  const inReplyTo = messageIds(headers.get('in-reply-to') ?? '')[0] ?? null;
  return {
    from,
    fromName: (p.FromFull?.Name || p.FromName || '').trim() || null,
    to: to.filter((a) => a.includes('@')),
    mailboxHash,
    subject: (p.Subject ?? '').trim(),
    text: replyText(p).slice(0, MAX_TEXT),
    inReplyTo,
    references: messageIds(headers.get('references') ?? '').slice(0, 100),
    // Postmark's own MessageID is its uuid; the sender's RFC Message-ID, when present, is the one
    // a later reply would cite.
    messageId: messageIds(headers.get('message-id') ?? '')[0] ?? stripBrackets(p.MessageID ?? '') ?? null,
    // What Postmark repeats when it delivers the same message again.
    deliveryId: stripBrackets(p.MessageID ?? '') || messageIds(headers.get('message-id') ?? '')[0] || null,
    receivedAt: toDate(p.Date) ?? new Date(),
  };
}

const outreachIdOf = (m: Record<string, unknown> | null | undefined) => {
  const id = m?.outreach_id;
  return typeof id === 'string' && id.length <= 200 ? id : null;
};

function fromBounce(p: z.infer<typeof bounceSchema>): EmailDeliveryEvent {
  const detail = (p.Details || p.Description || '').trim();
  const complaint = p.RecordType === 'SpamComplaint' || p.Type === 'SpamComplaint' || p.TypeCode === 100001;
  const unsubscribe = p.Type === 'Unsubscribe' || p.TypeCode === 16;
  const notice = NOT_A_FAILURE.has(p.Type ?? '') || (!p.Type && NOT_A_FAILURE_CODES.has(p.TypeCode ?? -1));
  return {
    type: complaint ? 'spam_complaint' : unsubscribe ? 'unsubscribe' : notice ? 'notice' : 'bounce',
    recordType: p.RecordType,
    messageId: stripBrackets(p.MessageID ?? ''),
    outreachId: outreachIdOf(p.Metadata),
    email: bareAddress(p.Email),
    reason: [p.Type, detail].filter(Boolean).join(': ').slice(0, 2000) || p.RecordType,
    at: toDate(p.BouncedAt) ?? new Date(),
  };
}

/**
 * A suppression Postmark now applies to the address: a hard bounce, a spam complaint, or the
 * recipient's own unsubscribe. A suppression the sender's side made (`Origin` Customer or Admin)
 * and a reactivation are notices: only the carrier asks to stop, and only a rep clears it.
 */
function fromSubscriptionChange(p: z.infer<typeof subscriptionSchema>): EmailDeliveryEvent {
  const reason = p.SuppressionReason ?? '';
  const type: EmailDeliveryEvent['type'] = !p.SuppressSending
    ? 'notice'
    : reason === 'HardBounce'
      ? 'bounce'
      : reason === 'SpamComplaint'
        ? 'spam_complaint'
        : reason === 'ManualSuppression' && p.Origin === 'Recipient'
          ? 'unsubscribe'
          : 'notice';
  return {
    type,
    recordType: p.RecordType,
    messageId: stripBrackets(p.MessageID ?? ''),
    outreachId: outreachIdOf(p.Metadata),
    email: bareAddress(p.Recipient),
    reason: `${p.SuppressSending ? 'suppressed' : 'reactivated'}${reason ? `: ${reason}` : ''}${p.Origin ? ` (by ${p.Origin})` : ''}`,
    at: toDate(p.ChangedAt) ?? new Date(),
  };
}

/** Postmark's own stripped reply when it gives one; otherwise our best cut of the text or HTML body. */
function replyText(p: z.infer<typeof inboundSchema>): string {
  const stripped = p.StrippedTextReply?.slice(0, MAX_TEXT_READ).trim();
  if (stripped) return stripped;
  const text = p.TextBody?.slice(0, MAX_TEXT_READ);
  if (text?.trim()) return latestReplyText(text);
  const html = p.HtmlBody?.slice(0, MAX_HTML_READ);
  if (html?.trim()) return latestReplyText(htmlToText(html));
  return '';
}

const ON_WROTE = /^On\s.+\swrote:\s*$/i;
const ORIGINAL_MESSAGE = /^-{2,}\s*Original Message\s*-{2,}\s*$/i;
const OUTLOOK_RULE = /^_{10,}\s*$/;
const HISTORY_HEADER = /^\*?(Sent|Date|To|Subject|Cc)\*?:\s/i;

/**
 * The newest part of a plain-text reply: quoted lines (`>`) dropped, and everything from the first
 * marker of quoted history (`On ... wrote:`, `-----Original Message-----`, an Outlook rule, a
 * forwarded `From:` header block) or the `-- ` signature delimiter on cut.
 */
export function latestReplyText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const [i, line] of lines.entries()) {
    const trimmed = line.trim();
    if (trimmed.startsWith('>')) continue;
    if (/^--\s*$/.test(line)) break;
    if (ORIGINAL_MESSAGE.test(trimmed) || OUTLOOK_RULE.test(trimmed)) break;
    // Gmail wraps a long attribution line: "On Mon, ... Dispatch <\nreply+...> wrote:".
    if (/^On\s/i.test(trimmed)) {
      const joined = [trimmed, lines[i + 1]?.trim() ?? '', lines[i + 2]?.trim() ?? ''];
      if (ON_WROTE.test(trimmed) || ON_WROTE.test(joined.slice(0, 2).join(' '))) break;
      if (ON_WROTE.test(joined.join(' '))) break;
    }
    if (/^\*?From:\*?\s/i.test(trimmed)) {
      const following = lines.slice(i + 1, i + 5).map((l) => l.trim());
      if (following.some((l) => HISTORY_HEADER.test(l))) break;
    }
    kept.push(line.trimEnd());
  }
  return kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Crude on purpose: only used when a reply has no text part; quoted history starts at a blockquote. */
export function htmlToText(html: string): string {
  const cut = html.search(/<blockquote\b|<div[^>]*class="[^"]*gmail_quote/i);
  return (cut >= 0 ? html.slice(0, cut) : html)
    .replace(/<(style|script|head)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div|li|tr|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/gi, ' ')
    .replace(/&lt;/gi, '<')
    .replace(/&gt;/gi, '>')
    .replace(/&quot;/gi, '"')
    .replace(/&#39;|&apos;/gi, "'")
    .replace(/&amp;/gi, '&')
    .replace(/[ \t]+\n/g, '\n');
}

const stripBrackets = (id: string): string | null => id.trim().replace(/^<|>$/g, '').trim() || null;

/** Message-IDs of an In-Reply-To or References header, brackets removed. */
function messageIds(value: string): string[] {
  const bracketed = value.match(/<[^<>\s]+>/g);
  const raw = bracketed ?? value.split(/\s+/);
  return raw.map((id) => stripBrackets(id)).filter((id): id is string => id !== null);
}

/** `Name <a@b>` or `a@b`, lower-cased. */
function bareAddress(value: string): string {
  const inBrackets = /<([^<>]+)>/.exec(value);
  return (inBrackets ? defined(inBrackets[1], 'inBrackets[1]') : value).trim().toLowerCase();
}

/** Splits a To header on commas outside quotes (display names may hold commas). */
function splitAddresses(value: string): string[] {
  return (value.match(/(?:"[^"]*"|[^,])+/g) ?? []).map((s) => s.trim()).filter(Boolean);
}

function plusTag(addr: string): string | null {
  const local = addr.split('@')[0] ?? '';
  const plus = local.indexOf('+');
  return plus >= 0 && plus < local.length - 1 ? local.slice(plus + 1) : null;
}

function toDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}
