import { and, eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import { events } from '../../src/modules/webhooks/webhooks-tables.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  type Headers,
  laneCarrier,
  nextEmail,
  type Outreach,
  outreachesOf,
  QUIET_NIGHT,
  reply,
  SECRET,
  tenant,
  waitFor,
  waitForWave,
} from '../helpers/agent-factories.js';
import { drainWorker, manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { postmarkSpamComplaint } from '../helpers/postmark-payloads.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { signWhatsApp, whatsappStandIn, whatsappWebhook } from '../helpers/whatsapp-stand-in.js';

let phones = 0;
const nextPhone = () => `+1415555${String(3000 + phones++).padStart(4, '0')}`;

/**
 * A carrier the agent e-mailed about one load (the conversation, sent) and has queued for another
 * (quiet hours hold, so that contact waits): whichever way the carrier asks to stop, the queued
 * one must be withdrawn.
 */
async function carrierWithQueuedContact(t: TestApp, receiverUrl: string, channel = 'email') {
  // No gap: the carrier's second load is queued right after its first went out.
  const { h } = await tenant(t, { channel_order: [channel], carrier_min_gap_minutes: 0 });
  const endpoint = await t.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/endpoints',
    headers: h,
    payload: { url: receiverUrl, event_types: ['carrier.updated', 'outreach.status_changed'] },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);
  const email = channel === 'email' ? nextEmail() : null;
  const phone = nextPhone();
  const carrierId = await laneCarrier(t, h, { email, phone });
  const firstLoad = await agentLoad(t, h);
  const [sent] = await waitFor(
    () => afterRound(t, h, firstLoad),
    (l) =>
      l.length === 1 && defined(l[0], 'l[0]').status === 'active' && defined(l[0], 'l[0]').sent_at !== null,
  );
  const quiet = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/agent/settings',
    headers: h,
    payload: { quiet_hours_start: QUIET_NIGHT.start, quiet_hours_end: QUIET_NIGHT.end },
  });
  expect(quiet.statusCode, quiet.body).toBe(200);
  const secondLoad = await agentLoad(t, h);
  const [queued] = await waitForWave(t, h, secondLoad, 1);
  expect(queued).toMatchObject({
    carrier_id: carrierId,
    status: 'pending',
    is_automated: true,
    send_after: CHICAGO_MORNING.toISOString(),
  });
  return {
    h,
    email,
    phone,
    carrierId,
    sent: defined(sent, 'sent'),
    queued: defined(queued, 'queued'),
    firstLoad,
    secondLoad,
  };
}

/** The request was honoured once: stamped, audited, announced, and the queued contact withdrawn. */
async function expectHonoured(
  t: TestApp,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  s: { h: Headers; carrierId: string; queued: Outreach; secondLoad: string },
  note: string,
) {
  const carrier = (
    await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${s.carrierId}`, headers: s.h })
  ).json();
  expect(carrier.stop_contact_requested_at).toMatch(/Z$/);

  const withdrawn = (await outreachesOf(t, s.h, s.secondLoad)).find((o) => o.id === s.queued.id);
  expect(withdrawn).toMatchObject({
    status: 'failed',
    error_reason: 'cancelled: the carrier asked not to be contacted',
  });
  const [row] = await t.database.db
    .select({ cancelled_at: outreaches.cancelled_at })
    .from(outreaches)
    .where(eq(outreaches.id, s.queued.id));
  expect(defined(row, 'row').cancelled_at).not.toBeNull();

  const audit = (
    await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${s.carrierId}/audit-log`, headers: s.h })
  ).json<{ data: { action: string; reason_note: string | null; after: Record<string, unknown> }[] }>().data;
  const stamped = audit.filter((a) => a.action === 'stop_contact_requested');
  expect(stamped).toHaveLength(1);
  expect(defined(stamped[0], 'stamped[0]').reason_note).toBe(note);
  expect(defined(stamped[0], 'stamped[0]').after.stop_contact_requested_at).toBeTruthy();

  const carrierEvents = await t.database.db
    .select({ data: events.data })
    .from(events)
    .where(and(eq(events.type, 'carrier.updated'), sql`${events.data}->>'id' = ${s.carrierId}`));
  expect(carrierEvents).toHaveLength(1);
  expect(defined(carrierEvents[0], 'carrierEvents[0]').data).toMatchObject({
    id: s.carrierId,
    stop_contact_requested_at: expect.any(String),
  });
  const outreachEvents = await t.database.db
    .select({ data: events.data })
    .from(events)
    .where(
      and(eq(events.type, 'outreach.status_changed'), sql`${events.data}->>'outreach_id' = ${s.queued.id}`),
    );
  expect(outreachEvents.map((e) => e.data)).toEqual([
    expect.objectContaining({ status: 'failed', previous_status: 'pending' }),
  ]);
  // And the endpoint hears of it.
  await drainWorker(t, 'webhooks');
  expect(
    receiver.received.some((r) => r.json.type === 'carrier.updated' && r.json.data.id === s.carrierId),
  ).toBe(true);
}

describe("a carrier's stop-contact request, by every path", () => {
  // No loop runs here: the agent's and the webhooks' rounds are run by the test.
  // A manual clock at an evening in Chicago (quiet hours hold there): the voice test moves it for
  // the simulated call to ring and talk.
  const t = useTestApp({ env: { ...agentEnv, WORKERS_ENABLED: 'false' }, clock: CHICAGO_EVENING });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  it('POST /carriers/{id}/stop-contact withdraws the queued contacts, audited and announced once', async () => {
    const receiver = await rx;
    const s = await carrierWithQueuedContact(t, receiver.url);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${s.carrierId}/stop-contact`,
      headers: s.h,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().stop_contact_requested_at).toMatch(/Z$/);
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${s.carrierId}/stop-contact`,
      headers: s.h,
    });
    expect(again.json().stop_contact_requested_at).toBe(res.json().stop_contact_requested_at);
    await expectHonoured(t, receiver, s, 'recorded through the API');
    // The conversation already under way is not a queued contact: it stays as it was.
    expect((await outreachesOf(t, s.h, s.firstLoad)).map((o) => o.status)).toEqual(['active']);
  });

  it('the voice tool request_stop_contact does the same', async () => {
    const receiver = await rx;
    const s = await carrierWithQueuedContact(t, receiver.url);
    const call = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: s.h,
      payload: {
        phone_number: s.phone,
        load_id: s.secondLoad,
        template_variables: { simulate_outcome: 'completed', simulate_stop_contact: true },
      },
    });
    expect(call.statusCode, call.body).toBe(201);
    // The simulated call rings and talks on the product clock: moved a minute at a time until it ends.
    const clock = manualClockOf(t);
    const statusOf = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/calls/${call.json().id}`, headers: s.h })).json()
        .status;
    for (let minutes = 0; (await statusOf()) !== 'COMPLETED'; minutes++) {
      expect(minutes, 'minutes before the simulated call ended').toBeLessThan(60);
      await clock.advanceTo(clock.ms() + 60_000);
    }
    await expectHonoured(t, receiver, s, 'asked on a call');
  });

  it('an e-mail reply asking to stop does the same', async () => {
    const receiver = await rx;
    const s = await carrierWithQueuedContact(t, receiver.url);
    const res = await reply(t, s.sent, defined(s.email, 's.email'), 'Please remove me from your list.');
    expect(res.json()).toMatchObject({ status: 'replied', reason: 'stop_contact' });
    await expectHonoured(t, receiver, s, 'asked in an e-mail reply');
  });

  it('a Postmark spam complaint does the same', async () => {
    const receiver = await rx;
    const s = await carrierWithQueuedContact(t, receiver.url);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/integrations/email/events',
      headers: {
        authorization: `Basic ${Buffer.from(`postmark:${SECRET}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      payload: JSON.stringify(
        postmarkSpamComplaint({ Metadata: { outreach_id: s.sent.id }, Email: defined(s.email, 's.email') }),
      ),
    });
    expect(res.json()).toMatchObject({ status: 'stop_contact_recorded', carrier_id: s.carrierId });
    await expectHonoured(t, receiver, s, 'marked our e-mail as spam');
  });
});

describe("a carrier's stop-contact request on WhatsApp", async () => {
  const whatsapp = await whatsappStandIn();
  const t = useTestApp({ env: { ...whatsapp.env, WORKERS_ENABLED: 'false' }, clock: CHICAGO_EVENING });
  const rx = startReceiver();
  afterAll(async () => (await rx).close());

  it('a WhatsApp reply asking to stop does the same', async () => {
    const receiver = await rx;
    const s = await carrierWithQueuedContact(t, receiver.url, 'whatsapp');
    const digits = s.phone.slice(1);
    const opening = defined(
      whatsapp.requests.find((r) => r.body.to === digits),
      'whatsapp.requests.find((r) => r.body.to === digits)',
    );
    const body = whatsappWebhook({
      contacts: [{ profile: { name: 'Dispatch' }, wa_id: digits }],
      messages: [
        {
          from: digits,
          id: `wamid.STOP${digits}`,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: 'STOP. Remove me from your list.' },
          context: { from: '15550001111', id: opening.id },
        },
      ],
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/integrations/whatsapp/webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWhatsApp(body) },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      expect.objectContaining({ status: 'replied', outreach_id: s.sent.id, reason: 'stop_contact' }),
    ]);
    await expectHonoured(t, receiver, s, 'asked in a WhatsApp message');
  });
});
