import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { latestReplyText, parseInboundEmailWebhook } from '../../src/integrations/email/inbound-parse.js';
import { instanceOf } from '../helpers/narrow.js';
import {
  postmarkBounce,
  postmarkSpamComplaint,
  postmarkSubscriptionChange,
} from '../helpers/postmark-payloads.js';

/** A Postmark inbound webhook as it arrives for a carrier's reply to our plus address. */
const postmarkReply = {
  FromName: 'Maria Lopez',
  MessageStream: 'inbound',
  From: 'Maria.Lopez@Swift-Haul.example',
  FromFull: { Email: 'Maria.Lopez@Swift-Haul.example', Name: 'Maria Lopez', MailboxHash: '' },
  To: '"Envoy Dispatch" <reply+cnv_42@mail.envoy.example>',
  ToFull: [{ Email: 'Reply+cnv_42@mail.envoy.example', Name: 'Envoy Dispatch', MailboxHash: 'cnv_42' }],
  Cc: '',
  CcFull: [],
  Bcc: '',
  BccFull: [],
  OriginalRecipient: 'reply+cnv_42@mail.envoy.example',
  Subject: 'RE: Load L-100: Dallas, TX to Atlanta, GA',
  MessageID: '73e6d360-66eb-11e1-8e72-a8904824019b',
  ReplyTo: '',
  MailboxHash: 'cnv_42',
  Date: 'Mon, 16 Nov 2026 09:12:03 -0600',
  TextBody:
    'We can do it for $2,450 all in.\r\n\r\nOn Mon, Nov 16, 2026 at 8:01 AM Envoy Dispatch <reply+cnv_42@mail.envoy.example> wrote:\r\n> What would you run it for?\r\n',
  HtmlBody: '<p>We can do it for $2,450 all in.</p>',
  StrippedTextReply: 'We can do it for $2,450 all in.',
  Tag: '',
  Headers: [
    { Name: 'X-Spam-Status', Value: 'No' },
    { Name: 'Message-ID', Value: '<CAF=reply-1@mail.gmail.com>' },
    { Name: 'In-Reply-To', Value: '<otr_01abc@mail.envoy.example>' },
    {
      Name: 'References',
      Value: '<otr_00first@mail.envoy.example>\r\n <otr_01abc@mail.envoy.example>',
    },
  ],
  Attachments: [],
};

describe('parseInboundEmailWebhook', () => {
  it('normalizes a Postmark inbound reply to our plus address', () => {
    const event = parseInboundEmailWebhook(postmarkReply);
    expect(event).toEqual({
      kind: 'inbound',
      email: {
        from: 'maria.lopez@swift-haul.example',
        fromName: 'Maria Lopez',
        to: ['reply+cnv_42@mail.envoy.example'],
        mailboxHash: 'cnv_42',
        subject: 'RE: Load L-100: Dallas, TX to Atlanta, GA',
        text: 'We can do it for $2,450 all in.',
        inReplyTo: 'otr_01abc@mail.envoy.example',
        references: ['otr_00first@mail.envoy.example', 'otr_01abc@mail.envoy.example'],
        messageId: 'CAF=reply-1@mail.gmail.com',
        deliveryId: expect.any(String),
        receivedAt: new Date('2026-11-16T15:12:03Z'),
      },
    });
  });

  it('threads a reply that carries only an In-Reply-To header, and finds the tag in the address', () => {
    const event = parseInboundEmailWebhook({
      From: 'dispatch@bluewater-trucking.example',
      To: 'reply+cnv_77@mail.envoy.example',
      Subject: 'Re: Reefer load Fresno to Denver',
      MessageID: 'b1a2c3d4-0000-4000-8000-000000000001',
      TextBody: 'Available Thursday, $3100.',
      Headers: [{ Name: 'In-Reply-To', Value: '<otr_9@mail.envoy.example>' }],
    });
    expect(event.kind).toBe('inbound');
    if (event.kind !== 'inbound') return;
    expect(event.email).toMatchObject({
      from: 'dispatch@bluewater-trucking.example',
      fromName: null,
      to: ['reply+cnv_77@mail.envoy.example'],
      mailboxHash: 'cnv_77',
      inReplyTo: 'otr_9@mail.envoy.example',
      references: [],
      // No Message-ID header: Postmark's own id is all there is.
      messageId: 'b1a2c3d4-0000-4000-8000-000000000001',
      text: 'Available Thursday, $3100.',
    });
    expect(event.email.receivedAt).toBeInstanceOf(Date);
  });

  it('cuts a Gmail-style quoted reply and signature when Postmark gives no stripped reply', () => {
    const event = parseInboundEmailWebhook({
      ...postmarkReply,
      StrippedTextReply: '',
      TextBody: [
        'Hi,',
        '',
        "We're booked Monday but could do Tuesday at $2600.",
        '',
        '-- ',
        'Maria Lopez | Swift Haul LLC | MC 123456',
        '',
        'On Mon, Nov 16, 2026 at 8:01 AM Envoy Dispatch <',
        'reply+cnv_42@mail.envoy.example> wrote:',
        '',
        '> Hi,',
        '> We have a dry van load from Dallas to Atlanta on Monday.',
      ].join('\r\n'),
    });
    expect(event.kind === 'inbound' && event.email.text).toBe(
      "Hi,\n\nWe're booked Monday but could do Tuesday at $2600.",
    );
  });

  it('cuts an Outlook-style Original Message block', () => {
    const event = parseInboundEmailWebhook({
      ...postmarkReply,
      StrippedTextReply: null,
      TextBody: [
        'Rate is 1850. Driver can load tomorrow AM.',
        '',
        '-----Original Message-----',
        'From: Envoy Dispatch <reply+cnv_42@mail.envoy.example>',
        'Sent: Monday, November 16, 2026 8:01 AM',
        'To: Maria Lopez <maria.lopez@swift-haul.example>',
        'Subject: Load L-100',
        '',
        'What would you run it for?',
      ].join('\r\n'),
    });
    expect(event.kind === 'inbound' && event.email.text).toBe('Rate is 1850. Driver can load tomorrow AM.');
  });

  it('falls back to the HTML body, tags stripped, when there is no text part', () => {
    const event = parseInboundEmailWebhook({
      ...postmarkReply,
      StrippedTextReply: undefined,
      TextBody: '',
      HtmlBody:
        '<html><head><style>p{color:red}</style></head><body><div>Yes &amp; we can do $2,000.<br>Thanks</div><div class="gmail_quote">On Mon wrote: old stuff</div></body></html>',
    });
    expect(event.kind === 'inbound' && event.email.text).toBe('Yes & we can do $2,000.\nThanks');
  });

  it('normalizes a bounce with our outreach id in the metadata', () => {
    const event = parseInboundEmailWebhook(
      postmarkBounce({
        Tag: 'outreach',
        MessageID: '<883953f4-6105-42a2-a16a-77a8eac79483>',
        Metadata: { outreach_id: 'otr_01abc', organization: 'org_1' },
        Email: 'Old.Dispatch@Swift-Haul.example',
        BouncedAt: '2026-11-16T14:02:09.9070259Z',
      }),
    );
    expect(event).toEqual({
      kind: 'delivery',
      event: {
        type: 'bounce',
        recordType: 'Bounce',
        messageId: '883953f4-6105-42a2-a16a-77a8eac79483',
        outreachId: 'otr_01abc',
        email: 'old.dispatch@swift-haul.example',
        reason: 'HardBounce: smtp;550 5.1.1 The email account that you tried to reach does not exist.',
        at: new Date('2026-11-16T14:02:09.907Z'),
      },
    });
  });

  it('tells failures from notices, and reads spam complaints and subscription changes', () => {
    const bounce = (fields: Record<string, unknown>) => {
      const e = parseInboundEmailWebhook({ RecordType: 'Bounce', Email: 'a@b.example', ...fields });
      return e.kind === 'delivery' ? e.event.type : e.kind;
    };
    expect(bounce({ Type: 'SoftBounce', TypeCode: 4096 })).toBe('bounce');
    expect(bounce({ Type: 'DnsError', TypeCode: 256 })).toBe('bounce');
    expect(bounce({ Type: 'AutoResponder', TypeCode: 64 })).toBe('notice');
    expect(bounce({ Type: 'Transient', TypeCode: 2 })).toBe('notice');
    expect(bounce({ TypeCode: 2 })).toBe('notice');
    expect(bounce({ Type: 'Unsubscribe', TypeCode: 16 })).toBe('unsubscribe');
    const complaint = parseInboundEmailWebhook(
      postmarkSpamComplaint({ Metadata: { outreach_id: 'otr_02' }, Email: 'Ops@Carrier.example' }),
    );
    expect(complaint).toMatchObject({
      kind: 'delivery',
      event: { type: 'spam_complaint', outreachId: 'otr_02', email: 'ops@carrier.example' },
    });
    const change = (fields: Record<string, unknown>) => {
      const e = parseInboundEmailWebhook(
        postmarkSubscriptionChange({ Metadata: { outreach_id: 'otr_03' }, ...fields }),
      );
      return e.kind === 'delivery' ? e.event.type : e.kind;
    };
    expect(change({})).toBe('unsubscribe');
    expect(change({ SuppressionReason: 'HardBounce' })).toBe('bounce');
    expect(change({ SuppressionReason: 'SpamComplaint' })).toBe('spam_complaint');
    expect(change({ Origin: 'Customer' })).toBe('notice');
    expect(change({ SuppressSending: false, SuppressionReason: null })).toBe('notice');
    expect(parseInboundEmailWebhook({ RecordType: 'Delivery', MessageID: 'x' })).toEqual({
      kind: 'ignored',
      recordType: 'Delivery',
    });
  });

  it('keeps the reply of an inbound message whose bodies are megabytes long', () => {
    const event = parseInboundEmailWebhook({
      ...postmarkReply,
      StrippedTextReply: '',
      TextBody: `Rate is 1850.\n\n-----Original Message-----\n${'> old\n'.repeat(400_000)}`,
      HtmlBody: `<p>Rate is 1850.</p>${'<p>x</p>'.repeat(400_000)}`,
    });
    expect(event.kind === 'inbound' && event.email.text).toBe('Rate is 1850.');
  });

  it('answers an invalid payload with a 422 naming the field', () => {
    const check = (body: unknown, param: string | null) => {
      try {
        parseInboundEmailWebhook(body);
        expect.unreachable();
      } catch (err) {
        const refused = instanceOf(err, AppError);
        expect(refused.statusCode).toBe(422);
        expect(refused.param).toBe(param);
      }
    };
    check({ ...postmarkReply, Subject: 42 }, 'Subject');
    check({ ...postmarkReply, ToFull: [{ Name: 'x' }] }, 'ToFull[0].Email');
    check({ ...postmarkReply, TextBody: 42 }, 'TextBody');
    check({ RecordType: 'Bounce', Type: 'HardBounce' }, 'Email');
    check({ Subject: 'no sender' }, 'From');
    check({ RecordType: 'SpamComplaint' }, 'Email');
    check({ RecordType: 'SubscriptionChange', Recipient: 'a@b.c' }, 'SuppressSending');
    check({ RecordType: 'Forward', Email: 'a@b.c' }, 'RecordType');
    check('not json', null);
  });
});

describe('latestReplyText', () => {
  it('drops quoted lines but keeps inline answers', () => {
    expect(latestReplyText('> Can you do Monday?\nYes.\n> Rate?\n$2000')).toBe('Yes.\n$2000');
  });

  it('cuts a forwarded header block and an Outlook rule', () => {
    expect(
      latestReplyText('See below.\n\nFrom: Bob <bob@x.example>\nDate: Mon\nSubject: fwd\n\nold text'),
    ).toBe('See below.');
    expect(latestReplyText('ok 1900\n________________________________\nFrom: Envoy\nSent: Monday')).toBe(
      'ok 1900',
    );
  });

  it('keeps a line that merely starts with From: or On', () => {
    expect(latestReplyText('On Tuesday we can pick up.\nFrom: our Dallas yard')).toBe(
      'On Tuesday we can pick up.\nFrom: our Dallas yard',
    );
  });
});
