import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  carrierEmail,
  type Headers,
  laneCarrier,
  outreachesOf,
  reply,
  reviewWaited,
  tenant,
} from '../helpers/agent-factories.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { bookOn, escalationBody } from '../helpers/load-factories.js';

const env = { ...agentEnv, WORKERS_ENABLED: 'false' };

const escalationsOf = async (t: TestApp, h: Headers, loadId: string, query = '') => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/loads/${loadId}/escalations${query}`,
    headers: h,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Record<string, unknown>[]>();
};

/**
 * A load the agent works, a carrier's answer under the posted rate waiting for a rep, and its
 * review item escalated (it waited 20 minutes, over review_escalation_minutes).
 */
async function escalatedReview(t: TestApp) {
  const { h, user } = await tenant(t, { review_escalation_minutes: 15 });
  const carrier = await laneCarrier(t, h);
  const email = await carrierEmail(t, h, carrier);
  const loadId = await agentLoad(t, h);
  await agentRound(t);
  const outreach = defined(
    (await outreachesOf(t, h, loadId)).find((o) => o.is_automated),
    'the automated outreach',
  );
  const answered = await reply(t, outreach, email, '1950 works for us');
  const offerId = answered.json<{ offer_id: string }>().offer_id;
  expect(offerId).toBeTruthy();
  await agentRound(t);
  // Raised as a review item, not escalated yet: no escalation.
  expect(await escalationsOf(t, h, loadId)).toEqual([]);
  await reviewWaited(t, offerId, 20);
  await agentRound(t);
  await agentRound(t);
  return { h, user, carrier, loadId, offerId };
}

describe("the agent's review escalation", () => {
  const t = useTestApp({ env });

  it('is raised once, in the shape, and RESPONDED by the rep who decides the offer', async () => {
    const { h, user, carrier, loadId, offerId } = await escalatedReview(t);
    const raised = await escalationsOf(t, user.headers, loadId);
    expect(raised).toEqual([
      escalationBody({
        load_id: loadId,
        agent_type: 'CARRIER_SALES',
        escalation_type: 'offer_review',
        message: expect.stringContaining(`Offer ${offerId} of $1,950 from carrier ${carrier}`),
        offer_id: offerId,
        reason: expect.stringContaining('review_escalation_minutes'),
      }),
    ]);
    expect(String(raised[0]?.message)).toContain('accept, reject or counter');
    const load = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: h });
    expect(load.json().active_escalation_count).toBe(1);

    // A rep rejects the offer: the review is answered by that decision, by that rep.
    const decided = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/offers/${offerId}`,
      headers: user.headers,
      payload: { status: 'rejected' },
    });
    expect(decided.statusCode, decided.body).toBe(200);
    expect(await escalationsOf(t, h, loadId)).toEqual([]);
    expect(await escalationsOf(t, h, loadId, '?status=RESPONDED')).toEqual([
      expect.objectContaining({
        id: raised[0]?.id,
        status: 'RESPONDED',
        response_message: 'Offer rejected (it was pending)',
        response_user_id: user.id,
        responded_at: expect.any(String),
      }),
    ]);
    // The agent's later rounds raise no second one for the same offer.
    await agentRound(t);
    expect(await escalationsOf(t, h, loadId, '?status=ACTIVE,RESPONDED,CANCELLED,TIMED_OUT')).toHaveLength(1);
  });

  it('is CANCELLED when the load is booked on another offer', async () => {
    const { h, loadId, offerId } = await escalatedReview(t);
    const [raised] = await escalationsOf(t, h, loadId);
    expect(raised).toMatchObject({ offer_id: offerId, status: 'ACTIVE' });
    const other = await laneCarrier(t, h);
    await bookOn(t, h, loadId, other, 1900);
    expect(await escalationsOf(t, h, loadId)).toEqual([]);
    expect(await escalationsOf(t, h, loadId, '?status=CANCELLED')).toEqual([
      expect.objectContaining({
        id: raised?.id,
        status: 'CANCELLED',
        resolved_at: expect.any(String),
        responded_at: null,
        response_message: null,
      }),
    ]);
  });

  it('is RESPONDED when a rep counters the offer', async () => {
    const { h, loadId, offerId } = await escalatedReview(t);
    const countered = await t.app.inject({
      method: 'POST',
      url: `/api/v1/offers/${offerId}/counter`,
      headers: h,
      payload: { amount: 1850 },
    });
    expect(countered.statusCode, countered.body).toBe(200);
    expect(await escalationsOf(t, h, loadId, '?status=RESPONDED')).toEqual([
      expect.objectContaining({
        offer_id: offerId,
        status: 'RESPONDED',
        response_message: 'Countered at $1850',
        response_user_id: null,
      }),
    ]);
  });
});
