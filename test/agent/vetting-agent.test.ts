import { writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  afterRound,
  agentEnv,
  agentLoad,
  CHICAGO_EVENING,
  CHICAGO_MORNING,
  laneCarrier,
  messagesOf,
  nextEmail,
  outreachesOf,
  QUIET_NIGHT,
  reply,
  tenant,
  waitForWave,
} from '../helpers/agent-factories.js';
import { drainWorker, useTestApp } from '../helpers/app.js';
import { carrierAfterChecks, goodStanding, registryFile } from '../helpers/carrier-factories.js';
import { postWhatsAppText, whatsappStandIn } from '../helpers/whatsapp-stand-in.js';

const insured = goodStanding('641001', '741001', { liability_usd: 1_000_000 });
const registry = registryFile([insured]);
const { requests: graphRequests, env: whatsappEnv } = await whatsappStandIn();
const env = {
  ...agentEnv,
  ...whatsappEnv,
  COMPLIANCE_REGISTRY_FILE: registry,
  WORKERS_ENABLED: 'false',
  // A lane ranking that outlives the test: a carrier joining the lane must renew it all the same.
  AGENT_RANKING_TTL_MS: '600000',
};

const offersOf = async (t: ReturnType<typeof useTestApp>, h: Record<string, string>, loadId: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}/offers`, headers: h })).json().data;

describe('strict mode on e-mail and WhatsApp replies', () => {
  const t = useTestApp({ env });

  it('keeps an unvetted carrier’s e-mailed quote held for vetting with a review item and no rate said, then books it as any other once the carrier passes', async () => {
    // One contact per load: each carrier's first message is about the load the test names (with
    // lane grouping, the vetted carrier could hear of both loads in one message about either).
    const { h } = await tenant(
      t,
      { group_lane_loads: false, auto_accept_at_or_under_posted_rate: true },
      true,
    );
    const email = nextEmail();
    const unvetted = await laneCarrier(t, h, { email, mc_number: '641077' });
    const loadId = await agentLoad(t, h);
    const [sent] = await afterRound(t, h, loadId);
    expect(sent).toMatchObject({ carrier_id: unvetted, status: 'active' });
    // Its first message names the lane, dates and equipment, and no rate.
    const opening = defined(
      (await messagesOf(t, h, defined(sent, 'sent').id))[0],
      '(await messagesOf(t, h, sent.id))[0]',
    );
    expect(opening).toMatchObject({ direction: 'outbound', intent: 'first_contact' });
    expect(opening.body).toMatch(/Chicago, IL to Dallas, TX, VAN, pickup \d{4}-\d\d-\d\d/);
    expect(opening.body).not.toMatch(/posted rate|\$\d/i);
    const res = await reply(t, defined(sent, 'sent'), email, 'We can do it for $1,800, what is the weight?');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'replied',
      offer_id: expect.any(String),
      reason: 'vetting_pending',
    });
    // Kept, pending, held for vetting: never booked, and visible as such.
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({
        carrier_id: unvetted,
        offer_amount: 1800,
        status: 'pending',
        held_for: 'vetting',
      }),
    ]);
    const answer = defined(
      (await messagesOf(t, h, defined(sent, 'sent').id)).at(-1),
      '(await messagesOf(t, h, sent.id)).at(-1)',
    );
    expect(answer).toMatchObject({ direction: 'outbound', intent: 'vetting_pending' });
    expect(answer.body).not.toMatch(/\$\d|lb/);
    expect(answer.body).toMatch(/verifying your company/);
    // A review item is raised for it.
    await drainWorker(t, 'agent');
    const reviews = (await t.app.inject({ method: 'GET', url: '/api/v1/agent/reviews', headers: h })).json();
    expect(JSON.stringify(reviews)).toContain(res.json().offer_id);
    // Its compliance check was made due; the registry now shows it in good standing: it passes,
    // the quote goes the normal way (an amount to book is confirmed first), and the yes books it.
    writeFileSync(
      registry,
      JSON.stringify([insured, goodStanding('641077', '741077', { liability_usd: 1_000_000 })]),
    );
    expect(await drainWorker(t, 'compliance')).toBeGreaterThanOrEqual(1);
    await drainWorker(t, 'agent');
    const asked = defined((await messagesOf(t, h, defined(sent, 'sent').id)).at(-1), 'the confirmation');
    expect(asked).toMatchObject({ direction: 'outbound', intent: 'confirm' });
    expect(asked.body).toMatch(/To confirm: load \S+ at \$1,800 all in\?/);
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({ id: res.json().offer_id, status: 'pending', held_for: 'confirmation' }),
    ]);
    const yes = await reply(t, defined(sent, 'sent'), email, 'Yes, confirmed');
    expect(yes.json()).toMatchObject({ status: 'replied', offer_id: res.json().offer_id, reason: 'accept' });
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({ id: res.json().offer_id, status: 'accepted', held_for: null }),
    ]);
    writeFileSync(registry, JSON.stringify([insured]));

    // A carrier that passed (PASSED, low risk) negotiates as before on another load.
    const vettedEmail = nextEmail();
    const vetted = await laneCarrier(t, h, { email: vettedEmail, mc_number: '641001' });
    // Checked before the agent plans, whether or not the inline check finished within its budget.
    expect(await carrierAfterChecks(t, h, vetted)).toMatchObject({
      compliance_status: 'PASSED',
      risk_level: 'low',
    });
    const second = await agentLoad(t, h);
    // Its contact about the second load goes out in the load's first wave (the carrier in
    // conversation on the lane is within its contact gap): the lane's ranking, cached from the first
    // load, is renewed when the vetted carrier joins the lane.
    const sentToVetted = defined(
      (await afterRound(t, h, second)).find((o) => o.carrier_id === vetted),
      "the vetted carrier's contact about the second load, in its first wave",
    );
    const vettedOpening = defined(
      (await messagesOf(t, h, sentToVetted.id))[0],
      '(await messagesOf(t, h, sentToVetted.id))[0]',
    );
    expect(vettedOpening.body).toMatch(/posted rate \$\d/);
    const heard = await reply(t, sentToVetted, vettedEmail, 'We can do it for $2,100');
    expect(heard.json()).toMatchObject({ status: 'replied', offer_id: expect.any(String) });
    expect(await offersOf(t, h, second)).toEqual([
      expect.objectContaining({ carrier_id: vetted, offer_amount: 2100 }),
    ]);
  });

  it('holds an unvetted carrier’s WhatsApp quote and says no rate', async () => {
    const { h } = await tenant(t, { channel_order: ['whatsapp'] }, true);
    await laneCarrier(t, h, { email: null, phone: '+14155550466' });
    const loadId = await agentLoad(t, h);
    const [sent] = await afterRound(t, h, loadId);
    expect(sent).toMatchObject({ modality: 'whatsapp', status: 'active' });
    const opening = defined(
      graphRequests.find((r) => r.body.to === '14155550466'),
      "graphRequests.find((r) => r.body.to === '14155550466')",
    );
    const res = await postWhatsAppText(t, '14155550466', 'wamid.VET1', 'can do 1.8k', opening.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      expect.objectContaining({ status: 'replied', offer_id: expect.any(String), reason: 'vetting_pending' }),
    ]);
    expect(await offersOf(t, h, loadId)).toEqual([
      expect.objectContaining({ offer_amount: 1800, status: 'pending', held_for: 'vetting' }),
    ]);
    expect(defined(graphRequests.at(-1), 'graphRequests.at(-1)').body.text?.body).toMatch(
      /verifying your company/,
    );
  });
});

// On a manual clock at an evening in Chicago, where quiet hours hold.
describe('monitoring withdraws the queued contacts of a carrier turning high', () => {
  const t = useTestApp({ env, clock: CHICAGO_EVENING });

  it('cancels the queued contact when the registry shows the liability insurance gone', async () => {
    const { h } = await tenant(t, { channel_order: ['email'], carrier_min_gap_minutes: 0 });
    const carrierId = await laneCarrier(t, h, { email: nextEmail(), mc_number: '641001' });
    const firstLoad = await agentLoad(t, h);
    await afterRound(t, h, firstLoad);
    // An offer pending on the first load: the carrier is monitored.
    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: firstLoad, carrier_id: carrierId, offer_amount: 2100 },
    });
    expect(offer.statusCode, offer.body).toBe(201);
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

    writeFileSync(registry, JSON.stringify([{ ...insured, liability_usd: 0 }]));
    await t.database.db.execute(
      sql`UPDATE carriers SET last_verified_at = envoy_now() - interval '2 days' WHERE id = ${carrierId}`,
    );
    expect(await drainWorker(t, 'compliance-monitor')).toBe(1);
    const carrier = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${carrierId}`, headers: h })
    ).json();
    expect(carrier).toMatchObject({ risk_level: 'high', compliance_status: 'BLOCKED' });
    const withdrawn = (await outreachesOf(t, h, secondLoad)).find(
      (o) => o.id === defined(queued, 'queued').id,
    );
    expect(withdrawn).toMatchObject({ status: 'failed' });
  });
});
