import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  carrierEmail,
  type Headers,
  laneCarrier,
  messagesOf,
  type Outreach,
  SECRET,
  tenant,
  waitFor,
} from '../helpers/agent-factories.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import {
  postmarkBounce,
  postmarkSpamComplaint,
  postmarkSubscriptionChange,
} from '../helpers/postmark-payloads.js';

/** Postmark's SMTP service, as far as we see it: every message accepted and kept raw. */
const delivered: { to: string[]; raw: string }[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  allowInsecureAuth: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onAuth(auth, _session, callback) {
    callback(null, { user: auth.username });
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      delivered.push({
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString(),
      });
      callback();
    });
  },
});
beforeAll(() => new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve())));
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

const MiB = 1024 * 1024;

/** The header block of a raw message, unfolded, as a lookup by lower-cased name. */
function headersOf(raw: string) {
  const head = defined(raw.split('\r\n\r\n')[0], "raw.split('\\r\\n\\r\\n')[0]").replace(/\r\n[ \t]+/g, ' ');
  const map = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) map.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return map;
}

const post = (t: TestApp, url: string, payload: unknown, secret = SECRET) =>
  t.app.inject({
    method: 'POST',
    url,
    headers: {
      authorization: `Basic ${Buffer.from(`postmark:${secret}`).toString('base64')}`,
      'content-type': 'application/json',
    },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('e-mail through Postmark', () => {
  const t = useTestApp({
    env: {
      ...agentEnv,
      // No loop runs the agent: a test runs its rounds.
      WORKERS_ENABLED: 'false',
      EMAIL_TRANSPORT: 'smtp',
      get SMTP_URL() {
        return `smtp://server-token:server-token@127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
      },
      EMAIL_INBOUND_MAX_BYTES: String(8 * MiB),
    },
  });

  /** An organization whose agent e-mailed three lane carriers about one load, each message sent. */
  async function threeOutreaches() {
    const { h } = await tenant(t);
    const carriers = [await laneCarrier(t, h), await laneCarrier(t, h), await laneCarrier(t, h)];
    const loadId = await agentLoad(t, h);
    // One round plans the three contacts and sends them.
    const sent = await afterRound(t, h, loadId);
    expect(sent.map((o) => o.status)).toEqual(['active', 'active', 'active']);
    const emails = await Promise.all(carriers.map((id) => carrierEmail(t, h, id)));
    // The SMTP stand-in stores each message as it finishes reading it.
    const messages = await waitFor(
      async () => emails.map((e) => delivered.find((d) => d.to.includes(e))),
      (l) => l.every((m) => m !== undefined),
    );
    const byCarrier = carriers.map((id, i) => ({
      carrierId: id,
      email: defined(emails[i], 'emails[i]'),
      outreach: defined(
        sent.find((o) => o.carrier_id === id),
        'sent.find((o) => o.carrier_id === id)',
      ),
      headers: headersOf(defined(messages[i], 'messages[i]').raw),
    }));
    const nth = (i: number) => defined(byCarrier[i], `carrier ${i + 1} of 3`);
    return { h, loadId, byCarrier: [nth(0), nth(1), nth(2)] as const };
  }

  const carrierOf = async (h: Headers, id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}`, headers: h })).json();
  const outreachOf = async (h: Headers, id: string): Promise<Outreach> =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/outreaches/${id}`, headers: h })).json();

  it('sends the outreach id as Postmark metadata over SMTP and keeps our Message-ID', async () => {
    const { byCarrier } = await threeOutreaches();
    for (const { outreach, headers } of byCarrier) {
      expect(headers.get('x-pm-metadata-outreach_id')).toBe(outreach.id);
      expect(headers.get('x-pm-keepid')).toBe('true');
      expect(headers.get('message-id')).toMatch(/^<[^@>]+@reply\.envoy\.local>$/);
      expect(headers.get('reply-to')).toBe(`reply+${outreach.conversation_id}@reply.envoy.local`);
    }
  });

  it('parses and answers a 5 MB inbound reply, without raising the limit of other routes', async () => {
    const { h, loadId, byCarrier } = await threeOutreaches();
    const [{ outreach, email, headers }] = byCarrier;
    const ours = defined(headers.get('message-id'), "headers.get('message-id')");
    // A carrier's reply with its signed rate confirmation attached, as Postmark posts it.
    const pdf = randomBytes(3_700_000).toString('base64');
    const replyTo = `reply+${outreach.conversation_id}@reply.envoy.local`;
    const payload = {
      FromName: 'Dispatch',
      MessageStream: 'inbound',
      From: email,
      FromFull: { Email: email, Name: 'Dispatch', MailboxHash: '' },
      To: `"Envoy Dispatch" <${replyTo}>`,
      ToFull: [{ Email: replyTo, Name: 'Envoy Dispatch', MailboxHash: outreach.conversation_id }],
      Cc: '',
      CcFull: [],
      Bcc: '',
      BccFull: [],
      OriginalRecipient: replyTo,
      Subject: 'RE: Load',
      MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b',
      ReplyTo: '',
      MailboxHash: outreach.conversation_id,
      Date: new Date().toUTCString(),
      TextBody: `We can do 2,150 all in. Signed rate con attached.\r\n\r\nOn Mon, Nov 16, 2026 at 8:01 AM Envoy Dispatch <${replyTo}> wrote:\r\n> What would you run it for?\r\n`,
      HtmlBody: `<p>We can do 2,150 all in. Signed rate con attached.</p><blockquote>${'<p>What would you run it for?</p>'.repeat(20_000)}</blockquote>`,
      StrippedTextReply: 'We can do 2,150 all in. Signed rate con attached.',
      Tag: '',
      Headers: [
        { Name: 'X-Spam-Status', Value: 'No' },
        { Name: 'Message-ID', Value: '<CAF=reply-5mb@mail.gmail.com>' },
        { Name: 'In-Reply-To', Value: ours },
        { Name: 'References', Value: ours },
      ],
      Attachments: [
        {
          Name: 'rate-confirmation.pdf',
          Content: pdf,
          ContentType: 'application/pdf',
          ContentLength: 3_700_000,
          ContentID: '',
        },
      ],
    };
    const body = JSON.stringify(payload);
    expect(body.length).toBeGreaterThan(5_000_000);

    // The credential is checked before a large body is read.
    expect(
      (await post(t, '/api/v1/integrations/email/inbound', body, 'wrong-secret-wrong-secret')).statusCode,
    ).toBe(401);
    const res = await post(t, '/api/v1/integrations/email/inbound', body);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.json()).toMatchObject({ status: 'replied', outreach_id: outreach.id, reason: 'counter' });
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
    ).json();
    expect(offers.data[0]).toMatchObject({
      offer_amount: 2150,
      channel: 'email',
      counter_offer_amount: 2000,
    });
    const conversation = await messagesOf(t, h, outreach.id);
    expect(
      defined(
        conversation.find((m) => m.direction === 'inbound'),
        "conversation.find((m) => m.direction === 'inbound')",
      ).body,
    ).toBe('We can do 2,150 all in. Signed rate con attached.');
    // The counter-offer went out in the thread, with the outreach id again.
    const answer = await waitFor(
      async () => delivered.filter((d) => d.to.includes(email)),
      (l) => l.length === 2,
    );
    const answered = headersOf(defined(answer[1], 'answer[1]').raw);
    expect(answered.get('in-reply-to')).toBe('<CAF=reply-5mb@mail.gmail.com>');
    expect(answered.get('x-pm-metadata-outreach_id')).toBe(outreach.id);

    // Other routes keep the 1 MiB limit; this one stops at EMAIL_INBOUND_MAX_BYTES (8 MiB here).
    expect((await post(t, '/api/v1/integrations/email/events', body)).statusCode).toBe(413);
    const tooBig = JSON.stringify({ ...payload, HtmlBody: 'x'.repeat(9 * MiB) });
    expect((await post(t, '/api/v1/integrations/email/inbound', tooBig)).statusCode).toBe(413);
  });

  it('brings a bounce, a spam complaint and an unsubscribe to the right outreach and carrier', async () => {
    const { h, byCarrier } = await threeOutreaches();
    const [bounced, complained, unsubscribed] = byCarrier;
    const now = new Date().toISOString();
    // Postmark echoes the X-PM-Metadata-* headers we sent as Metadata; its MessageID is its own.
    const bounce = await post(
      t,
      '/api/v1/integrations/email/events',
      postmarkBounce({
        Metadata: { outreach_id: bounced.headers.get('x-pm-metadata-outreach_id') },
        Email: bounced.email,
        BouncedAt: now,
      }),
    );
    expect(bounce.statusCode, bounce.body).toBe(200);
    expect(bounce.json()).toEqual({
      status: 'bounce_recorded',
      record_type: 'Bounce',
      outreach_id: bounced.outreach.id,
      carrier_id: bounced.carrierId,
      reason: null,
    });

    const complaint = await post(
      t,
      '/api/v1/integrations/email/events',
      postmarkSpamComplaint({
        MessageID: '00000000-0000-0000-0000-000000000001',
        Metadata: { outreach_id: complained.headers.get('x-pm-metadata-outreach_id') },
        Email: complained.email,
        BouncedAt: now,
      }),
    );
    expect(complaint.json()).toMatchObject({
      status: 'stop_contact_recorded',
      outreach_id: complained.outreach.id,
      carrier_id: complained.carrierId,
      reason: 'spam_complaint',
    });

    // No metadata on this one: matched by the recipient and the time.
    const unsubscribe = await post(
      t,
      '/api/v1/integrations/email/events',
      postmarkSubscriptionChange({
        MessageID: '00000000-0000-0000-0000-000000000002',
        ChangedAt: now,
        Recipient: unsubscribed.email.toUpperCase(),
      }),
    );
    expect(unsubscribe.json()).toMatchObject({
      status: 'stop_contact_recorded',
      outreach_id: unsubscribed.outreach.id,
      carrier_id: unsubscribed.carrierId,
      reason: 'unsubscribe',
    });

    // Each event reached its own outreach and carrier, and nothing else.
    expect((await outreachOf(h, bounced.outreach.id)).delivery_failed_at).not.toBeNull();
    expect((await outreachOf(h, complained.outreach.id)).delivery_failed_at).toBeNull();
    expect((await outreachOf(h, unsubscribed.outreach.id)).delivery_failed_at).toBeNull();
    expect((await carrierOf(h, bounced.carrierId)).stop_contact_requested_at).toBeNull();
    expect((await carrierOf(h, complained.carrierId)).stop_contact_requested_at).not.toBeNull();
    expect((await carrierOf(h, unsubscribed.carrierId)).stop_contact_requested_at).not.toBeNull();
    expect((await messagesOf(t, h, complained.outreach.id)).at(-1)).toMatchObject({
      direction: 'inbound',
      intent: 'spam_complaint',
    });
    // Nothing is sent to an address that complained or unsubscribed: no "stop confirmed" answer.
    expect(delivered.filter((d) => d.to.includes(complained.email))).toHaveLength(1);
    expect(delivered.filter((d) => d.to.includes(unsubscribed.email))).toHaveLength(1);
  });

  it('matches a bounce without metadata by the address and the time, and ignores notices', async () => {
    const { h, byCarrier } = await threeOutreaches();
    const [first, second] = byCarrier;
    const autoReply = await post(t, '/api/v1/integrations/email/events', {
      RecordType: 'Bounce',
      Type: 'AutoResponder',
      TypeCode: 64,
      MessageID: 'pm-auto-1',
      Email: first.email,
      BouncedAt: new Date().toISOString(),
      Description: 'Automatic email responder (ex: "Out of Office" or "On Vacation").',
      Details: '',
    });
    expect(autoReply.json()).toMatchObject({ status: 'ignored', outreach_id: null });
    expect((await outreachOf(h, first.outreach.id)).delivery_failed_at).toBeNull();

    const soft = await post(t, '/api/v1/integrations/email/events', {
      RecordType: 'Bounce',
      Type: 'SoftBounce',
      TypeCode: 4096,
      MessageID: 'pm-soft-1',
      Email: second.email,
      BouncedAt: new Date().toISOString(),
      Description: 'Mailbox full',
      Details: 'smtp;452 4.2.2 mailbox full',
    });
    expect(soft.json()).toMatchObject({ status: 'bounce_recorded', outreach_id: second.outreach.id });
    // A bounce dated before the message was sent is not about it.
    const stale = await post(t, '/api/v1/integrations/email/events', {
      RecordType: 'Bounce',
      Type: 'HardBounce',
      TypeCode: 1,
      MessageID: 'pm-old-1',
      Email: first.email,
      BouncedAt: new Date(Date.now() - 86_400_000).toISOString(),
    });
    expect(stale.json()).toMatchObject({ status: 'ignored', outreach_id: null });
    // Deliveries, opens and clicks are acknowledged and left alone.
    const opened = await post(t, '/api/v1/integrations/email/events', {
      RecordType: 'Open',
      MessageID: 'pm-open-1',
      Recipient: first.email,
      Metadata: { outreach_id: first.outreach.id },
    });
    expect(opened.json()).toMatchObject({ status: 'ignored', record_type: 'Open' });
    expect(
      (await post(t, '/api/v1/integrations/email/events', {}, 'wrong-secret-wrong-secret')).statusCode,
    ).toBe(401);
  });
});
