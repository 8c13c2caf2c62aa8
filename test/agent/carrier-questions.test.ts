import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  carrierEmail,
  laneCarrier,
  messagesOf,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { useTestApp } from '../helpers/app.js';
import { stopPayload } from '../helpers/load-factories.js';

const env = { ...agentEnv, WORKERS_ENABLED: 'false' };

/** Internal figures and notes of the load below: none may reach a carrier. */
const INTERNAL = /2,?650|3,?175|\b525\b|GATE CODE|customer|margin|max buy/i;

describe("the agent answers a carrier's questions about the load", () => {
  const t = useTestApp({ env });

  /** A load with facts to tell and internal numbers and stop notes to keep. */
  async function conversation() {
    const { h } = await tenant(t);
    const carrierId = await laneCarrier(t, h);
    const loadId = await agentLoad(t, h, {
      posted_rate: 2000,
      max_buy_rate: 2650,
      customer_rate: 3175,
      margin: 525,
      commodity: 'Paper rolls',
      weight: 42000,
      special_instructions: ['Drop and hook at the receiver'],
      stops: [
        {
          ...stopPayload('Pickup'),
          planned: { start: '2026-03-02T14:00:00Z', end: '2026-03-02T16:00:00Z' },
          notes: 'GATE CODE 4417, customer pays 3175',
        },
        stopPayload('Dropoff'),
      ],
    });
    const [outreach] = await afterRound(t, h, loadId);
    expect(outreach).toMatchObject({ carrier_id: carrierId, status: 'active' });
    return { h, loadId, outreach: defined(outreach, 'outreach'), email: await carrierEmail(t, h, carrierId) };
  }

  it('answers an e-mail question from the load’s facts and asks for a rate, saying nothing internal', async () => {
    const { h, outreach, email } = await conversation();
    const res = await reply(
      t,
      outreach,
      email,
      "What's the weight and is it drop and hook?\n\nThanks,\nMike",
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'replied', reason: 'ask_rate', offer_id: null });
    const answer = defined(
      (await messagesOf(t, h, outreach.id)).at(-1),
      '(await messagesOf(t, h, outreach.id)).at(-1)',
    );
    expect(answer).toMatchObject({ direction: 'outbound', intent: 'ask_rate' });
    expect(answer.body).toContain('It weighs 42,000 lb.');
    expect(answer.body).toContain('Drop and hook at the receiver');
    expect(answer.body).toMatch(/What rate would you need/);
    expect(answer.body).not.toMatch(INTERNAL);
  });

  it('answers the question asked beside a price, ahead of the counter-offer', async () => {
    const { h, loadId, outreach, email } = await conversation();
    const res = await reply(
      t,
      outreach,
      email,
      'TONU $150 if it cancels. 2300 all in. What time is the pickup appointment?',
    );
    expect(res.json()).toMatchObject({ status: 'replied', reason: 'counter' });
    // The line haul is the offer, not the TONU charge.
    const offers = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })
    ).json<{ data: { offer_amount: number }[] }>().data;
    expect(offers.map((o) => o.offer_amount)).toEqual([2300]);
    const answer = defined(
      (await messagesOf(t, h, outreach.id)).at(-1),
      '(await messagesOf(t, h, outreach.id)).at(-1)',
    );
    expect(answer.body).toMatch(/^Appointments: pickup in Chicago, IL 2026-03-02 14:00 UTC to 16:00 UTC\./);
    expect(answer.body).toContain('We can do $2,000');
    expect(answer.body).not.toMatch(INTERNAL);
  });

  it('answers nothing to a carrier who says no, and reads its refusal', async () => {
    const { h, outreach, email } = await conversation();
    const res = await reply(t, outreach, email, "We don't have any reefers. What's the weight anyway?");
    expect(res.json()).toMatchObject({ status: 'replied', reason: 'not_available' });
    const answer = defined(
      (await messagesOf(t, h, outreach.id)).at(-1),
      '(await messagesOf(t, h, outreach.id)).at(-1)',
    );
    expect(answer.intent).toBe('not_available');
    expect(answer.body).not.toContain('42,000');
  });
});
