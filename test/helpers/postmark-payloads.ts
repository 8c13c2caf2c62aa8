/**
 * Postmark's outbound webhook payloads with every published field (the `BounceWebhook`,
 * `SpamComplaintWebhook` and `SubscriptionChangeWebhook` types of its `postmark` library);
 * tests override what they are about.
 */

export const postmarkBounce = (fields: Record<string, unknown> = {}) => ({
  RecordType: 'Bounce',
  MessageStream: 'outbound',
  ID: 4323372036854775,
  Type: 'HardBounce',
  TypeCode: 1,
  Name: 'Hard bounce',
  Tag: '',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  Metadata: {},
  ServerID: 23,
  Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
  Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
  Email: 'nobody@carrier.example',
  From: 'dispatch@envoy.local',
  BouncedAt: new Date().toISOString(),
  DumpAvailable: true,
  Inactive: true,
  CanActivate: true,
  Subject: 'Load',
  ...fields,
});

export const postmarkSpamComplaint = (fields: Record<string, unknown> = {}) =>
  postmarkBounce({
    RecordType: 'SpamComplaint',
    ID: 42,
    Type: 'SpamComplaint',
    TypeCode: 100001,
    Name: 'Spam complaint',
    Description: 'The subscriber explicitly marked this message as spam.',
    Details: '',
    CanActivate: false,
    ...fields,
  });

export const postmarkSubscriptionChange = (fields: Record<string, unknown> = {}) => ({
  RecordType: 'SubscriptionChange',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  ServerID: 23,
  MessageStream: 'outbound',
  ChangedAt: new Date().toISOString(),
  Recipient: 'nobody@carrier.example',
  Origin: 'Recipient',
  SuppressSending: true,
  SuppressionReason: 'ManualSuppression',
  Tag: '',
  Metadata: {},
  ...fields,
});

/**
 * Postmark's inbound webhook payload with every published field (the `InboundMessageDetails` type
 * of its `postmark` library): a carrier's reply to our message `to`, quoting our text below it.
 */
export const postmarkInbound = (
  from: string,
  to: string,
  mailboxHash: string,
  text: string,
  fields: Record<string, unknown> = {},
) => ({
  FromName: 'Dispatch',
  MessageStream: 'inbound',
  From: from,
  FromFull: { Email: from, Name: 'Dispatch', MailboxHash: '' },
  To: to,
  ToFull: [{ Email: to, Name: '', MailboxHash: mailboxHash }],
  Cc: '',
  CcFull: [],
  Bcc: '',
  BccFull: [],
  OriginalRecipient: to,
  Subject: 'Re: Load',
  MessageID: '22c74902-a0c1-4511-804f-341342852c90',
  ReplyTo: '',
  MailboxHash: mailboxHash,
  Date: new Date().toUTCString(),
  TextBody: `${text}\n\nOn Mon, our dispatcher wrote:\n> We have a load for you`,
  HtmlBody: `<p>${text}</p>`,
  StrippedTextReply: text,
  Tag: '',
  Headers: [
    { Name: 'X-Spam-Status', Value: 'No' },
    { Name: 'Message-ID', Value: '<CAE-reply-1@mail.carrier.example>' },
    // An entry without a Value: skipped, not fatal.
    { Name: 'X-Empty' },
  ],
  Attachments: [],
  ...fields,
});
