import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  CloudApiWhatsAppSender,
  WhatsAppSendError,
} from '../../src/integrations/whatsapp/cloud-api-sender.js';
import {
  parseWhatsAppWebhook,
  verifyChallenge,
  verifyWhatsAppSignature,
} from '../../src/integrations/whatsapp/cloud-api-webhook.js';
import { defined } from '../../src/lib/defined.js';
import { portOf } from '../helpers/listening.js';
import { instanceOf } from '../helpers/narrow.js';

interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

const TOKEN = 'EAAG-test-access-token';

/**
 * Answers like the Graph API's messages endpoint: a wamid for a good request, Graph's error
 * envelope for a bad token, an unknown recipient (131026) or a server fault; one number hangs.
 */
function graphStandIn() {
  const received: Received[] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      res.setHeader('content-type', 'application/json');
      const graphError = (status: number, error: Record<string, unknown>) => {
        res.statusCode = status;
        res.end(JSON.stringify({ error: { fbtrace_id: 'AbCdEf123', ...error } }));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        return graphError(401, {
          message: 'Invalid OAuth access token - Cannot parse access token',
          type: 'OAuthException',
          code: 190,
        });
      }
      if (req.method !== 'POST' || req.url !== '/v21.0/1098765432/messages')
        return graphError(404, { code: 100 });
      if (body.to === '15555550404') {
        return graphError(400, {
          message: '(#131026) Message undeliverable',
          type: 'OAuthException',
          code: 131026,
          error_subcode: 2494010,
        });
      }
      if (body.to === '15555550500')
        return graphError(500, { message: 'An unknown error occurred', code: 1 });
      if (body.to === '15555550999') return; // never answers
      counter += 1;
      res.end(
        JSON.stringify({
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI${counter}` }],
        }),
      );
    });
  });
  return { server, received };
}

describe('the WhatsApp Cloud API sender', () => {
  const standIn = graphStandIn();
  let base = '';
  let sender: CloudApiWhatsAppSender;
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${portOf(standIn.server)}/v21.0`;
    sender = new CloudApiWhatsAppSender({ baseUrl: base, accessToken: TOKEN, phoneNumberId: '1098765432' });
  });
  afterAll(() => {
    standIn.server.closeAllConnections();
    return new Promise<void>((resolve) => standIn.server.close(() => resolve()));
  });

  it('sends a template with body parameters', async () => {
    const sent = await sender.sendTemplate('+1 555-123-4567', {
      name: 'load_offer_v2',
      language: 'en_US',
      bodyParameters: ['Maria', 'Dallas, TX to Atlanta, GA', 'Mon Nov 16'],
    });
    expect(sent.messageId).toMatch(/^wamid\./);
    const got = defined(standIn.received.at(-1), 'standIn.received.at(-1)');
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/v21.0/1098765432/messages');
    expect(got.authorization).toBe(`Bearer ${TOKEN}`);
    expect(got.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '15551234567',
      type: 'template',
      template: {
        name: 'load_offer_v2',
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'Dallas, TX to Atlanta, GA' },
              { type: 'text', text: 'Mon Nov 16' },
            ],
          },
        ],
      },
    });
  });

  it('sends free text, quoting the message it answers', async () => {
    await sender.sendText('+15551234567', 'Thanks, we can do $2,300.', 'wamid.inbound-1');
    expect(defined(standIn.received.at(-1), 'standIn.received.at(-1)').body).toEqual({
      messaging_product: 'whatsapp',
      to: '15551234567',
      type: 'text',
      text: { body: 'Thanks, we can do $2,300.', preview_url: false },
      context: { message_id: 'wamid.inbound-1' },
    });
    await sender.sendText('+15551234567', 'Hello');
    expect(defined(standIn.received.at(-1), 'standIn.received.at(-1)').body.context).toBeUndefined();
  });

  it('maps a Graph error to an error with the code and message, never the token', async () => {
    const failure = instanceOf(
      await sender.sendText('+15555550404', 'hi').catch((e: unknown) => e),
      WhatsAppSendError,
    );
    expect(failure.status).toBe(400);
    expect(failure.code).toBe(131026);
    expect(failure.subcode).toBe(2494010);
    expect(failure.message).toContain('131026');
    expect(failure.message).toContain('Message undeliverable');

    const badToken = new CloudApiWhatsAppSender({
      baseUrl: base,
      accessToken: 'EAAG-wrong',
      phoneNumberId: '1098765432',
    });
    const denied = instanceOf(
      await badToken.sendText('+15551234567', 'hi').catch((e: unknown) => e),
      WhatsAppSendError,
    );
    expect(denied.code).toBe(190);
    expect(denied.message).not.toContain('EAAG-wrong');

    await expect(sender.sendText('+15555550500', 'hi')).rejects.toThrow(/500/);
  });

  it('gives up after the timeout', async () => {
    const impatient = new CloudApiWhatsAppSender({
      baseUrl: base,
      accessToken: TOKEN,
      phoneNumberId: '1098765432',
      timeoutMs: 150,
    });
    await expect(impatient.sendText('+15555550999', 'hi')).rejects.toThrow(/request failed: TimeoutError/);
  });

  it('refuses a recipient that is not a phone number or an oversized text, without calling Graph', async () => {
    const before = standIn.received.length;
    await expect(sender.sendText('not-a-number', 'hi')).rejects.toThrow(WhatsAppSendError);
    await expect(sender.sendText('+15551234567', 'x'.repeat(4097))).rejects.toThrow(WhatsAppSendError);
    expect(standIn.received.length).toBe(before);
  });
});

describe('the WhatsApp webhook signature', () => {
  const secret = 'app-secret-123';
  const raw = '{"object":"whatsapp_business_account","entry":[]}';
  const sign = (body: string, key = secret) =>
    `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;

  it('accepts the HMAC of the raw body and nothing else', () => {
    expect(verifyWhatsAppSignature(raw, sign(raw), secret)).toBe(true);
    expect(verifyWhatsAppSignature(raw, sign(raw).toUpperCase().replace('SHA256=', 'sha256='), secret)).toBe(
      true,
    );
    expect(verifyWhatsAppSignature(`${raw} `, sign(raw), secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, sign(raw, 'other-secret'), secret)).toBe(false);
  });

  it('rejects a missing or malformed header', () => {
    const hex = sign(raw).slice('sha256='.length);
    expect(verifyWhatsAppSignature(raw, undefined, secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, '', secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, hex, secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, `sha1=${hex}`, secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, `sha256=${hex.slice(2)}`, secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, `sha256=${'z'.repeat(64)}`, secret)).toBe(false);
    expect(verifyWhatsAppSignature(raw, sign(raw), '')).toBe(false);
  });
});

describe('the WhatsApp subscription challenge', () => {
  it('echoes the challenge only for subscribe with our verify token', () => {
    const query = {
      'hub.mode': 'subscribe',
      'hub.verify_token': 'envoy-verify',
      'hub.challenge': '1158201444',
    };
    expect(verifyChallenge(query, 'envoy-verify')).toBe('1158201444');
    expect(verifyChallenge({ ...query, 'hub.verify_token': 'guess' }, 'envoy-verify')).toBeNull();
    expect(verifyChallenge({ ...query, 'hub.mode': 'unsubscribe' }, 'envoy-verify')).toBeNull();
    expect(
      verifyChallenge({ 'hub.mode': 'subscribe', 'hub.verify_token': 'envoy-verify' }, 'envoy-verify'),
    ).toBeNull();
  });
});

describe('parseWhatsAppWebhook', () => {
  const metadata = { display_phone_number: '15550001111', phone_number_id: '1098765432' };
  const change = (value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata, ...value } }],
      },
    ],
  });

  it('reads a text reply that quotes our message', () => {
    const batch = parseWhatsAppWebhook(
      change({
        contacts: [{ profile: { name: 'Maria Lopez' }, wa_id: '15551234567' }],
        messages: [
          {
            from: '15551234567',
            id: 'wamid.HBgLMTU1NTEyMzQ1NjcVAgASGBQzQUI',
            timestamp: '1795360323',
            type: 'text',
            text: { body: 'We can do 2450 all in' },
            context: { from: '15550001111', id: 'wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI1' },
          },
        ],
      }),
    );
    expect(batch).toEqual({
      messages: [
        {
          from: '+15551234567',
          profileName: 'Maria Lopez',
          messageId: 'wamid.HBgLMTU1NTEyMzQ1NjcVAgASGBQzQUI',
          contextMessageId: 'wamid.HBgLMTU1NTEyMzQ1NjcVAgARGBI1',
          text: 'We can do 2450 all in',
          receivedAt: new Date(1795360323 * 1000),
        },
      ],
      statuses: [],
    });
  });

  it('reads a failed status with its error, and delivered ones', () => {
    const batch = parseWhatsAppWebhook(
      change({
        statuses: [
          {
            id: 'wamid.out-1',
            status: 'failed',
            timestamp: '1795360400',
            recipient_id: '15551234567',
            errors: [
              {
                code: 131047,
                title: 'Re-engagement message',
                message: 'Re-engagement message',
                error_data: { details: 'Message failed to send because more than 24 hours have passed' },
              },
            ],
          },
          {
            id: 'wamid.out-2',
            status: 'delivered',
            timestamp: '1795360401',
            recipient_id: '15557654321',
            conversation: { id: 'c1', origin: { type: 'marketing' } },
            pricing: { billable: true, pricing_model: 'CBP', category: 'marketing' },
          },
          { id: 'wamid.out-3', status: 'deleted', timestamp: '1795360402', recipient_id: '15557654321' },
        ],
      }),
    );
    expect(batch.messages).toEqual([]);
    expect(batch.statuses).toEqual([
      {
        messageId: 'wamid.out-1',
        status: 'failed',
        recipient: '+15551234567',
        error: 'Re-engagement message',
        at: new Date(1795360400 * 1000),
      },
      {
        messageId: 'wamid.out-2',
        status: 'delivered',
        recipient: '+15557654321',
        error: null,
        at: new Date(1795360401 * 1000),
      },
    ]);
  });

  it('takes the text of a quick-reply button or an interactive reply and skips media', () => {
    const batch = parseWhatsAppWebhook(
      change({
        contacts: [{ profile: { name: 'Bluewater Dispatch' }, wa_id: '15557654321' }],
        messages: [
          {
            from: '15557654321',
            id: 'wamid.btn',
            timestamp: '1795360500',
            type: 'button',
            button: { text: 'Interested', payload: 'INTERESTED' },
            context: { from: '15550001111', id: 'wamid.template-1' },
          },
          {
            from: '15557654321',
            id: 'wamid.int',
            timestamp: '1795360501',
            type: 'interactive',
            interactive: { type: 'button_reply', button_reply: { id: 'no', title: 'Not available' } },
          },
          {
            from: '15557654321',
            id: 'wamid.img',
            timestamp: '1795360502',
            type: 'image',
            image: { mime_type: 'image/jpeg', sha256: 'abc', id: 'media-1' },
          },
        ],
      }),
    );
    expect(batch.messages.map((m) => [m.messageId, m.text, m.contextMessageId, m.profileName])).toEqual([
      ['wamid.btn', 'Interested', 'wamid.template-1', 'Bluewater Dispatch'],
      ['wamid.int', 'Not available', null, 'Bluewater Dispatch'],
    ]);
  });

  it('ignores other change fields and answers a malformed delivery with a 422', () => {
    expect(
      parseWhatsAppWebhook({
        object: 'whatsapp_business_account',
        entry: [{ id: '1', changes: [{ field: 'account_update', value: { event: 'VERIFIED_ACCOUNT' } }] }],
      }),
    ).toEqual({ messages: [], statuses: [] });
    const failure = instanceOf(
      (() => {
        try {
          parseWhatsAppWebhook(change({ messages: [{ from: '1555', timestamp: '1', type: 'text' }] }));
        } catch (err) {
          return err;
        }
      })(),
      AppError,
    );
    expect(failure.statusCode).toBe(422);
    expect(failure.param).toBe('entry[0].changes[0].value.messages[0].id');
    expect(() => parseWhatsAppWebhook({ object: 'page', entry: [] })).toThrow(AppError);
  });
});
