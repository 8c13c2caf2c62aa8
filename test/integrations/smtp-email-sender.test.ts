import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EmailSendError,
  parseSmtpUrl,
  SmtpEmailSender,
} from '../../src/integrations/email/smtp-email-sender.js';
import { defined } from '../../src/lib/defined.js';
import { portOf } from '../helpers/listening.js';
import { instanceOf } from '../helpers/narrow.js';

interface Delivered {
  user: string | null;
  from: string;
  to: string[];
  raw: string;
}

/** A relay that records each envelope and raw message; `rejected@...` recipients get a 550. */
function smtpStandIn() {
  const delivered: Delivered[] = [];
  const logins: { username: string; password: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    // No STARTTLS: the stand-in has no certificate the client would trust.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (auth.password === 'bad-pw-9271') return callback(new Error('Authentication failed'));
      callback(null, { user: auth.username });
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('rejected@')) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        delivered.push({
          user: typeof session.user === 'string' ? session.user : null,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  return { server, delivered, logins };
}

const email = {
  messageId: 'otr_01abc@mail.envoy.example',
  from: 'Envoy Dispatch <dispatch@mail.envoy.example>',
  to: 'ops@swift-haul.example',
  replyTo: 'reply+cnv_42@mail.envoy.example',
  subject: 'Load L-100: Dallas, TX to Atlanta, GA',
  text: 'Hi,\n\nWe have a dry van load from Dallas to Atlanta on Monday. What would you run it for?\n',
};

describe('the SMTP e-mail sender', () => {
  const standIn = smtpStandIn();
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.server.listen(0, '127.0.0.1', () => resolve()));
    port = portOf(standIn.server.server);
  });
  afterAll(() => new Promise<void>((resolve) => standIn.server.close(() => resolve())));

  it('sends with our Message-ID, Reply-To, threading headers and body', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://127.0.0.1:${port}`, timeoutMs: 5000 });
    try {
      const sent = await sender.send({ ...email, inReplyTo: 'CAF=abc123@mail.gmail.com' });
      expect(sent).toEqual({ messageId: 'otr_01abc@mail.envoy.example' });
    } finally {
      await sender.close();
    }
    const got = defined(standIn.delivered.at(-1), 'standIn.delivered.at(-1)');
    expect(got.from).toBe('dispatch@mail.envoy.example');
    expect(got.to).toEqual(['ops@swift-haul.example']);
    const [head, ...rest] = got.raw.split('\r\n\r\n');
    expect(head).toMatch(/^Message-ID: <otr_01abc@mail\.envoy\.example>$/im);
    expect(head).toMatch(/^Reply-To: reply\+cnv_42@mail\.envoy\.example$/im);
    expect(head).toMatch(/^In-Reply-To: <CAF=abc123@mail\.gmail\.com>$/im);
    expect(head).toMatch(/^References: <CAF=abc123@mail\.gmail\.com>$/im);
    expect(head).toMatch(/^Subject: Load L-100: Dallas, TX to Atlanta, GA$/im);
    expect(head).toMatch(/^To: ops@swift-haul\.example$/im);
    // Quoted-printable soft line breaks undone; the body is otherwise plain ASCII.
    expect(rest.join('\r\n\r\n').replace(/=\r\n/g, '')).toContain(
      'We have a dry van load from Dallas to Atlanta on Monday. What would you run it for?',
    );
  });

  it('adds the Postmark headers: our Message-ID kept, the outreach id as metadata', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://127.0.0.1:${port}` });
    await sender.send({ ...email, messageId: 'otr_04@mail.envoy.example', outreachId: 'otr_0193aa' });
    await sender.send({ ...email, messageId: 'otr_05@mail.envoy.example' });
    await sender.close();
    const [withId, without] = standIn.delivered
      .slice(-2)
      .map((d) => defined(d.raw.split('\r\n\r\n')[0], "d.raw.split('\\r\\n\\r\\n')[0]"));
    expect(withId).toMatch(/^X-PM-Metadata-outreach_id: otr_0193aa$/im);
    expect(withId).toMatch(/^X-PM-KeepID: true$/im);
    expect(without).not.toMatch(/^X-PM-Metadata-/im);
  });

  it('leaves out threading headers for a first message', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://127.0.0.1:${port}` });
    await sender.send({ ...email, messageId: 'otr_02@mail.envoy.example' });
    await sender.close();
    const head = defined(
      defined(standIn.delivered.at(-1), 'standIn.delivered.at(-1)').raw.split('\r\n\r\n')[0],
      "standIn.delivered.at(-1).raw.split('\\r\\n\\r\\n')[0]",
    );
    expect(head).not.toMatch(/^In-Reply-To:/im);
    expect(head).not.toMatch(/^References:/im);
  });

  it('logs in with the credentials from the URL', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://relay-user:p%40ss%2Fword@127.0.0.1:${port}` });
    await sender.send({ ...email, messageId: 'otr_03@mail.envoy.example' });
    await sender.close();
    expect(standIn.logins.at(-1)).toEqual({ username: 'relay-user', password: 'p@ss/word' });
    expect(defined(standIn.delivered.at(-1), 'standIn.delivered.at(-1)').user).toBe('relay-user');
  });

  it('rejects when the relay refuses the recipient, without the password in the error', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://relay-user:s3cret-pw@127.0.0.1:${port}` });
    const before = standIn.delivered.length;
    const failure = await sender
      .send({ ...email, to: 'rejected@swift-haul.example' })
      .catch((e: unknown) => e);
    await sender.close();
    const { message } = instanceOf(failure, EmailSendError);
    expect(message).toMatch(/550/);
    expect(message).not.toContain('s3cret-pw');
    expect(standIn.delivered.length).toBe(before);
  });

  it('rejects a failed login without the password in the error', async () => {
    const sender = new SmtpEmailSender({ url: `smtp://relay-user:bad-pw-9271@127.0.0.1:${port}` });
    const failure = await sender.send(email).catch((e: unknown) => e);
    await sender.close();
    expect(instanceOf(failure, EmailSendError).message).not.toContain('bad-pw-9271');
  });

  it('reads smtps:// and default ports, and refuses other schemes without echoing the URL', () => {
    expect(parseSmtpUrl('smtps://u:p@smtp.example.com')).toEqual({
      host: 'smtp.example.com',
      port: 465,
      secure: true,
      user: 'u',
      pass: 'p',
    });
    expect(parseSmtpUrl('smtp://smtp.example.com').port).toBe(587);
    expect(() => parseSmtpUrl('http://u:hunter2@x')).toThrow(/smtp:\/\/ or smtps:\/\//);
    expect(() => parseSmtpUrl('not a url hunter2')).toThrow(/^(?!.*hunter2)/);
  });
});
