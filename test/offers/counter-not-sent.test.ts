import { and, eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { negotiations, offers } from '../../src/modules/offers/offers-tables.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  carrierEmail,
  laneCarrier,
  messagesOf,
  type Outreach,
  outreachesOf,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { portOf } from '../helpers/listening.js';

/** A relay that accepts mail until told to refuse every recipient (550), as a mail server in trouble does. */
function relay() {
  const state = { refusing: false, delivered: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (state.refusing)
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        state.delivered += 1;
        callback();
      });
    },
  });
  return { server, state };
}

describe("a rep's counter that the e-mail channel cannot send", () => {
  const mail = relay();
  let t: TestApp;
  beforeAll(async () => {
    await new Promise<void>((resolve) => mail.server.listen(0, '127.0.0.1', () => resolve()));
    t = await buildTestApp({
      env: {
        ...agentEnv,
        WORKERS_ENABLED: 'false',
        EMAIL_TRANSPORT: 'smtp',
        SMTP_URL: `smtp://127.0.0.1:${portOf(mail.server.server)}`,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => mail.server.close(() => resolve()));
  });

  it('answers 502 counter_not_sent and leaves nothing recorded: no round, no counter, no message', async () => {
    const { h } = await tenant(t);
    const carrierId = await laneCarrier(t, h);
    const loadId = await agentLoad(t, h);
    await agentRound(t);
    const outreach: Outreach = defined((await outreachesOf(t, h, loadId))[0], 'the outreach');
    expect(mail.state.delivered).toBeGreaterThan(0);
    const answered = await reply(t, outreach, await carrierEmail(t, h, carrierId), 'We can do it for 2300');
    const offerId: string = defined(answered.json().offer_id, 'offer_id');
    const conversation = () =>
      t.database.db
        .select({ rounds: negotiations.rounds, last: negotiations.last_counter })
        .from(negotiations)
        .where(and(eq(negotiations.load_id, loadId), eq(negotiations.carrier_id, carrierId)));
    const counterOf = async () =>
      (await t.database.db.select({ c: offers.counter_amount }).from(offers).where(eq(offers.id, offerId)))[0]
        ?.c;
    const before = { conversation: await conversation(), counter: await counterOf() };
    const thread = (await messagesOf(t, h, outreach.id)).length;

    mail.state.refusing = true;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/offers/${offerId}/counter`,
      headers: { ...h, 'idempotency-key': `not-sent-${offerId}` },
      payload: { amount: 2100 },
    });
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error.code).toBe('counter_not_sent');
    expect({ conversation: await conversation(), counter: await counterOf() }).toEqual(before);
    expect(await messagesOf(t, h, outreach.id)).toHaveLength(thread);

    // Once the channel works again, the same request (same key: a 5xx is not stored) goes through.
    mail.state.refusing = false;
    const retried = await t.app.inject({
      method: 'POST',
      url: `/api/v1/offers/${offerId}/counter`,
      headers: { ...h, 'idempotency-key': `not-sent-${offerId}` },
      payload: { amount: 2100 },
    });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ amount: 2100, round: 2 });
  });
});
