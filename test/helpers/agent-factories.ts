import { eq, inArray, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { agentLoadStates, agentReviewItems } from '../../src/modules/agent/agent-tables.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import { drainWorker, type TestApp } from './app.js';
import { createCarrier, goodStanding, registryFile } from './carrier-factories.js';
import { createApiKey, createTenant, setStrictMode } from './factories.js';

export { setStrictMode } from './factories.js';

import { createLoad, stopPayload } from './load-factories.js';
import { waitFor } from './wait.js';

export { waitFor };

export type Headers = Record<string, string>;
export type Outreach = {
  id: string;
  carrier_id: string;
  status: string;
  modality: string;
  is_automated: boolean;
  conversation_id: string | null;
  call_id: string | null;
  send_after: string | null;
  sent_at: string | null;
  error_reason: string | null;
  delivery_failed_at: string | null;
};

export const SECRET = 'inbound-secret-for-the-agent-tests';
/** MC numbers of carriers in good standing (compliance PASSED): only those are booked automatically. */
const PASSED_MCS = Array.from({ length: 20 }, (_, i) => String(630001 + i));
export const registry = registryFile([
  goodStanding('620001', '720001', { out_of_service: true }),
  ...PASSED_MCS.map((mc) => goodStanding(mc, String(Number(mc) + 100000))),
]);
let passedSerial = 0;
/** A carrier body part that makes it PASS compliance (a distinct MC within a test file's run). */
export const passing = () => ({ mc_number: PASSED_MCS[passedSerial++ % PASSED_MCS.length] });
export const agentEnv = {
  WORKER_POLL_MS: '40',
  // Tests move time by moving timestamps in the database: the agent's lane caches must not outlast that.
  AGENT_RANKING_TTL_MS: '100',
  SIMULATION_PROFILE: 'silent',
  EMAIL_INBOUND_SECRET: SECRET,
  COMPLIANCE_REGISTRY_FILE: registry,
};

let serial = 0;
export const nextEmail = () => `dispatch-${Date.now().toString(36)}-${serial++}@carrier.example`;

/**
 * An organization whose agent e-mails (no quiet hours unless a test sets them), and its API key.
 * Strict mode is off (the agent negotiates with carriers not vetted yet) unless `strict` is set:
 * these tests are about negotiation; the vetting tests turn it on.
 */
export async function tenant(t: TestApp, settings: Record<string, unknown> = {}, strict = false) {
  const { user } = await createTenant(t);
  const key = await createApiKey(t, user.headers);
  if (!strict) await setStrictMode(t, key.headers, false);
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/agent/settings',
    headers: key.headers,
    payload: {
      channel_order: ['email'],
      quiet_hours_start: 0,
      quiet_hours_end: 0,
      wave_size: 10,
      ...settings,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { user, h: key.headers };
}

/** A carrier with an e-mail and a primary lane preference Chicago, IL -> Dallas, TX. */
export async function laneCarrier(
  t: TestApp,
  h: Headers,
  body: Record<string, unknown> = {},
  lane: Record<string, unknown> = {},
): Promise<string> {
  const carrier = await createCarrier(t, h, { email: nextEmail(), equipment_types: ['VAN'], ...body });
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/carriers/${carrier.id}/lane-preferences`,
    headers: h,
    payload: { origin: { state: 'IL' }, destination: { state: 'TX' }, ...lane },
  });
  expect(res.statusCode, res.body).toBe(201);
  return carrier.id;
}

/** A load handed to the agent: Chicago, IL -> Dallas, TX, VAN, Open (Unassigned). */
export const agentLoad = (t: TestApp, h: Headers, overrides: Record<string, unknown> = {}) =>
  createLoad(t, h, {
    assigned_to_ai_agent: true,
    tms_status: 'Open',
    posted_rate: 2000,
    max_buy_rate: 2400,
    customer_rate: 2900,
    margin: 500,
    ...overrides,
  });

export const outreachesOf = async (t: TestApp, h: Headers, loadId: string): Promise<Outreach[]> =>
  (
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/outreaches?load_id=${loadId}&page_size=100`,
      headers: h,
    })
  ).json().data;

/**
 * One round of the agent's worker, as its loop runs it: withdraws the contacts of loads no longer
 * worked, plans the waves that are due, sends the contacts whose time has come. Returns how much
 * it did. Tests that call it build their app with `WORKERS_ENABLED: 'false'`.
 */
export const agentRound = (t: TestApp) => drainWorker(t, 'agent');

/** Runs one agent round, then returns the load's outreaches. */
export async function afterRound(t: TestApp, h: Headers, loadId: string): Promise<Outreach[]> {
  await agentRound(t);
  return outreachesOf(t, h, loadId);
}

/**
 * Runs agent rounds until the load has `count` automated outreaches. For an app that shares its
 * database with other instances (whose loops may take the load first); a test on its own app
 * runs one round with `afterRound` and asserts what it did.
 */
export const waitForWave = (t: TestApp, h: Headers, loadId: string, count: number) =>
  waitFor(
    () => afterRound(t, h, loadId),
    (list) => list.filter((o) => o.is_automated).length >= count,
  );

/** The agent's record of a load: when its next wave is due and what its last round decided. */
export async function agentStateOf(t: TestApp, loadId: string) {
  const [state] = await t.database.db
    .select()
    .from(agentLoadStates)
    .where(eq(agentLoadStates.load_id, loadId));
  return state;
}

/**
 * The offer's review item raised `minutes` ago, on the product clock: as if it had waited that
 * long for a rep.
 */
export const reviewWaited = (t: TestApp, offerId: string, minutes: number) =>
  t.database.db
    .update(agentReviewItems)
    .set({ requested_at: sql`envoy_now() - make_interval(mins => ${minutes})` })
    .where(eq(agentReviewItems.offer_id, offerId));

/**
 * Lets the wave wait pass at once: the next round plans the load's next wave. A second back on the
 * product clock, as the column keeps milliseconds rounded: on the machine's clock envoy_now() can
 * land half a millisecond after the round's clock.
 */
export const nextWaveNow = (t: TestApp, loadId: string) =>
  t.database.db
    .update(agentLoadStates)
    .set({ next_wave_at: sql`envoy_now() - interval '1 second'` })
    .where(eq(agentLoadStates.load_id, loadId));

export const inbound = (t: TestApp, body: Record<string, unknown>, secret = SECRET) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/integrations/email/inbound',
    headers: { authorization: `Basic ${Buffer.from(`postmark:${secret}`).toString('base64')}` },
    payload: body,
  });

/** A carrier's reply to an agent e-mail, in the Postmark inbound shape. */
export const reply = (t: TestApp, o: Outreach, from: string, text: string) =>
  inbound(t, {
    From: from,
    FromFull: { Email: from, Name: 'Dispatch' },
    To: `reply+${o.conversation_id}@reply.envoy.local`,
    ToFull: [
      { Email: `reply+${o.conversation_id}@reply.envoy.local`, Name: '', MailboxHash: o.conversation_id },
    ],
    Subject: 'Re: Load',
    MessageID: `pm-${Date.now()}-${serial++}`,
    TextBody: text,
    Headers: [],
  });

export const messagesOf = async (t: TestApp, h: Headers, outreachId: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/outreaches/${outreachId}/messages`, headers: h })).json<{
    data: { direction: string; intent: string | null; body: string }[];
  }>().data;

export const carrierEmail = async (t: TestApp, h: Headers, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}`, headers: h })).json<{ email: string }>()
    .email;

/**
 * An evening in Chicago for the tests of quiet hours: 22:30 CST on Tuesday 17 November 2026. Such a
 * test runs its app on a manual clock standing there (`clock: CHICAGO_EVENING`), where QUIET_NIGHT
 * holds in Chicago (and New York, 23:30) until CHICAGO_MORNING, but not in Los Angeles (20:30) or
 * Honolulu (18:30); the machine's time of day plays no part.
 */
export const CHICAGO_EVENING = new Date('2026-11-18T04:30:00Z');
/** Quiet hours from 21:00 to 07:00 local time. */
export const QUIET_NIGHT = { start: 21, end: 7 } as const;
/** 07:00 CST after CHICAGO_EVENING: when QUIET_NIGHT ends in Chicago. */
export const CHICAGO_MORNING = new Date('2026-11-18T13:00:00Z');

/**
 * Morning for carriers whose contacts wait out quiet hours: the organization's quiet hours end
 * (none from now on) and the carriers' queued contacts are due now, for the next round to send.
 */
export async function hoursBegin(t: TestApp, h: Headers, carrierIds: string[]) {
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/v1/agent/settings',
    headers: h,
    payload: { quiet_hours_start: 0, quiet_hours_end: 0 },
  });
  expect(res.statusCode, res.body).toBe(200);
  await t.database.db
    .update(outreaches)
    .set({ send_after: sql`envoy_now()` })
    .where(inArray(outreaches.carrier_id, carrierIds));
}

/** The flat POST /loads body of an existing load (its number and stops), to update it. */
export async function loadBody(t: TestApp, h: Headers, id: string) {
  const load = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: h })).json();
  return {
    load_number: load.load_number,
    equipment_type: load.equipment_type,
    stops: [stopPayload('Pickup'), stopPayload('Dropoff')],
  };
}

/** The channel's id of the contact's first message (a WhatsApp template's `wamid`, an e-mail's Message-ID). */
export async function externalIdOf(t: TestApp, outreachId: string): Promise<string> {
  // The contact turns active when it is sent; the channel's id is stored once the send answers.
  const id = await waitFor(
    async () =>
      (
        await t.database.pool.query<{ id: string | null }>(
          'SELECT external_message_id AS id FROM outreaches WHERE id = $1',
          [outreachId],
        )
      ).rows[0]?.id,
    (found) => Boolean(found),
  ).catch(() => null);
  if (!id) throw new Error(`outreach ${outreachId} has no message id: was it sent?`);
  return id;
}

/**
 * The load's first contact once it went out (its status `active`). The app's own loops run beside
 * the test's rounds and may be the ones that plan or send it, so rounds are run until it has.
 */
export async function sentContact(t: TestApp, h: Headers, loadId: string): Promise<Outreach> {
  const list = await waitFor(
    () => afterRound(t, h, loadId),
    (l) => l.some((o) => o.status === 'active'),
  );
  const sent = list.find((o) => o.status === 'active');
  if (!sent) throw new Error(`load ${loadId}: no contact went out`);
  return sent;
}
