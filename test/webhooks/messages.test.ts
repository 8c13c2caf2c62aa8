import { afterEach, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { drainWorker, type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { expectQueryError, getJson } from '../helpers/list-helpers.js';
import { type Received, startReceiver } from '../helpers/webhook-receiver.js';

const BASE = '/api/v1/webhooks';
type Headers = Record<string, string>;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await defined(closers.pop(), 'closers.pop()')();
});

/** A receiver answering the n-th request (from 0) with `statuses[n]`, the last one after that. */
async function receiver(...statuses: number[]) {
  const r = await startReceiver((_req, res, index) => {
    const status = statuses[Math.min(index, statuses.length - 1)] ?? 200;
    res.writeHead(status).end(`answer ${status}`);
  });
  closers.push(r.close);
  return r;
}

async function endpoint(t: TestApp, headers: Headers, url: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/endpoints`,
    headers,
    payload: { url, event_types: ['ping'] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

/** Queues a `ping` event to the endpoint; returns its event id (the message id). */
async function ping(t: TestApp, headers: Headers, endpointId: string) {
  const res = await t.app.inject({ method: 'POST', url: `${BASE}/endpoints/${endpointId}/test`, headers });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ event_id: string }>().event_id;
}

const replay = (t: TestApp, headers: Headers, messageId: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: `${BASE}/messages/${messageId}/replay`, headers, payload });

/** The one request the receiver got for a message, by its `webhook-id`. */
function receivedFor(received: readonly Received[], messageId: string): Received[] {
  const got = received.filter((r) => r.headers['webhook-id'] === messageId);
  for (const r of got) expect(r.json.id).toBe(messageId);
  return got;
}

/**
 * An endpoint that failed a first message with 500 (to retry), succeeded a second, and has a
 * third queued and not yet sent; and an endpoint that answered 410 (given up at once).
 */
async function dataset(t: TestApp) {
  const { orgId, user } = await createTenant(t);
  const headers = (await createApiKey(t, user.headers)).headers;
  const rx = await receiver(500, 200);
  const ep = await endpoint(t, headers, rx.url);
  const failed = await ping(t, headers, ep);
  await drainWorker(t, 'webhooks');
  const succeeded = await ping(t, headers, ep);
  await drainWorker(t, 'webhooks');
  const gone = await receiver(410);
  const goneEp = await endpoint(t, headers, gone.url);
  const dead = await ping(t, headers, goneEp);
  await drainWorker(t, 'webhooks');
  const queued = await ping(t, headers, ep);
  const latest = await ping(t, headers, ep); // a fourth, so the pages below have a next one
  return { orgId, user, headers, rx, ep, failed, succeeded, queued, latest, gone, goneEp, dead };
}

describe('webhook history by message', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '1000' } });

  it('lists an endpoint’s messages newest first, each with its status, attempts and the body sent', async () => {
    const d = await dataset(t);
    const page = await getJson(t, d.headers, `${BASE}/endpoints/${d.ep}/messages`);
    expect(page.pagination).toEqual({
      page: 1,
      page_size: 20,
      total_count: 4,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
    const ids = page.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual([d.latest, d.queued, d.succeeded, d.failed]);
    const [sentFailed] = receivedFor(d.rx.received, d.failed);
    const [sentSucceeded] = receivedFor(d.rx.received, d.succeeded);
    expect(page.data[2]).toEqual({
      id: d.succeeded,
      endpoint_id: d.ep,
      event_type: 'ping',
      latest_status: 'SUCCEEDED',
      attempt_count: 1,
      last_response_status_code: 200,
      next_attempt_at: null,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      payload: defined(sentSucceeded, 'sentSucceeded').json,
    });
    expect(page.data[3]).toMatchObject({
      id: d.failed,
      latest_status: 'PENDING',
      attempt_count: 1,
      last_response_status_code: 500,
      next_attempt_at: expect.stringMatching(/Z$/),
      payload: defined(sentFailed, 'sentFailed').json,
    });
    // Queued, never attempted: its body is the one the worker will send.
    expect(page.data[1]).toMatchObject({
      id: d.queued,
      latest_status: 'PENDING',
      attempt_count: 0,
      last_response_status_code: null,
      payload: { id: d.queued, type: 'ping', organization_id: d.orgId, data: { endpoint_id: d.ep } },
    });
    const deadPage = await getJson(t, d.headers, `${BASE}/endpoints/${d.goneEp}/messages`);
    expect(deadPage.data).toEqual([
      expect.objectContaining({ id: d.dead, latest_status: 'DEAD', last_response_status_code: 410 }),
    ]);
    // Pages like every list: page_size and page, exact totals.
    const first = await getJson(t, d.headers, `${BASE}/endpoints/${d.ep}/messages?page_size=3`);
    expect(first.data.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 3));
    expect(first.pagination).toMatchObject({ total_count: 4, total_pages: 2, has_next: true });
    const second = await getJson(t, d.headers, `${BASE}/endpoints/${d.ep}/messages?page_size=3&page=2`);
    expect(second.data.map((m: { id: string }) => m.id)).toEqual([d.failed]);
    expect(second.pagination).toMatchObject({ page: 2, has_next: false, has_prev: true });
  });

  it('lists a message’s attempts with the body; a replay reaches the receiver with the original id', async () => {
    const d = await dataset(t);
    const attemptsUrl = `${BASE}/messages/${d.failed}/attempts`;
    const before = await getJson(t, d.headers, attemptsUrl);
    const original = defined(receivedFor(d.rx.received, d.failed)[0], 'the first send');
    expect(before).toEqual([
      {
        id: expect.stringMatching(/^att_/),
        message_id: d.failed,
        endpoint_id: d.ep,
        delivery_id: expect.stringMatching(/^dlv_/),
        attempt: 1,
        max_attempts: 8,
        status: 'FAILED',
        next_attempt_at: expect.stringMatching(/Z$/),
        response_status_code: 500,
        response_body_excerpt: 'answer 500',
        error_message: null,
        duration_ms: expect.any(Number),
        delivered_at: null,
        created_at: expect.stringMatching(/Z$/),
        payload: original.json,
      },
    ]);
    // Queued but not attempted yet: no attempts, and not a 404.
    expect(await getJson(t, d.headers, `${BASE}/messages/${d.queued}/attempts`)).toEqual([]);
    expect(await getJson(t, d.headers, `${BASE}/messages/${d.dead}/attempts`)).toEqual([
      expect.objectContaining({ status: 'DEAD', next_attempt_at: null, response_status_code: 410 }),
    ]);

    const res = await replay(t, d.headers, d.failed, { endpoint_id: d.ep });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      id: d.failed,
      endpoint_id: d.ep,
      event_type: 'ping',
      latest_status: 'PENDING',
      attempt_count: 1,
      last_response_status_code: 500,
      next_attempt_at: expect.stringMatching(/Z$/),
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      payload: original.json,
    });
    await drainWorker(t, 'webhooks');
    const sends = receivedFor(d.rx.received, d.failed);
    expect(sends).toHaveLength(2);
    const again = defined(sends[1], 'the replayed send');
    // The same body, byte for byte, under the same webhook-id: the receiver can deduplicate.
    expect(again.body).toBe(original.body);
    expect(again.headers['webhook-id']).toBe(original.headers['webhook-id']);

    const after = await getJson(t, d.headers, attemptsUrl);
    expect(after).toHaveLength(2);
    expect(after[0]).toEqual(before[0]);
    expect(after[1]).toMatchObject({
      message_id: d.failed,
      endpoint_id: d.ep,
      attempt: 1,
      status: 'SUCCEEDED',
      next_attempt_at: null,
      response_status_code: 200,
      delivered_at: expect.stringMatching(/Z$/),
      payload: original.json,
    });
    expect(after[1].delivery_id).not.toBe(after[0].delivery_id);
    const listed = await getJson(t, d.headers, `${BASE}/endpoints/${d.ep}/messages`);
    const message = listed.data.find((m: { id: string }) => m.id === d.failed);
    expect(message).toMatchObject({
      latest_status: 'SUCCEEDED',
      attempt_count: 2,
      last_response_status_code: 200,
    });
    expect(listed.pagination.total_count).toBe(4);
  });

  it('answers 404 for another organization’s endpoint or message, and for an endpoint never sent it', async () => {
    const d = await dataset(t);
    const other = await createTenant(t);
    const theirRx = await receiver(200);
    const theirEp = await endpoint(t, other.user.headers, theirRx.url);
    const theirs = await ping(t, other.user.headers, theirEp);
    const notFound = async (res: { statusCode: number; json: () => unknown }, param: string) => {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'not_found', param } });
    };
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: d.headers });
    await notFound(await get(`${BASE}/endpoints/${theirEp}/messages`), 'endpoint_id');
    await notFound(await get(`${BASE}/messages/${theirs}/attempts`), 'message_id');
    await notFound(await replay(t, d.headers, theirs, { endpoint_id: d.ep }), 'message_id');
    await notFound(await replay(t, d.headers, d.failed, { endpoint_id: theirEp }), 'endpoint_id');
    // Mine, but never sent to that endpoint of mine.
    await notFound(await replay(t, d.headers, d.failed, { endpoint_id: d.goneEp }), 'endpoint_id');
    // A well-formed id no one has.
    await notFound(
      await get(`${BASE}/messages/evt_01935c1e-0000-7000-8000-000000000000/attempts`),
      'message_id',
    );
    // The refusals queued nothing, in either organization.
    const deliveries = async (h: Headers) =>
      (await getJson(t, h, `${BASE}/deliveries`)).pagination.total_count as number;
    expect(await deliveries(d.headers)).toBe(5);
    expect(await deliveries(other.user.headers)).toBe(1);
    // Their own view is whole.
    const theirList = await getJson(t, other.user.headers, `${BASE}/endpoints/${theirEp}/messages`);
    expect(theirList.data.map((m: { id: string }) => m.id)).toEqual([theirs]);
  });

  it('needs an OWNER, an ADMIN or an API key, as the other webhook routes', async () => {
    const d = await dataset(t);
    const urls = [`${BASE}/endpoints/${d.ep}/messages`, `${BASE}/messages/${d.failed}/attempts`];
    const admin = await createUser(t, d.orgId, 'ADMIN');
    const member = await createUser(t, d.orgId, 'MEMBER');
    for (const url of urls) {
      expect((await t.app.inject({ method: 'GET', url, headers: admin.headers })).statusCode).toBe(200);
      const refused = await t.app.inject({ method: 'GET', url, headers: member.headers });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('insufficient_permissions');
      const anonymous = await t.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().error.code).toBe('not_authenticated');
    }
    const refused = await replay(t, member.headers, d.failed, { endpoint_id: d.ep });
    expect(refused.statusCode).toBe(403);
    expect((await replay(t, {}, d.failed, { endpoint_id: d.ep })).statusCode).toBe(401);
    expect((await replay(t, admin.headers, d.failed, { endpoint_id: d.ep })).statusCode).toBe(202);
  });

  it('refuses bad parameters: 400 invalid_id_format for another kind of id, 422 naming the field', async () => {
    const { user } = await createTenant(t);
    const h = user.headers;
    const rx = await receiver(200);
    const ep = await endpoint(t, h, rx.url);
    const messageId = await ping(t, h, ep);
    const refused = async (
      res: { statusCode: number; json: () => { error: unknown; detail: { loc: unknown }[] } },
      loc: string[],
      status = 422,
    ) => {
      expect(res.statusCode).toBe(status);
      const body = res.json();
      const code = status === 400 ? 'invalid_id_format' : 'validation_error';
      expect(body.error).toMatchObject({ code, param: loc[loc.length - 1] });
      if (status === 422) expect(defined(body.detail[0], 'detail[0]').loc).toEqual(loc);
      else expect(body.detail).toBeUndefined();
    };
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: h });
    await refused(await get(`${BASE}/messages/dlv_nope/attempts`), ['path', 'message_id'], 400);
    await refused(
      await get(`${BASE}/messages/${messageId.replace('evt_', 'msg_')}/attempts`),
      ['path', 'message_id'],
      400,
    );
    await refused(await replay(t, h, 'evt_', { endpoint_id: ep }), ['path', 'message_id'], 400);
    await refused(await replay(t, h, messageId, { endpoint_id: messageId }), ['body', 'endpoint_id'], 400);
    await refused(await replay(t, h, messageId, {}), ['body', 'endpoint_id']);
    await refused(await replay(t, h, messageId, { endpoint_id: 42 }), ['body', 'endpoint_id']);
    const list = `${BASE}/endpoints/${ep}/messages`;
    await expectQueryError(t, h, `${list}?page_size=101`, 'page_size');
    await expectQueryError(t, h, `${list}?page=0`, 'page');
    await expectQueryError(t, h, `${list}?status=DEAD`, 'status');
    // Nothing was replayed by the refusals.
    await drainWorker(t, 'webhooks');
    expect(rx.received.map((r) => r.json.id)).toEqual([messageId]);
  });
});
