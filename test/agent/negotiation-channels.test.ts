import type { Vapi } from '@vapi-ai/server-sdk';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { negotiations } from '../../src/modules/offers/offers-tables.js';
import {
  afterRound,
  agentLoad,
  carrierEmail,
  type Headers,
  laneCarrier,
  messagesOf,
  reply,
  setStrictMode,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import {
  firstToolAnswer,
  sendVapi,
  toolCalls,
  useVapiStandIn,
  vapiCall,
  vapiEnv,
} from '../helpers/vapi-stand-in.js';
import { signWhatsApp, whatsappStandIn, whatsappWebhook } from '../helpers/whatsapp-stand-in.js';

// A carrier probing for the ceiling: the offers that bisect a max_buy_rate of 2,700 under the
// earlier rule (3,000 declined, 2,500 countered, 2,750 declined, ...), then coming down to the
// agent's asks. Two organizations, identical but for the load's max_buy_rate (2,700 and 3,400,
// both over anything the agent asks), must hear the same answers, byte for byte, on every channel.
const PROBES = [3000, 2500, 2750, 2625, 2690, 2720, 2705, 2450, 2400, 2400];
const CEILINGS = [2700, 3400] as const;
const LOAD_NUMBER = 'LN-BISECT-7';

interface Heard {
  offer: number;
  decision: string;
  text: string;
}

/** The carrier's probes, each answered on the channel (`say` returns the decision and the words). */
async function probe(say: (amount: number) => Promise<{ decision: string; text: string }>) {
  const heard: Heard[] = [];
  for (const offer of PROBES) heard.push({ offer, ...(await say(offer)) });
  return heard;
}

/** What a broker would expect of the answers, whatever the ceiling. */
function expectNothingRevealed(a: Heard[], b: Heard[]) {
  expect(b).toEqual(a);
  // The run reaches every kind of answer the schedule has: counters, the final round, the pass.
  expect(a.map((h) => h.decision)).toEqual([
    'counter',
    'counter',
    'counter',
    'counter',
    'counter',
    'counter',
    'counter',
    'final',
    'pass',
    'pass',
  ]);
  for (const h of a) expect(h.text).not.toMatch(/2,?700|3,?400|2,?900|margin|max buy/i);
  // An offer over the lower ceiling (2,750) and one under it (2,625) heard the very same words.
  expect(defined(a[2], 'a[2]').text).toBe(defined(a[3], 'a[3]').text);
}

const { requests: graph, env: whatsappEnv } = await whatsappStandIn();

describe('a carrier bisecting the ceiling by e-mail and WhatsApp hears the same answers whatever the ceiling', () => {
  const t = useTestApp({ env: { ...whatsappEnv, WORKERS_ENABLED: 'false' } });

  /** An organization, its carrier and the load, contacted once; `settings` as PATCHed. */
  async function opened(
    ceiling: number,
    settings: Record<string, unknown>,
    carrier: Record<string, unknown>,
  ) {
    const { h } = await tenant(t, settings);
    const carrierId = await laneCarrier(t, h, { name: 'Bisect Freight', ...carrier });
    const loadId = await agentLoad(t, h, { load_number: LOAD_NUMBER, max_buy_rate: ceiling });
    const [o] = await afterRound(t, h, loadId);
    expect(o).toMatchObject({ carrier_id: carrierId, status: 'active' });
    return { h, carrierId, o: defined(o, 'o') };
  }

  async function byEmail(ceiling: number, settings: Record<string, unknown> = {}) {
    const { h, carrierId, o } = await opened(ceiling, settings, {});
    const from = await carrierEmail(t, h, carrierId);
    return probe(async (amount) => {
      const res = await reply(t, o, from, `We can do $${amount.toLocaleString('en-US')} all in.`);
      expect(res.statusCode, res.body).toBe(200);
      const last = defined((await messagesOf(t, h, o.id)).at(-1), '(await messagesOf(t, h, o.id)).at(-1)');
      expect(last.direction).toBe('outbound');
      return { decision: res.json().reason, text: last.body };
    });
  }

  it('by e-mail', async () => {
    const [a, b] = [await byEmail(CEILINGS[0]), await byEmail(CEILINGS[1])];
    expectNothingRevealed(a, b);
  });

  it('by e-mail under the earlier rule, which the same probes expose (the test can tell)', async () => {
    const legacy = { negotiation: { strategy: 'posted_rate_once' } };
    const [a, b] = [await byEmail(CEILINGS[0], legacy), await byEmail(CEILINGS[1], legacy)];
    expect(a[0]).toMatchObject({ offer: 3000, decision: 'decline' });
    expect(b[0]).toMatchObject({ offer: 3000, decision: 'counter' });
    expect(b).not.toEqual(a);
  });

  it('never asks for a rate once the carrier quoted one or said no: it restates where it stands', async () => {
    const { h, carrierId, o } = await opened(CEILINGS[0], {}, {});
    const from = await carrierEmail(t, h, carrierId);
    expect((await reply(t, o, from, 'We need 2,600 all in')).json()).toMatchObject({ reason: 'counter' });
    const asked = await reply(t, o, from, 'Hmm, is that really the best you have?');
    expect(asked.json()).toMatchObject({ status: 'replied', reason: 'counter', offer_id: null });
    const messages = await messagesOf(t, h, o.id);
    expect(defined(messages.at(-1), 'messages.at(-1)').body).toBe(
      defined(messages.at(-3), 'messages.at(-3)').body,
    );
    expect(defined(messages.at(-1), 'messages.at(-1)').body).toContain('$2,000');
    expect((await reply(t, o, from, 'No thanks, we will pass')).json()).toMatchObject({
      reason: 'not_available',
    });
    expect((await reply(t, o, from, 'ok, have a good one')).json()).toMatchObject({
      reason: 'not_available',
    });
    expect((await messagesOf(t, h, o.id)).filter((m) => m.intent === 'ask_rate')).toEqual([]);
  });

  it('keeps the negotiation policy in the agent settings: defaults, partial changes, validation naming the field', async () => {
    const { h } = await tenant(t);
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/agent/settings', headers: h });
    expect(get.json().negotiation).toEqual({
      strategy: 'concede',
      target_basis: 'posted_rate',
      opening_ask_pct: 95,
      max_rounds: 3,
      concession_schedule: [
        { min_hours_to_pickup: 72, max_concession_pct: 2 },
        { min_hours_to_pickup: 24, max_concession_pct: 4 },
        { min_hours_to_pickup: 6, max_concession_pct: 6 },
        { min_hours_to_pickup: 0, max_concession_pct: 10 },
      ],
      best_and_final: true,
      auto_accept_at_or_under_ask: false,
      round_to: 25,
    });
    const patch = (negotiation: Record<string, unknown>) =>
      t.app.inject({ method: 'PATCH', url: '/api/v1/agent/settings', headers: h, payload: { negotiation } });
    const ok = await patch({
      max_rounds: 4,
      concession_schedule: [
        { min_hours_to_pickup: 0, max_concession_pct: 12 },
        { min_hours_to_pickup: 48, max_concession_pct: 4 },
      ],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().negotiation).toMatchObject({
      strategy: 'concede',
      max_rounds: 4,
      opening_ask_pct: 95,
      // Stored and shown most hours first.
      concession_schedule: [
        { min_hours_to_pickup: 48, max_concession_pct: 4 },
        { min_hours_to_pickup: 0, max_concession_pct: 12 },
      ],
    });
    const read = await t.app.inject({ method: 'GET', url: '/api/v1/agent/settings', headers: h });
    expect(read.json().negotiation).toEqual(ok.json().negotiation);
    const bad = async (negotiation: Record<string, unknown>, param: string) => {
      const res = await patch(negotiation);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error.param).toBe(param);
    };
    await bad({ strategy: 'haggle' }, 'negotiation.strategy');
    await bad({ max_rounds: 0 }, 'negotiation.max_rounds');
    await bad({ opening_ask_pct: 120 }, 'negotiation.opening_ask_pct');
    // Concessions must not shrink as pickup nears, and a step must cover the last hours.
    await bad(
      {
        concession_schedule: [
          { min_hours_to_pickup: 24, max_concession_pct: 10 },
          { min_hours_to_pickup: 0, max_concession_pct: 5 },
        ],
      },
      'negotiation.concession_schedule',
    );
    await bad(
      { concession_schedule: [{ min_hours_to_pickup: 24, max_concession_pct: 10 }] },
      'negotiation.concession_schedule',
    );
  });

  let phoneSerial = 0;
  async function byWhatsApp(ceiling: number) {
    const phone = `+1415555${String(210 + phoneSerial++).padStart(4, '0')}`;
    const waId = phone.slice(1);
    const { o } = await opened(ceiling, { channel_order: ['whatsapp'] }, { email: null, phone });
    const opening = defined(
      graph.find((r) => r.body.to === waId),
      'graph.find((r) => r.body.to === waId)',
    );
    expect(opening).toBeDefined();
    let serial = 0;
    return probe(async (amount) => {
      const body = whatsappWebhook({
        contacts: [{ profile: { name: 'Dispatch' }, wa_id: waId }],
        messages: [
          {
            from: waId,
            id: `wamid.BISECT.${waId}.${serial++}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'text',
            text: { body: `can do ${amount}` },
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
      const [result] = res.json().results;
      expect(result).toMatchObject({ status: 'replied', outreach_id: o.id });
      const answer = defined(graph.at(-1), 'graph.at(-1)');
      expect(answer.body.to).toBe(waId);
      return { decision: result.reason, text: defined(answer.body.text, 'answer.body.text').body };
    });
  }

  it('by WhatsApp', async () => {
    const [a, b] = [await byWhatsApp(CEILINGS[0]), await byWhatsApp(CEILINGS[1])];
    expectNothingRevealed(a, b);
  });
});

describe('a carrier bisecting the ceiling through submit_offer hears the same answers whatever the ceiling', () => {
  const standIn = useVapiStandIn();
  const t = useTestApp({ env: vapiEnv(standIn, { COMPLIANCE_REGISTRY_FILE: registryFile([]) }) });

  async function byPhone(ceiling: number) {
    const { user } = await createTenant(t);
    await setStrictMode(t, user.headers, false);
    const h: Headers = user.headers;
    await createCarrier(t, h, { phone: '+14155550190', name: 'Bisect Freight' });
    const loadId = await createLoad(t, h, {
      load_number: LOAD_NUMBER,
      posted_rate: 2000,
      max_buy_rate: ceiling,
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/calls',
      headers: h,
      payload: { phone_number: '+14155550190', load_id: loadId, call_type: 'LOAD_BOOKING' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const call: Vapi.Call = vapiCall(standIn.lastCall().vapiId, res.json().id);
    let serial = 0;
    const heard = await probe(async (amount) => {
      const sent = await sendVapi(
        t,
        toolCalls(call, [{ id: `tc${serial++}`, name: 'submit_offer', args: { offer_amount: amount } }]),
      );
      expect(sent.statusCode, sent.body).toBe(200);
      const answer = firstToolAnswer(sent);
      const metadata = z.object({ decision: z.string() }).parse(answer.metadata);
      return {
        decision: metadata.decision,
        text: defined(answer.result, 'answer.result'),
      };
    });
    // The call's carrier (found at the number) has its conversation kept: three rounds (the last at
    // 10% over the posted rate, pickup being near), then a pass.
    const [state] = await t.database.db.select().from(negotiations).where(eq(negotiations.load_id, loadId));
    expect(state).toMatchObject({ rounds: 3, last_counter: 2200, passed: true, declined: false });
    return heard;
  }

  it('through the voice tool', async () => {
    const [a, b] = [await byPhone(CEILINGS[0]), await byPhone(CEILINGS[1])];
    expectNothingRevealed(a, b);
  });
});
