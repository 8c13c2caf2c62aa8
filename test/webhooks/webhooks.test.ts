import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterEach, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';
import { type Received, startReceiver } from '../helpers/webhook-receiver.js';

const BASE = '/api/v1/webhooks';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await defined(closers.pop(), 'closers.pop()')();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  closers.push(r.close);
  return r;
}

async function setup(t: TestApp) {
  const { orgId, user } = await createTenant(t);
  const key = await createApiKey(t, user.headers);
  return { orgId, user, headers: key.headers };
}

async function createEndpoint(t: TestApp, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: `${BASE}/endpoints`, headers, payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; signing_secret: string; status: string }>();
}

const ping = (t: TestApp, headers: Record<string, string>, id: string) =>
  t.app.inject({ method: 'POST', url: `${BASE}/endpoints/${id}/test`, headers });

async function attempts(t: TestApp, headers: Record<string, string>, id: string) {
  const res = await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${id}/attempts`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: Record<string, unknown>[] }>().data;
}

/** The signature the Standard Webhooks specification defines, computed here with node:crypto alone. */
function specSignatureMatches(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  return (r.headers['webhook-signature'] ?? '')
    .split(' ')
    .map((s) => Buffer.from(s.replace(/^v1,/, '')))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}

/**
 * A delivery as three receivers check it: the `standardwebhooks` library, Svix's library (given
 * the headers under Svix's own `svix-*` names, as a Svix receiver reads them), and the
 * specification's HMAC computed by hand. Throws unless all three accept it.
 */
function verify(secret: string, r: Received) {
  new Webhook(secret).verify(r.body, r.headers);
  new SvixWebhook(secret).verify(r.body, {
    'svix-id': defined(r.headers['webhook-id'], "r.headers['webhook-id']"),
    'svix-timestamp': defined(r.headers['webhook-timestamp'], "r.headers['webhook-timestamp']"),
    'svix-signature': defined(r.headers['webhook-signature'], "r.headers['webhook-signature']"),
  });
  if (!specSignatureMatches(secret, r)) throw new Error('the specification HMAC does not match');
}

/**
 * Due times are the wall clock's. `deliver` stops it at the machine's time for one round of the
 * webhook worker, so what became due before it goes and no retry comes due while the round runs;
 * every due delivery is sent and its outcome recorded before it returns. A test that moves the
 * clock itself runs the round with `drainWorker`. The apps here run no loop (WORKERS_ENABLED=false).
 */
const wall = new SettableWallClock();
afterEach(() => wall.follow());
const deliver = (t: TestApp) => {
  wall.freeze();
  return drainWorker(t, 'webhooks');
};

/** The state of an endpoint's deliveries, with the seconds until each is due again at `now`. */
async function deliveriesOf(t: TestApp, endpointId: string, now = t.services.wallClock.now()) {
  const rows = await t.database.db.execute<{ status: string; attempt_count: number; due_in: string | null }>(
    sql`SELECT status, attempt_count, extract(epoch FROM next_attempt_at - ${now}::timestamptz) AS due_in
      FROM webhook_deliveries WHERE endpoint_id = ${endpointId}`,
  );
  return rows.rows.map((r) => ({ ...r, due_in: r.due_in === null ? null : Number(r.due_in) }));
}

/** When the endpoint's pending delivery is due (again). */
async function dueAt(t: TestApp, endpointId: string): Promise<number> {
  const rows = await t.database.db.execute<{ at: string }>(
    sql`SELECT next_attempt_at AS at FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND status = 'pending'`,
  );
  expect(rows.rows).toHaveLength(1);
  return Date.parse(defined(rows.rows[0], 'the pending delivery').at);
}

describe('webhooks', () => {
  // Generous, so that a receiver in this process answers in time on a busy machine; the timeout
  // itself is tested below with a short one.
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '5000' }, wallClock: wall });

  it('delivers a real change (offer.created) signed with Standard Webhooks', async () => {
    const { orgId, headers } = await setup(t);
    const rx = await receiver();
    const ep = await createEndpoint(t, headers, {
      url: rx.url,
      event_types: ['offer.created'],
      headers: { 'X-Integration': 'tms-1' },
      description: 'TMS',
    });
    expect(ep.signing_secret).toMatch(/^whsec_/);
    expect(ep.status).toBe('ACTIVE');
    const got = (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${ep.id}`, headers })).json();
    expect(got).not.toHaveProperty('signing_secret');

    const loadId = await createLoad(t, headers);
    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers,
      payload: { load_id: loadId, offer_amount: 1800 },
    });
    expect(offer.statusCode, offer.body).toBe(201);

    await deliver(t);
    expect(rx.received).toHaveLength(1);
    const [r] = rx.received;
    expect(() => verify(ep.signing_secret, defined(r, 'r'))).not.toThrow();
    expect(defined(r, 'r').headers['x-integration']).toBe('tms-1');
    expect(defined(r, 'r').headers['webhook-id']).toBe(defined(r, 'r').json.id);
    expect(defined(r, 'r').json).toMatchObject({
      type: 'offer.created',
      organization_id: orgId,
      data: { id: offer.json().id, load_id: loadId, offer_amount: 1800, status: 'pending' },
    });
    expect(defined(r, 'r').json.id).toMatch(/^evt_/);
    // Another secret does not verify it.
    expect(() => verify(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, defined(r, 'r'))).toThrow();
    const [a] = await attempts(t, headers, ep.id);
    expect(a).toMatchObject({ succeeded: true, status_code: 200, response_body: 'ok', attempt_number: 1 });
  });

  it('retries a 500 and records both attempts with the same webhook-id', async () => {
    const { headers } = await setup(t);
    const rx = await receiver((_r, res, i) => {
      res.writeHead(i === 0 ? 500 : 200).end(i === 0 ? 'boom' : 'fine');
    });
    const ep = await createEndpoint(t, headers, { url: rx.url, event_types: ['*'] });
    expect((await ping(t, headers, ep.id)).statusCode).toBe(202);
    await deliver(t);
    expect(rx.received).toHaveLength(1);
    // The retry is due 5 s later (the schedule's first step, give or take its 10 % jitter).
    const [due] = await deliveriesOf(t, ep.id);
    expect(due).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(defined(due, 'due').due_in).toBeGreaterThanOrEqual(4.5);
    expect(defined(due, 'due').due_in).toBeLessThanOrEqual(5.5);
    // Not a millisecond before it is due; then it goes.
    const retryAt = await dueAt(t, ep.id);
    wall.set(retryAt - 1);
    await drainWorker(t, 'webhooks');
    expect(rx.received).toHaveLength(1);
    wall.set(retryAt);
    await drainWorker(t, 'webhooks');
    expect(rx.received, JSON.stringify(await attempts(t, headers, ep.id))).toHaveLength(2);
    expect(defined(rx.received[1], 'rx.received[1]').headers['webhook-id']).toBe(
      defined(rx.received[0], 'rx.received[0]').headers['webhook-id'],
    );
    expect(defined(rx.received[1], 'rx.received[1]').json.type).toBe('ping');
    expect(await deliveriesOf(t, ep.id)).toEqual([{ status: 'succeeded', attempt_count: 2, due_in: null }]);
    const list = await attempts(t, headers, ep.id);
    expect(list.map((a) => [a.attempt_number, a.status_code, a.succeeded, a.response_body])).toEqual([
      [2, 200, true, 'fine'],
      [1, 500, false, 'boom'],
    ]);
  });

  it('disables an endpoint after 5 days of failures with at least 10, and at once on 410', async () => {
    const { headers } = await setup(t);
    const failing = await receiver((_r, res) => {
      res.writeHead(503).end();
    });
    const ep = await createEndpoint(t, headers, { url: failing.url, event_types: ['ping'] });
    // Five days of failures already behind it (9 failed attempts since the last success).
    await t.database.db.execute(sql`UPDATE webhook_endpoints
      SET failing_since = now() - interval '5 days 1 minute', failures_since_success = 9 WHERE id = ${ep.id}`);
    await ping(t, headers, ep.id);
    const get = async (id = ep.id) =>
      (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${id}`, headers })).json();
    await deliver(t);
    expect(failing.received).toHaveLength(1);
    expect(await get()).toMatchObject({
      status: 'DISABLED',
      disabled_reason: expect.stringMatching(/5 days/),
    });

    // Not yet five days: no disable, however many failures. Its ping goes out in the same round
    // that sends nothing to the disabled endpoint.
    const failing3 = await receiver((_r, res) => {
      res.writeHead(503).end();
    });
    const ep3 = await createEndpoint(t, headers, { url: failing3.url, event_types: ['ping'] });
    await t.database.db.execute(sql`UPDATE webhook_endpoints
      SET failing_since = now() - interval '4 days', failures_since_success = 50 WHERE id = ${ep3.id}`);
    await ping(t, headers, ep.id);
    await ping(t, headers, ep3.id);
    await deliver(t);
    expect(failing3.received).toHaveLength(1);
    expect(await attempts(t, headers, ep3.id)).toHaveLength(1);
    expect((await get(ep3.id)).status).toBe('ACTIVE');
    expect(failing.received).toHaveLength(1);

    const gone = await receiver((_r, res) => {
      res.writeHead(410).end();
    });
    const ep2 = await createEndpoint(t, headers, { url: gone.url, event_types: ['ping'] });
    await ping(t, headers, ep2.id);
    await deliver(t);
    expect(await get(ep2.id)).toMatchObject({
      status: 'DISABLED',
      disabled_reason: expect.stringMatching(/410/),
    });
    expect(gone.received).toHaveLength(1);

    // ACTIVE re-enables and clears the reason.
    const res = await t.app.inject({
      method: 'PATCH',
      url: `${BASE}/endpoints/${ep2.id}`,
      headers,
      payload: { status: 'ACTIVE' },
    });
    expect(res.json()).toMatchObject({ status: 'ACTIVE', disabled_reason: null });
  });

  it('holds events while PAUSED and delivers them on resume', async () => {
    const { headers } = await setup(t);
    const rx = await receiver();
    const ep = await createEndpoint(t, headers, { url: rx.url, event_types: ['ping'] });
    const paused = await t.app.inject({
      method: 'PATCH',
      url: `${BASE}/endpoints/${ep.id}`,
      headers,
      payload: { status: 'PAUSED' },
    });
    expect(paused.json().status).toBe('PAUSED');
    await ping(t, headers, ep.id);
    await ping(t, headers, ep.id);
    // An active endpoint's ping goes out in the same round that holds the paused one's.
    const active = await receiver();
    const other = await createEndpoint(t, headers, { url: active.url, event_types: ['ping'] });
    await ping(t, headers, other.id);
    await deliver(t);
    expect(active.received).toHaveLength(1);
    expect(rx.received).toHaveLength(0);
    expect((await deliveriesOf(t, ep.id)).map((d) => d.status)).toEqual(['pending', 'pending']);
    await t.app.inject({
      method: 'PATCH',
      url: `${BASE}/endpoints/${ep.id}`,
      headers,
      payload: { status: 'ACTIVE' },
    });
    await deliver(t);
    expect(rx.received, JSON.stringify(await attempts(t, headers, ep.id))).toHaveLength(2);
  });

  it('deletes an endpoint with its secrets, deliveries and attempts (204, then 404)', async () => {
    const { headers } = await setup(t);
    const rx = await receiver();
    const ep = await createEndpoint(t, headers, { url: rx.url, event_types: ['ping'] });
    await ping(t, headers, ep.id);
    await deliver(t);
    expect(await attempts(t, headers, ep.id)).toHaveLength(1);
    const del = await t.app.inject({ method: 'DELETE', url: `${BASE}/endpoints/${ep.id}`, headers });
    expect(del.statusCode).toBe(204);
    expect(
      (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${ep.id}`, headers })).statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${BASE}/endpoints/${ep.id}`, headers })).statusCode,
    ).toBe(404);
    const left = await t.database.db.execute<{ n: number }>(sql`
      SELECT (SELECT count(*) FROM webhook_secrets WHERE endpoint_id = ${ep.id})
        + (SELECT count(*) FROM webhook_attempts WHERE endpoint_id = ${ep.id})
        + (SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = ${ep.id}) AS n`);
    expect(Number(defined(left.rows[0], 'left.rows[0]').n)).toBe(0);
  });

  it('signs with both secrets during a rotation', async () => {
    const { headers } = await setup(t);
    const rx = await receiver();
    const ep = await createEndpoint(t, headers, { url: rx.url, event_types: ['ping'] });
    const rotated = await t.app.inject({
      method: 'POST',
      url: `${BASE}/endpoints/${ep.id}/rotate-secret`,
      headers,
    });
    expect(rotated.statusCode, rotated.body).toBe(201);
    const fresh = rotated.json<{ signing_secret: string }>().signing_secret;
    expect(fresh).not.toBe(ep.signing_secret);
    await ping(t, headers, ep.id);
    await deliver(t);
    expect(rx.received).toHaveLength(1);
    const r = defined(rx.received[0], 'rx.received[0]');
    expect(defined(r.headers['webhook-signature'], "r.headers['webhook-signature']").split(' ')).toHaveLength(
      2,
    );
    expect(() => verify(fresh, r)).not.toThrow();
    expect(() => verify(ep.signing_secret, r)).not.toThrow();

    // At the end of the overlap the old secret no longer signs.
    const overlap = await t.database.db.execute<{ until: string }>(
      sql`SELECT expires_at AS until FROM webhook_secrets WHERE expires_at IS NOT NULL AND endpoint_id = ${ep.id}`,
    );
    wall.set(Date.parse(defined(overlap.rows[0], 'the old secret').until));
    await ping(t, headers, ep.id);
    await drainWorker(t, 'webhooks');
    expect(rx.received, JSON.stringify(await attempts(t, headers, ep.id))).toHaveLength(2);
    expect(
      defined(
        defined(rx.received[1], 'rx.received[1]').headers['webhook-signature'],
        "rx.received[1].headers['webhook-signature']",
      ).split(' '),
    ).toHaveLength(1);
    // Signed at the clock's time, a day ahead of the machine's: the libraries would refuse it as
    // too new, so the signature is checked as the specification computes it.
    const late = defined(rx.received[1], 'rx.received[1]');
    expect(late.headers['webhook-timestamp']).toBe(String(Math.floor(wall.ms() / 1000)));
    expect(specSignatureMatches(fresh, late)).toBe(true);
    expect(specSignatureMatches(ep.signing_secret, late)).toBe(false);
  });

  it('replays a delivery with the same webhook-id, and lists event types with schemas', async () => {
    const { headers } = await setup(t);
    const rx = await receiver();
    const ep = await createEndpoint(t, headers, { url: rx.url, event_types: ['ping'] });
    await ping(t, headers, ep.id);
    await deliver(t);
    const [a, ...more] = await attempts(t, headers, ep.id);
    expect(more).toHaveLength(0);
    const replay = await t.app.inject({
      method: 'POST',
      url: `${BASE}/deliveries/${defined(a, 'a').delivery_id}/replay`,
      headers,
    });
    expect(replay.statusCode, replay.body).toBe(202);
    await deliver(t);
    expect(rx.received, JSON.stringify(await attempts(t, headers, ep.id))).toHaveLength(2);
    expect(defined(rx.received[1], 'rx.received[1]').headers['webhook-id']).toBe(
      defined(rx.received[0], 'rx.received[0]').headers['webhook-id'],
    );

    const types = await t.app.inject({ method: 'GET', url: `${BASE}/event-types`, headers });
    expect(types.statusCode, types.body).toBe(200);
    const names = types.json().data.map((d: { type: string }) => d.type);
    expect(names).toEqual(
      expect.arrayContaining(['load.created', 'offer.status_changed', 'elp_test.scored', 'ping']),
    );
    const offerCreated = types.json().data.find((d: { type: string }) => d.type === 'offer.created');
    expect(JSON.stringify(offerCreated.schema)).toContain('offer_amount');
  });

  it('validates endpoints and scopes them to the organization', async () => {
    const { headers, user } = await setup(t);
    const other = await setup(t);
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'not a url', 'http://example.com/hook']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${BASE}/endpoints`,
        headers,
        payload: { url, event_types: ['*'] },
      });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().error.param).toBe('url');
    }
    const bad = await t.app.inject({
      method: 'POST',
      url: `${BASE}/endpoints`,
      headers,
      payload: { url: 'https://example.com/h', event_types: ['no.such'] },
    });
    expect(bad.statusCode).toBe(422);
    const reserved = await t.app.inject({
      method: 'POST',
      url: `${BASE}/endpoints`,
      headers,
      payload: { url: 'https://example.com/h', event_types: ['*'], headers: { 'webhook-id': 'x' } },
    });
    expect(reserved.statusCode).toBe(422);
    const ep = await createEndpoint(t, user.headers, { url: 'https://example.com/h', event_types: ['*'] });
    expect(
      (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${ep.id}`, headers: other.headers }))
        .statusCode,
    ).toBe(404);
    const list = (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints`, headers })).json();
    expect(list.data.map((e: { id: string }) => e.id)).toEqual([ep.id]);
    const member = await createTenant(t, 'MEMBER');
    expect(
      (await t.app.inject({ method: 'GET', url: `${BASE}/endpoints`, headers: member.user.headers }))
        .statusCode,
    ).toBe(403);
  });
});

describe('webhooks with a short timeout', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '400' }, wallClock: wall });

  it('times out a receiver that never answers and counts a 3xx as a failure', async () => {
    const { headers } = await setup(t);
    const silent = await receiver(() => {});
    const ep = await createEndpoint(t, headers, { url: silent.url, event_types: ['ping'] });
    await ping(t, headers, ep.id);
    await deliver(t);
    const [a, ...more] = await attempts(t, headers, ep.id);
    expect(more).toHaveLength(0);
    expect(a).toMatchObject({ succeeded: false, status_code: null });
    expect(defined(a, 'a').error).toMatch(/timeout/);

    const redirect = await receiver((_r, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    });
    const ep2 = await createEndpoint(t, headers, { url: redirect.url, event_types: ['ping'] });
    await ping(t, headers, ep2.id);
    await deliver(t);
    expect(await attempts(t, headers, ep2.id)).toMatchObject([{ succeeded: false, status_code: 302 }]);
  });
});

describe('webhooks in production mode (server-side request forgery)', () => {
  const t = useTestApp({
    env: { NODE_ENV: 'production', WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '1000' },
    wallClock: wall,
  });

  it('refuses http, private, loopback and link-local targets, also after DNS resolution', async () => {
    const { headers } = await setup(t);
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://10.1.2.3/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
      'https://192.168.1.10/hook',
      'https://[::ffff:7f00:1]/hook',
      'https://[fd00::1]/hook',
      'gopher://example.com/',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `${BASE}/endpoints`,
        headers,
        payload: { url, event_types: ['*'] },
      });
      expect(res.statusCode, url).toBe(422);
    }
    const ok = await createEndpoint(t, headers, {
      url: 'https://hooks.example.com/envoy',
      event_types: ['ping'],
    });
    // A name that resolves to a private address is refused when connecting: point the endpoint at
    // one (as a DNS change after registration would) and send a ping.
    await t.database.db.execute(
      sql`UPDATE webhook_endpoints SET url = 'https://localhost:1/x' WHERE id = ${ok.id}`,
    );
    await ping(t, headers, ok.id);
    await deliver(t);
    const [a, ...more] = await attempts(t, headers, ok.id);
    expect(more).toHaveLength(0);
    expect(a).toMatchObject({ succeeded: false, status_code: null });
    expect(defined(a, 'a').error).toMatch(/private address/);
  });
});
