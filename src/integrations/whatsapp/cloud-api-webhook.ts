import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { validationFailed } from '../../domain/errors.js';
import { defined } from '../../lib/defined.js';
import type { InboundWhatsApp, WhatsAppStatus, WhatsAppWebhookBatch } from './whatsapp-channel.js';

/**
 * Whether `X-Hub-Signature-256` (`sha256=<hex>`) is the HMAC-SHA256 of the raw body under the app
 * secret. Must be given the body exactly as received: re-serialized JSON would not match.
 */
export function verifyWhatsAppSignature(
  rawBody: string,
  header: string | undefined,
  appSecret: string,
): boolean {
  if (!header || !appSecret) return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody, 'utf8').digest();
  return timingSafeEqual(Buffer.from(defined(match[1], 'match[1]'), 'hex'), expected);
}

/** The subscription handshake: Meta's GET carries `hub.*` query parameters; answer the challenge. */
export function verifyChallenge(query: Record<string, unknown>, verifyToken: string): string | null {
  const mode = query['hub.mode'];
  const token = query['hub.verify_token'];
  const challenge = query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') return null;
  if (!verifyToken || challenge.length === 0 || challenge.length > 200) return null;
  const given = Buffer.from(token, 'utf8');
  const wanted = Buffer.from(verifyToken, 'utf8');
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  return challenge;
}

const id = z.string().min(1).max(500);

const messageSchema = z.object({
  from: z.string().max(32),
  id,
  timestamp: z.string().max(20),
  type: z.string().max(50),
  text: z.object({ body: z.string().max(10_000) }).nullish(),
  button: z.object({ text: z.string().max(1000).nullish() }).nullish(),
  interactive: z
    .object({
      button_reply: z.object({ title: z.string().max(1000).nullish() }).nullish(),
      list_reply: z.object({ title: z.string().max(1000).nullish() }).nullish(),
    })
    .nullish(),
  context: z.object({ from: z.string().max(32).nullish(), id: id.nullish() }).nullish(),
});

const statusSchema = z.object({
  id,
  status: z.string().max(50),
  timestamp: z.string().max(20),
  recipient_id: z.string().max(32).nullish(),
  errors: z
    .array(
      z.object({
        code: z.number().nullish(),
        title: z.string().max(1000).nullish(),
        message: z.string().max(2000).nullish(),
      }),
    )
    .max(20)
    .nullish(),
});

const webhookSchema = z.object({
  object: z.literal('whatsapp_business_account'),
  entry: z
    .array(
      z.object({
        id: z.string().max(100),
        changes: z
          .array(
            z.object({
              field: z.string().max(100),
              // Validated below only for `messages` changes; other fields have other shapes.
              value: z.unknown(),
            }),
          )
          .max(100),
      }),
    )
    .max(100),
});

const messagesValueSchema = z.object({
  messaging_product: z.string().max(50).nullish(),
  metadata: z
    .object({ display_phone_number: z.string().max(32).nullish(), phone_number_id: z.string().max(100) })
    .nullish(),
  contacts: z
    .array(
      z.object({
        profile: z.object({ name: z.string().max(500).nullish() }).nullish(),
        wa_id: z.string().max(32),
      }),
    )
    .max(100)
    .nullish(),
  messages: z.array(messageSchema).max(1000).nullish(),
  statuses: z.array(statusSchema).max(1000).nullish(),
});

const STATUSES = new Set<WhatsAppStatus['status']>(['sent', 'delivered', 'read', 'failed']);

/** A webhook delivery as our messages and statuses; message types without text are skipped. */
export function parseWhatsAppWebhook(body: unknown): WhatsAppWebhookBatch {
  const batch = check(webhookSchema, body, []);
  const messages: InboundWhatsApp[] = [];
  const statuses: WhatsAppStatus[] = [];
  batch.entry.forEach((entry, e) => {
    entry.changes.forEach((change, c) => {
      if (change.field !== 'messages') return;
      const value = check(messagesValueSchema, change.value, ['entry', e, 'changes', c, 'value']);
      const names = new Map((value.contacts ?? []).map((ct) => [ct.wa_id, ct.profile?.name ?? null]));
      for (const m of value.messages ?? []) {
        const text = messageText(m);
        if (text === null) continue;
        messages.push({
          from: toE164(m.from),
          profileName: names.get(m.from) || null,
          messageId: m.id,
          contextMessageId: m.context?.id ?? null,
          text,
          receivedAt: fromUnix(m.timestamp),
        });
      }
      for (const s of value.statuses ?? []) {
        // Statuses other than these are ignored just below.
        const status = s.status as WhatsAppStatus['status'];
        // `deleted`, `warning` and future statuses carry nothing we track.
        if (!STATUSES.has(status)) continue;
        const error = s.errors?.[0];
        statuses.push({
          messageId: s.id,
          status,
          recipient: s.recipient_id ? toE164(s.recipient_id) : null,
          error: status === 'failed' ? (error?.title || error?.message || 'failed').slice(0, 1000) : null,
          at: fromUnix(s.timestamp),
        });
      }
    });
  });
  return { messages, statuses };
}

function messageText(m: z.infer<typeof messageSchema>): string | null {
  const text =
    m.text?.body ??
    m.button?.text ??
    m.interactive?.button_reply?.title ??
    m.interactive?.list_reply?.title ??
    null;
  return text?.trim() ? text : null;
}

function check<T>(schema: z.ZodType<T>, value: unknown, at: (string | number)[]): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = defined(parsed.error.issues[0], 'parsed.error.issues[0]');
  throw validationFailed('body', [...at, ...issue.path], issue.message, issue.code);
}

const toE164 = (waId: string) => `+${waId.replace(/\D/g, '')}`;

function fromUnix(seconds: string): Date {
  const n = Number(seconds);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : new Date();
}
