import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  agentRound,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  laneCarrier,
  outreachesOf,
  QUIET_NIGHT,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { buildTestApp, fileDatabaseUrl, manualClockOf, type TestApp, useTestApp } from '../helpers/app.js';
import { signWhatsApp, whatsappStandIn, whatsappWebhook } from '../helpers/whatsapp-stand-in.js';

// No loop runs the agent here: each test runs its rounds with `agentRound` and asserts what one did.
const drivenEnv = { ...agentEnv, WORKERS_ENABLED: 'false' };
const { requests: graphRequests, env: standInEnv, hooks: graphHooks } = await whatsappStandIn();
const whatsappEnv = { ...standInEnv, WORKERS_ENABLED: 'false' };
const sign = signWhatsApp;
const webhook = whatsappWebhook;

describe('the agent on WhatsApp (Cloud API)', () => {
  const t = useTestApp({ env: whatsappEnv });
  const post = (body: string, signature = sign(body)) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/integrations/whatsapp/webhook',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      payload: body,
    });

  it('answers the subscription check with the challenge, and refuses a wrong verify token', async () => {
    const ok = await t.app.inject({
      method: 'GET',
      url: '/api/v1/integrations/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=4242',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('4242');
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/integrations/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=4242',
    });
    expect(bad.statusCode).toBe(403);
  });

  it('sends the message of a keyed POST /outreaches only once the request has committed', async () => {
    const { h } = await tenant(t, { channel_order: ['whatsapp'] });
    const carrier = await laneCarrier(t, h, { email: null, phone: '+14155550178' });
    const loadId = await agentLoad(t, h, { assigned_to_ai_agent: false });
    // What another connection sees of the carrier's outreaches when the Cloud API gets the message.
    const seen: number[] = [];
    graphHooks.onMessage = async () => {
      const rows = await t.database.pool.query('SELECT id FROM outreaches WHERE carrier_id = $1', [carrier]);
      seen.push(rows.rowCount ?? 0);
    };
    try {
      const before = graphRequests.length;
      const send = () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/outreaches',
          headers: { ...h, 'idempotency-key': `wa-${carrier}` },
          payload: { carrier_id: carrier, load_id: loadId, modality: 'whatsapp' },
        });
      const first = await send();
      expect(first.statusCode, first.body).toBe(201);
      expect(seen).toEqual([1]);
      const replay = await send();
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(graphRequests.length - before).toBe(1);
    } finally {
      graphHooks.onMessage = null;
    }
  });

  it('opens with the template, reads the reply, counters in the thread, and refuses a forged delivery', async () => {
    const { h } = await tenant(t, { channel_order: ['whatsapp'] });
    await laneCarrier(t, h, { email: null, phone: '+14155550177' });
    const loadId = await agentLoad(t, h);
    // One round plans the contact and sends it to the Cloud API.
    const list = await afterRound(t, h, loadId);
    expect(list.map((o) => [o.modality, o.status])).toEqual([['whatsapp', 'active']]);
    const sent = list[0];
    const opening = defined(
      graphRequests.find((r) => r.body.to === '14155550177'),
      "graphRequests.find((r) => r.body.to === '14155550177')",
    );
    expect(opening).toBeDefined();
    expect(opening.url).toBe('/v21.0/1098765/messages');
    expect(opening.authorization).toBe('Bearer graph-token');
    expect(opening.body).toMatchObject({ messaging_product: 'whatsapp', type: 'template' });
    expect(JSON.stringify(opening.body.template?.components)).toContain('$2,000');

    const body = webhook({
      contacts: [{ profile: { name: 'Dispatch' }, wa_id: '14155550177' }],
      messages: [
        {
          from: '14155550177',
          id: 'wamid.IN1',
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: 'text',
          text: { body: 'can do 2.1k' },
          context: { from: '15550001111', id: opening.id },
        },
      ],
    });
    expect((await post(body, sign(body, 'wrong'))).statusCode).toBe(401);
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      expect.objectContaining({
        status: 'replied',
        outreach_id: defined(sent, 'sent').id,
        reason: 'counter',
      }),
    ]);
    const answer = defined(graphRequests.at(-1), 'graphRequests.at(-1)');
    expect(answer.body).toMatchObject({
      type: 'text',
      to: '14155550177',
      context: { message_id: 'wamid.IN1' },
    });
    expect(answer.body.text?.body).toContain('$2,000');
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
    ).json();
    expect(offers.data[0]).toMatchObject({
      offer_amount: 2100,
      channel: 'messaging',
      counter_offer_amount: 2000,
    });

    // A failure reported late, after the carrier answered, marks nothing: the carrier was reached.
    const failed = webhook({
      statuses: [
        {
          id: opening.id,
          status: 'failed',
          timestamp: String(Math.floor(Date.now() / 1000)),
          recipient_id: '14155550177',
          errors: [{ code: 131026, title: 'Message undeliverable' }],
        },
      ],
    });
    expect((await post(failed)).statusCode).toBe(200);
    const [after] = await outreachesOf(t, h, loadId);
    expect(defined(after, 'after').delivery_failed_at).toBeNull();
  });
});

// Two instances on one database, each on a manual clock at an evening in Chicago (quiet hours
// there); the test moves both together.
describe('the agent across instances and at send time', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const databaseUrl = await fileDatabaseUrl();
    a = await buildTestApp({ databaseUrl, env: drivenEnv, clock: CHICAGO_EVENING });
    b = await buildTestApp({ databaseUrl, env: drivenEnv, clock: CHICAGO_EVENING });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('plans each load once and keeps the daily cap when two instances work side by side', async () => {
    // One contact per load, no gap: the cap across instances alone is under test.
    const { h } = await tenant(a, {
      daily_cap_per_carrier: 4,
      carrier_min_gap_minutes: 0,
      group_lane_loads: false,
    });
    const carriers = [await laneCarrier(a, h), await laneCarrier(a, h), await laneCarrier(a, h)];
    const loadIds: string[] = [];
    for (let i = 0; i < 6; i++) loadIds.push(await agentLoad(a, h));
    // A round on each instance at once: each load is leased by one of them, and every load is planned.
    await Promise.all([agentRound(a), agentRound(b)]);
    const all = (await Promise.all(loadIds.map((id) => outreachesOf(a, h, id)))).flat();
    // Three carriers with a cap of four across six loads: twelve contacts, never a pair twice.
    expect(all).toHaveLength(12);
    const loadOf = (o: unknown) => z.object({ load_id: z.string() }).parse(o).load_id;
    const pairs = new Set(all.map((o) => `${o.carrier_id}/${loadOf(o)}`));
    expect(pairs.size).toBe(12);
    for (const c of carriers) expect(all.filter((o) => o.carrier_id === c)).toHaveLength(4);
  });

  // A stop-contact request withdraws queued contacts at once (test/agent/stop-contact.test.ts); a
  // carrier disabled after its contact was queued is caught by the guard at send time.
  it('re-checks the guard when a queued contact comes due: a carrier disabled meanwhile is not contacted', async () => {
    const { h, user } = await tenant(a, {
      quiet_hours_start: QUIET_NIGHT.start,
      quiet_hours_end: QUIET_NIGHT.end,
    });
    const stays = await laneCarrier(a, h);
    const stops = await laneCarrier(a, h);
    const loadId = await agentLoad(a, h);
    const queued = await afterRound(a, h, loadId);
    expect(queued.map((o) => o.status)).toEqual(['pending', 'pending']);
    const disable = await a.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${stops}/disable`,
      headers: user.headers,
      payload: { reason: 'compliance' },
    });
    expect(disable.statusCode).toBe(200);
    expect((await outreachesOf(a, h, loadId)).map((o) => o.status)).toEqual(['pending', 'pending']);
    expect(queued.map((o) => o.send_after)).toEqual([
      CHICAGO_MORNING.toISOString(),
      CHICAGO_MORNING.toISOString(),
    ]);
    // Quiet hours end.
    await manualClockOf(a).advanceTo(CHICAGO_MORNING);
    await manualClockOf(b).advanceTo(CHICAGO_MORNING);
    // The other instance's next round sends one and withdraws the other.
    const done = await afterRound(b, h, loadId);
    const byCarrier = new Map(done.map((o) => [o.carrier_id, o]));
    expect(defined(byCarrier.get(stays), 'byCarrier.get(stays)').status).toBe('active');
    expect(byCarrier.get(stops)).toMatchObject({
      status: 'failed',
      error_reason: 'not contacted: inactive',
    });
  });
});

/** A stand-in for an OpenAI-compatible chat-completions endpoint. */
const llmRequests: { messages: { role: string; content: string }[]; response_format?: unknown }[] = [];
const llm = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    llmRequests.push(body);
    const content = body.response_format
      ? JSON.stringify({ rate: 2150, available: true, stop_contact: false })
      : 'Appreciate it! We could do $2,000 on this one, would that work?';
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'cmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
});
await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
afterAll(() => new Promise<void>((r) => llm.close(() => r())));

describe('the agent with a chat model configured', () => {
  const t = useTestApp({
    env: {
      ...drivenEnv,
      LLM_BASE_URL: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`,
      LLM_API_KEY: 'llm-key',
      LLM_MODEL: 'freight-mini',
    },
  });

  it('reads each reply with the model beside the rules, confirms what they read differently, and drafts without the load’s limits', async () => {
    const { h } = await tenant(t);
    const carrierId = await laneCarrier(t, h);
    // A load number without digits, so the check below reads only amounts.
    const letters = Array.from({ length: 8 }, () =>
      String.fromCharCode(97 + Math.floor(Math.random() * 26)),
    ).join('');
    const loadId = await agentLoad(t, h, { load_number: `LN-${letters}` });
    const list = await afterRound(t, h, loadId);
    expect(list.map((x) => x.status)).toEqual(['active']);
    const [o] = list;
    const email = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrierId}`, headers: h })
    ).json().email;
    const before = llmRequests.length;
    const extractions = () => llmRequests.slice(before).filter((r) => r.response_format);
    // The model (2150) and the rules agree: the negotiation goes on, and the model drafts the counter.
    const agreed = await reply(t, defined(o, 'o'), email, 'We can do 2,150 all in');
    expect(agreed.json()).toMatchObject({ reason: 'counter' });
    expect(extractions()).toHaveLength(1);
    const drafted = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/outreaches/${defined(o, 'o').id}/messages`,
        headers: h,
      })
    ).json().data;
    expect(drafted.at(-1).body).toBe('Appreciate it! We could do $2,000 on this one, would that work?');
    // The rules read no amount where the model reads 2150: nothing is taken, the amount is asked
    // to be confirmed, in the default wording (the model words no confirmation).
    const res = await reply(
      t,
      defined(o, 'o'),
      email,
      'ok the number I gave Jim on the phone and we roll tonight',
    );
    expect(res.json()).toMatchObject({ status: 'replied', offer_id: null, reason: 'confirm' });
    expect(extractions()).toHaveLength(2);
    const messages = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/outreaches/${defined(o, 'o').id}/messages`,
        headers: h,
      })
    ).json().data;
    expect(messages.at(-1).body).toBe(`Thanks! To confirm: load LN-${letters} at $2,150 all in?`);
    // The agent's results count what the model read and where it disagreed with the rules.
    const results = (await t.app.inject({ method: 'GET', url: '/api/v1/agent/results', headers: h })).json();
    expect(results.reading).toEqual({ replies_read: 2, read_by_chat_model: 2, reader_disagreements: 1 });
    // Nothing the model saw carries the max buy rate (2400), the customer rate (2900) or the margin (500).
    for (const r of llmRequests.slice(before)) {
      expect(JSON.stringify(r.messages)).not.toMatch(/2,?400|2,?900|\b500\b/);
    }
  });
});
