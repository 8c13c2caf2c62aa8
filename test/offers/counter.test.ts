import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { SimulatedEmailSender } from '../../src/integrations/email/simulated-email-sender.js';
import { defined } from '../../src/lib/defined.js';
import { negotiations } from '../../src/modules/offers/offers-tables.js';
import { events } from '../../src/modules/webhooks/webhooks-tables.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  carrierEmail,
  type Headers,
  laneCarrier,
  messagesOf,
  type Outreach,
  outreachesOf,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { loadPayload } from '../helpers/load-factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const counter = (t: TestApp, h: Headers, offerId: string, amount: unknown, extra: Headers = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/offers/${offerId}/counter`,
    headers: { ...h, ...extra },
    payload: { amount },
  });

/**
 * A load handed to the agent (posted 2,000, max_buy_rate 2,400), a carrier e-mailed about it, and
 * the carrier's answer "2300": the agent countered at its opening ask (round 1), and the offer
 * waits, pending, in the e-mail conversation.
 */
async function quoted(t: TestApp, receiverUrl: string, text = 'We can do it for 2300') {
  const { h, user: owner } = await tenant(t);
  const endpoint = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/endpoints',
    headers: h,
    payload: { url: receiverUrl, event_types: ['offer.countered'] },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
  const carrierId = await laneCarrier(t, h);
  const email = await carrierEmail(t, h, carrierId);
  const loadNumber = `LN-C-${Math.random().toString(36).slice(2, 10)}`;
  const loadId = await agentLoad(t, h, { load_number: loadNumber });
  await agentRound(t);
  const outreach: Outreach = defined((await outreachesOf(t, h, loadId))[0], 'the outreach');
  const answered = await reply(t, outreach, email, text);
  expect(answered.statusCode, answered.body).toBe(200);
  const offerId: string = defined(answered.json().offer_id, 'offer_id');
  return { h, owner, carrierId, email, loadId, loadNumber, outreach, offerId };
}

const roundsOf = async (t: TestApp, loadId: string, carrierId: string) =>
  (
    await t.database.db
      .select({ rounds: negotiations.rounds, last: negotiations.last_counter })
      .from(negotiations)
      .where(and(eq(negotiations.load_id, loadId), eq(negotiations.carrier_id, carrierId)))
  )[0];

const counteredEvents = (t: TestApp, offerId: string) =>
  t.database.db
    .select({ data: events.data })
    .from(events)
    .where(and(eq(events.type, 'offer.countered'), sql`${events.data}->'offer'->>'id' = ${offerId}`));

describe("a rep's counter-offer", () => {
  const t = useTestApp({ env: { ...agentEnv, WORKERS_ENABLED: 'false' } });
  const outbox = () => {
    const email = t.services.channels.email;
    if (!(email instanceof SimulatedEmailSender)) throw new Error('the tests run on the simulated e-mail');
    return email;
  };
  const rx = startReceiver();
  afterAll(async () => (await rx).close());
  const quote = async (text?: string) => quoted(t, (await rx).url, text);

  it('is said in the offer’s e-mail thread, recorded as the next round, and emitted', async () => {
    const { h, carrierId, loadId, outreach, offerId } = await quote();
    expect(await roundsOf(t, loadId, carrierId)).toEqual({ rounds: 1, last: 2000 });
    const sentBefore = outbox().sent.length;

    const res = await counter(t, h, offerId, 2100);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      amount: 2100,
      round: 2,
      max_rounds: 3,
      final: false,
      outreach_id: outreach.id,
      offer: { id: offerId, status: 'pending', counter_offer_amount: 2100, offer_amount: 2300 },
    });
    expect(await roundsOf(t, loadId, carrierId)).toEqual({ rounds: 2, last: 2100 });

    // On the offer's channel, in the same conversation: the carrier's reply address, threaded under its message.
    const sent = outbox().sent.slice(sentBefore);
    expect(sent).toHaveLength(1);
    const mail = defined(sent[0], 'the counter e-mail');
    expect(mail.replyTo).toBe(`reply+${outreach.conversation_id}@reply.envoy.local`);
    expect(mail.inReplyTo).toMatch(/^pm-/);
    expect(mail.text).toContain('$2,100');
    expect(mail.text).not.toContain('2,400');
    const thread = await messagesOf(t, h, outreach.id);
    expect(thread.at(-1)).toMatchObject({ direction: 'outbound', intent: 'rep_counter', body: mail.text });

    const emitted = await counteredEvents(t, offerId);
    expect(emitted).toEqual([{ data: expect.objectContaining({ amount: 2100, round: 2, final: false }) }]);

    // The last round of the policy is said as final; after it, no more.
    const last = await counter(t, h, offerId, 2200);
    expect(last.json()).toMatchObject({ round: 3, final: true });
    expect(defined(outbox().sent.at(-1), 'final').text).toContain('The best we can do');
    const more = await counter(t, h, offerId, 2250);
    expect(more.statusCode).toBe(409);
    expect(more.json().error.code).toBe('negotiation_rounds_exhausted');

    // The carrier says yes: an offer at the counter, taken as the agent takes any offer at its ask.
    const yes = await reply(t, outreach, await carrierEmail(t, h, carrierId), 'Yes, that works');
    expect(yes.json().reason).toBe('review');
  });

  it('refuses an amount over the ceiling, at or over the carrier’s ask, or under our last counter, and records nothing', async () => {
    const { h, carrierId, loadId, offerId } = await quote();
    const sentBefore = outbox().sent.length;
    for (const [amount, code] of [
      [2401, 'counter_above_ceiling'],
      [2300, 'counter_not_below_offer'],
      [2350, 'counter_not_below_offer'],
      [1950, 'counter_below_last_counter'],
    ] as const) {
      const res = await counter(t, h, offerId, amount);
      expect(res.statusCode, `${amount}`).toBe(422);
      expect(res.json().error).toMatchObject({ code, param: 'amount' });
    }
    for (const amount of [0, -5, 'abc', null]) {
      const res = await counter(t, h, offerId, amount);
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_error', param: 'amount' });
    }
    expect(await roundsOf(t, loadId, carrierId)).toEqual({ rounds: 1, last: 2000 });
    expect(outbox().sent.length).toBe(sentBefore);
    expect(await counteredEvents(t, offerId)).toEqual([]);
  });

  it('is idempotent with an Idempotency-Key: a retry replays the answer, one round, one message', async () => {
    const { h, carrierId, loadId, offerId } = await quote();
    const sentBefore = outbox().sent.length;
    const first = await counter(t, h, offerId, 2050, { 'idempotency-key': `counter-${offerId}` });
    const again = await counter(t, h, offerId, 2050, { 'idempotency-key': `counter-${offerId}` });
    expect(first.statusCode, first.body).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await roundsOf(t, loadId, carrierId)).toEqual({ rounds: 2, last: 2050 });
    expect(outbox().sent.length - sentBefore).toBe(1);
    expect(await counteredEvents(t, offerId)).toHaveLength(1);
    // The same key for another amount is a different request.
    const reused = await counter(t, h, offerId, 2060, { 'idempotency-key': `counter-${offerId}` });
    expect(reused.statusCode).toBe(422);
    expect(reused.json().error.code).toBe('idempotency_key_reused');
  });

  it('answers 409 once the offer is no longer pending or the load is booked or closed', async () => {
    const rejected = await quote();
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${rejected.offerId}`,
      headers: rejected.h,
      payload: { status: 'rejected' },
    });
    const r1 = await counter(t, rejected.h, rejected.offerId, 2000);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error.code).toBe('offer_not_pending');

    const booked = await quote();
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: booked.h,
      payload: { load_id: booked.loadId, offer_amount: 2000 },
    });
    await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${other.json().id}`,
      headers: booked.h,
      payload: { status: 'accepted' },
    });
    const r2 = await counter(t, booked.h, booked.offerId, 2000);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().error.code).toBe('offer_already_accepted');

    const cancelled = await quote();
    // The TMS reports the load cancelled.
    const patched = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: cancelled.h,
      payload: loadPayload({ load_number: cancelled.loadNumber, tms_status: 'Cancelled' }),
    });
    expect(patched.statusCode, patched.body).toBeLessThan(300);
    const r3 = await counter(t, cancelled.h, cancelled.offerId, 2000);
    expect(r3.statusCode).toBe(409);
    expect(r3.json().error.code).toBe('load_not_bookable');
  });

  it('answers 409 when the carrier asked not to be contacted, or is disabled', async () => {
    const stopped = await quote();
    const stop = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${stopped.carrierId}/stop-contact`,
      headers: stopped.h,
      payload: {},
    });
    expect(stop.statusCode, stop.body).toBeLessThan(300);
    const r1 = await counter(t, stopped.h, stopped.offerId, 2000);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error.code).toBe('stop_contact_requested');

    const disabled = await quote();
    const off = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${disabled.carrierId}/disable`,
      headers: disabled.owner.headers,
      payload: { reason: 'service_quality' },
    });
    expect(off.statusCode, off.body).toBe(200);
    const r2 = await counter(t, disabled.h, disabled.offerId, 2000);
    expect(r2.statusCode).toBe(409);
    expect(r2.json().error.code).toBe('contact_not_allowed');
  });

  it('answers 409 no_conversation for an offer a rep entered, and 404 for another organization’s offer', async () => {
    const { h, loadId, offerId } = await quote();
    const entered = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: loadId, offer_amount: 2300 },
    });
    const r1 = await counter(t, h, entered.json().id, 2000);
    expect(r1.statusCode).toBe(409);
    expect(r1.json().error.code).toBe('no_conversation');

    const stranger = await createTenant(t);
    const r2 = await counter(t, stranger.user.headers, offerId, 2000);
    expect(r2.statusCode).toBe(404);
    expect(r2.json().error.param).toBe('offer_id');
  });
});
