import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { SettableWallClock } from '../../src/lib/wall-clock.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { expectQueryError, getJson } from '../helpers/list-helpers.js';
import { createLoad } from '../helpers/load-factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const BASE = '/api/v1/webhooks';
type Headers = Record<string, string>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await defined(closers.pop(), 'closers.pop()')();
});

/** A receiver answering every request with `status`. */
async function receiver(status: number) {
  const r = await startReceiver((_req, res) => {
    res.writeHead(status).end(String(status));
  });
  closers.push(r.close);
  return r;
}

async function endpoint(t: TestApp, headers: Headers, url: string, eventTypes: string[]) {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/endpoints`,
    headers,
    payload: { url, event_types: eventTypes },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; url: string }>();
}

async function ping(t: TestApp, headers: Headers, endpointId: string) {
  const res = await t.app.inject({ method: 'POST', url: `${BASE}/endpoints/${endpointId}/test`, headers });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ delivery_id: string; event_id: string }>();
}

/** A delivery as the list answers it (times as JSON strings). */
const delivery = z.object({
  id: z.string(),
  endpoint_id: z.string(),
  endpoint_url: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.string(),
  attempt_count: z.number(),
  next_attempt_at: z.string().nullable(),
  last_attempt: z
    .object({
      attempt_number: z.number(),
      succeeded: z.boolean(),
      status_code: z.number().nullable(),
      error: z.string().nullable(),
      created_at: z.string(),
    })
    .nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const deliveryPage = z.object({
  data: z.array(delivery),
  pagination: z.object({ total_count: z.number(), total_pages: z.number(), has_next: z.boolean() }),
});

/**
 * One offer.created event fanned out to four endpoints and delivered once by the real worker: a
 * 500 (pending, to retry), a 200 (succeeded), a 410 (failed), a refused connection (pending, with
 * an error and no status code); then a ping to the second endpoint, not yet sent.
 */
async function dataset(t: TestApp, wall: SettableWallClock) {
  const { orgId, user } = await createTenant(t);
  const key = await createApiKey(t, user.headers);
  const headers = key.headers;
  const [r500, r200, r410] = [await receiver(500), await receiver(200), await receiver(410)];
  const e500 = await endpoint(t, headers, r500.url, ['offer.created']);
  const e200 = await endpoint(t, headers, r200.url, ['offer.created', 'ping']);
  const e410 = await endpoint(t, headers, r410.url, ['offer.created']);
  const eRefused = await endpoint(t, headers, 'http://127.0.0.1:9/hook', ['offer.created']);
  const loadId = await createLoad(t, headers);
  const offer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/offers',
    headers,
    payload: { load_id: loadId, offer_amount: 1800 },
  });
  expect(offer.statusCode, offer.body).toBe(201);
  // Stopped for the round: the 500's and the refused connection's retries cannot come due in it.
  wall.freeze();
  await drainWorker(t, 'webhooks');
  const queued = await ping(t, headers, e200.id);
  return { orgId, user, headers, e500, e200, e410, eRefused, queued };
}

const list = async (t: TestApp, headers: Headers, qs = '') =>
  deliveryPage.parse(await getJson(t, headers, `${BASE}/deliveries${qs ? `?${qs}` : ''}`));

describe('GET /webhooks/deliveries', () => {
  const wall = new SettableWallClock();
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '1000' }, wallClock: wall });
  afterEach(() => wall.follow());

  it('lists the organization’s deliveries across its endpoints, newest first, with the last attempt', async () => {
    const d = await dataset(t, wall);
    const { data, pagination } = await list(t, d.headers);
    expect(pagination.total_count).toBe(5);
    // The ping is newest; the four of the one event share created_at and break the tie on id.
    expect(data[0]).toEqual({
      id: d.queued.delivery_id,
      endpoint_id: d.e200.id,
      endpoint_url: d.e200.url,
      event_id: d.queued.event_id,
      event_type: 'ping',
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: expect.stringMatching(/Z$/),
      last_attempt: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const fanned = data.slice(1);
    expect(fanned.map((x) => x.id)).toEqual(
      fanned
        .map((x) => x.id)
        .sort()
        .reverse(),
    );
    expect(new Set(fanned.map((x) => x.created_at)).size).toBe(1);
    expect(new Set(fanned.map((x) => x.event_id)).size).toBe(1);
    const of = (endpointId: string) =>
      defined(
        fanned.find((x) => x.endpoint_id === endpointId),
        'fanned.find((x) => x.endpoint_id === endpointId)',
      );
    expect(of(d.e500.id)).toMatchObject({
      event_type: 'offer.created',
      status: 'pending',
      attempt_count: 1,
      next_attempt_at: expect.stringMatching(/Z$/),
      last_attempt: { attempt_number: 1, succeeded: false, status_code: 500, error: null },
    });
    expect(of(d.e200.id)).toMatchObject({
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
      last_attempt: { attempt_number: 1, succeeded: true, status_code: 200, error: null },
    });
    expect(of(d.e410.id)).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      next_attempt_at: null,
      last_attempt: { succeeded: false, status_code: 410 },
    });
    expect(of(d.eRefused.id)).toMatchObject({
      status: 'pending',
      endpoint_url: 'http://127.0.0.1:9/hook',
      last_attempt: { succeeded: false, status_code: null, error: expect.any(String) },
    });
    expect(
      Date.parse(defined(of(d.e500.id).last_attempt, 'of(d.e500.id).last_attempt').created_at),
    ).toBeGreaterThanOrEqual(Date.parse(of(d.e500.id).created_at));
  });

  it('shows the last of several attempts, and a replay as a new delivery of the same event', async () => {
    const d = await dataset(t, wall);
    // The clock moves to the 500 endpoint's retry, which fails again: attempt 2 is the last.
    const [pending] = (await list(t, d.headers, `endpoint_id=${d.e500.id}`)).data;
    wall.set(Date.parse(defined(pending?.next_attempt_at, 'the retry time')));
    await drainWorker(t, 'webhooks');
    const retried = (await list(t, d.headers, `endpoint_id=${d.e500.id}`)).data;
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({
      attempt_count: 2,
      last_attempt: { attempt_number: 2, status_code: 500 },
    });
    const replay = await t.app.inject({
      method: 'POST',
      url: `${BASE}/deliveries/${defined(retried[0], 'retried[0]').id}/replay`,
      headers: d.headers,
    });
    expect(replay.statusCode, replay.body).toBe(202);
    const after = (await list(t, d.headers, `endpoint_id=${d.e500.id}`)).data;
    expect(after.map((x) => x.id)).toEqual([replay.json().delivery_id, defined(retried[0], 'retried[0]').id]);
    expect(after[0]).toMatchObject({
      event_id: defined(retried[0], 'retried[0]').event_id,
      attempt_count: 0,
      last_attempt: null,
    });
    // The list and the replay route do not capture each other's requests: another method on a
    // known path is 405 naming the right one.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `${BASE}/deliveries/${defined(retried[0], 'retried[0]').id}`,
          headers: d.headers,
        })
      ).statusCode,
    ).toBe(404);
    const getReplay = await t.app.inject({
      method: 'GET',
      url: `${BASE}/deliveries/${defined(retried[0], 'retried[0]').id}/replay`,
      headers: d.headers,
    });
    expect(getReplay.statusCode).toBe(405);
    expect(getReplay.headers.allow).toBe('POST');
    const postList = await t.app.inject({ method: 'POST', url: `${BASE}/deliveries`, headers: d.headers });
    expect(postList.statusCode).toBe(405);
    expect(postList.headers.allow).toBe('GET, HEAD');
  });

  it('filters on status, event_type, endpoint_id and the created range', async () => {
    const d = await dataset(t, wall);
    const ids = async (qs: string) => (await list(t, d.headers, qs)).data.map((x) => x.endpoint_id);
    expect(await ids('status=failed')).toEqual([d.e410.id]);
    expect(await ids('status=succeeded')).toEqual([d.e200.id]);
    expect((await ids('status=pending')).sort()).toEqual([d.e200.id, d.e500.id, d.eRefused.id].sort());
    expect((await ids('status=failed,succeeded')).sort()).toEqual([d.e410.id, d.e200.id].sort());
    expect(await ids('event_type=ping')).toEqual([d.e200.id]);
    expect((await ids('event_type=offer.created')).length).toBe(4);
    expect(await ids('event_type=offer.created&status=succeeded')).toEqual([d.e200.id]);
    expect(await ids(`event_type=ping,offer.created&endpoint_id=${d.e200.id}`)).toEqual([
      d.e200.id,
      d.e200.id,
    ]);
    expect(await ids('event_type=load.created')).toEqual([]);
    const page = await list(t, d.headers, `endpoint_id=${d.e200.id}`);
    expect(page.data.map((x) => x.event_type)).toEqual(['ping', 'offer.created']);
    // created_after is inclusive, created_before exclusive, on the delivery's created_at.
    const pingAt = defined(page.data[0], 'page.data[0]').created_at;
    const offerAt = defined(page.data[1], 'page.data[1]').created_at;
    const enc = encodeURIComponent;
    expect(await ids(`created_after=${enc(pingAt)}`)).toEqual([d.e200.id]);
    expect((await ids(`created_before=${enc(pingAt)}`)).length).toBe(4);
    expect((await ids(`created_after=${enc(offerAt)}&created_before=${enc(pingAt)}`)).length).toBe(4);
    const justAfter = new Date(Date.parse(offerAt) + 1).toISOString();
    expect((await ids(`created_before=${enc(justAfter)}&status=pending`)).sort()).toEqual(
      [d.e500.id, d.eRefused.id].sort(),
    );
    expect(await ids(`created_after=${enc(pingAt)}&created_before=${enc(pingAt)}`)).toEqual([]);
    // total_count follows the filters; pages are exact.
    const paged = await list(t, d.headers, 'event_type=offer.created&page=2&page_size=3');
    expect(paged.data).toHaveLength(1);
    expect(paged.pagination).toMatchObject({ total_count: 4, total_pages: 2, has_next: false });
  });

  it('refuses an unknown status or event type and a reversed range with 422 naming the parameter', async () => {
    const { user } = await createTenant(t);
    const url = `${BASE}/deliveries`;
    await expectQueryError(t, user.headers, `${url}?status=bounced`, 'status');
    await expectQueryError(t, user.headers, `${url}?event_type=offer.deleted`, 'event_type');
    await expectQueryError(t, user.headers, `${url}?event_type=*`, 'event_type');
    await expectQueryError(
      t,
      user.headers,
      `${url}?created_after=2025-06-02T00:00:00Z&created_before=2025-06-01T00:00:00Z`,
      'created_after',
    );
    await expectQueryError(t, user.headers, `${url}?page_size=101`, 'page_size');
  });

  it('never shows another organization’s deliveries, and needs the webhook managers’ access', async () => {
    const a = await dataset(t, wall);
    const { orgId: otherOrg, user: otherOwner } = await createTenant(t);
    const rx = await receiver(200);
    const theirs = await endpoint(t, otherOwner.headers, rx.url, ['ping']);
    const theirPing = await ping(t, otherOwner.headers, theirs.id);
    const mine = await list(t, a.headers);
    expect(mine.pagination.total_count).toBe(5);
    expect(mine.data.map((x) => x.id)).not.toContain(theirPing.delivery_id);
    // Their endpoint id filters to nothing; their own list holds only their delivery.
    expect((await list(t, a.headers, `endpoint_id=${theirs.id}`)).data).toEqual([]);
    const own = await list(t, otherOwner.headers);
    expect(own.data.map((x) => x.id)).toEqual([theirPing.delivery_id]);
    expect(own.pagination.total_count).toBe(1);
    // OWNERs and ADMINs (and API keys) only, as for the other webhook routes.
    const admin = await createUser(t, otherOrg, 'ADMIN');
    expect((await list(t, admin.headers)).data).toHaveLength(1);
    const member = await createUser(t, otherOrg, 'MEMBER');
    const refused = await t.app.inject({ method: 'GET', url: `${BASE}/deliveries`, headers: member.headers });
    expect(refused.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: `${BASE}/deliveries` })).statusCode).toBe(401);
  });
});
