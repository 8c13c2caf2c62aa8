import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { BodyWorkers, SHARED_WINDOW_MS } from '../../src/http/body-workers.js';
import { parseLargeJsonCooperatively } from '../../src/http/cooperative-json.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { loadPayload } from '../helpers/load-factories.js';

/**
 * Large batch bodies (256 KiB and more) are read and checked in a body worker thread: the answers
 * are those of the same requests checked on the main thread (BODY_WORKER_THREADS=0), item errors,
 * refusals and idempotency fingerprints included.
 */
const env = { WORKERS_ENABLED: 'false' };
const NOTE = 'n'.repeat(400);

/** `count` loads, each with a note, so that 1,000 of them make a body of about half a MiB. */
const loads = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => loadPayload({ load_number: `${prefix}-${i}`, notes: NOTE }));

const checkedInWorker = (t: TestApp) => t.logs.filter((l) => l.msg === 'body items checked in a worker');

async function post(
  t: TestApp,
  url: string,
  headers: Record<string, string>,
  payload: string,
  type = 'application/json',
) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': type },
    payload,
  });
  return { status: res.statusCode, body: res.json() };
}

const IDS_AND_TIMES = new Set(['id', 'load_id', 'carrier_id', 'processed_at', 'timestamp', 'request_id']);

/** An answer with what differs between two organizations (ids, times) left out. */
const comparable = (body: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(body, (k, v) => (IDS_AND_TIMES.has(k) ? '' : v)));

describe('large batch bodies in a body worker', () => {
  const worker = useTestApp({
    env: { ...env, BODY_WORKER_THREADS: '1', BODY_WORKER_USE: 'always' },
    captureLogs: true,
  });
  const main = useTestApp({ env: { ...env, BODY_WORKER_THREADS: '0' }, captureLogs: true });

  it('answers a load batch with bad items as the main thread does, the items checked in the worker', async () => {
    const items: Record<string, unknown>[] = loads(1000, 'LB');
    items[3] = { ...items[3], equipment_type: 'SPACESHIP' };
    items[998] = { ...items[998], stops: [{ type: 'Pickup' }] };
    items[500] = { ...items[500], load_number: 'LB-0' };
    const text = JSON.stringify({ loads: items });
    expect(text.length).toBeGreaterThan(256 * 1024);
    const answers = [];
    for (const t of [worker, main]) {
      const { user } = await createTenant(t);
      const before = checkedInWorker(t).length;
      const res = await post(t, '/api/v1/loads/batch', user.headers, text);
      answers.push(res);
      expect(checkedInWorker(t).length - before).toBe(t === worker ? 1 : 0);
    }
    const [fromWorker, fromMain] = answers;
    expect(fromWorker?.status).toBe(207);
    expect(fromWorker?.body).toMatchObject({ total_loads: 1000, successful: 997, failed: 3, created: 997 });
    expect(fromWorker?.body.errors.map((e: { index: number; param: string }) => [e.index, e.param])).toEqual([
      [3, 'loads[3].equipment_type'],
      [500, 'loads[500].load_number'],
      [998, 'loads[998].stops[0].location'],
    ]);
    expect(comparable(fromWorker?.body)).toEqual(comparable(fromMain?.body));
  });

  it('stores what the worker checked: every field of a load as sent', async () => {
    const { user } = await createTenant(worker);
    const items = loads(700, 'LF').map((l, i) => ({
      ...l,
      commodity: `Steel coil ${i}`,
      customer_rate: 2100 + i,
    }));
    const res = await post(worker, '/api/v1/loads/batch', user.headers, JSON.stringify({ loads: items }));
    expect(res.status).toBe(200);
    const id = res.body.data[699].id;
    const load = (await worker.app.inject({ url: `/api/v1/loads/${id}`, headers: user.headers })).json();
    expect(load).toMatchObject({
      load_number: 'LF-699',
      commodity: 'Steel coil 699',
      customer_rate: 2799,
      notes: NOTE,
      equipment_type: 'VAN',
    });
    expect(load.stops.map((s: { type: string }) => s.type)).toEqual(['Pickup', 'Dropoff']);
  });

  it("refuses a MEMBER's rate fields per item, as on the main thread", async () => {
    const { user } = await createTenant(worker, 'MEMBER');
    const items = loads(700, 'LM');
    items[5] = { ...items[5], customer_rate: 1500 };
    const res = await post(worker, '/api/v1/loads/batch', user.headers, JSON.stringify({ loads: items }));
    expect(res.status).toBe(207);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        index: 5,
        code: 'insufficient_permissions',
        param: 'loads[5].customer_rate',
      }),
    ]);
  });

  it('leaves a body the worker would not read to the main thread, which refuses it as before', async () => {
    const { user } = await createTenant(worker);
    const items = loads(700, 'LX');
    const text = JSON.stringify({ loads: items });
    const cases: [string, number, string][] = [
      [text.replace('"notes"', '"__proto__":{"admin":true},"notes"'), 422, 'Body contains a "__proto__"'],
      [`${text.slice(0, -2)},]}`, 422, 'Body is not valid JSON'],
      [JSON.stringify({ loads: [...items, ...loads(301, 'LY')] }), 422, 'loads'],
      [JSON.stringify({ loads: [1, ...items] }), 422, 'loads[0]'],
    ];
    const before = checkedInWorker(worker).length;
    for (const [body, status, message] of cases) {
      const res = await post(worker, '/api/v1/loads/batch', user.headers, body);
      expect(res.status).toBe(status);
      expect(res.body.error.message).toContain(message);
    }
    expect(checkedInWorker(worker).length).toBe(before);
  });

  it('fingerprints a keyed batch by its items: a replay is replayed, another batch on the key refused', async () => {
    const { user } = await createTenant(worker);
    const headers = { ...user.headers, 'idempotency-key': 'batch-key-1' };
    const items = loads(700, 'LK');
    const first = await worker.app.inject({
      method: 'POST',
      url: '/api/v1/loads/batch',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ loads: items }),
    });
    expect(first.statusCode).toBe(200);
    // The same items with keys in another order: the same request.
    const reordered = items.map((l) => Object.fromEntries(Object.entries(l).reverse()));
    const replay = await worker.app.inject({
      method: 'POST',
      url: '/api/v1/loads/batch',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ loads: reordered }),
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    // One item's note differs: another request on the same key.
    items[699] = { ...items[699], notes: `${NOTE}!` };
    const other = await post(worker, '/api/v1/loads/batch', headers, JSON.stringify({ loads: items }));
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  const csvHeader = 'name,mc_number,phone,email,equipment_types,is_onboarded';
  const csvRow = (i: number) =>
    `"Carrier ${i} ${'x'.repeat(190 - String(i).length)}",${700000 + i},,dispatch${i}@carrier-number-${i}.example,VAN;REEFER,yes`;

  it('answers a large carrier CSV upload as the main thread does', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => csvRow(i));
    rows[7] = `"Bad ${7}",${700007},,not-an-email,VAN,maybe`;
    const csv = [csvHeader, ...rows].join('\r\n');
    expect(csv.length).toBeGreaterThan(256 * 1024);
    const answers = [];
    for (const t of [worker, main]) {
      const { user } = await createTenant(t);
      const before = checkedInWorker(t).length;
      answers.push(await post(t, '/api/v1/carriers/batch', user.headers, csv, 'text/csv'));
      expect(checkedInWorker(t).length - before).toBe(t === worker ? 1 : 0);
    }
    const [fromWorker, fromMain] = answers;
    expect(fromWorker?.status).toBe(207);
    expect(fromWorker?.body).toMatchObject({ total: 1000, failed: 1 });
    expect(fromWorker?.body.errors[0]).toMatchObject({
      index: 7,
      param: expect.stringMatching(/^carriers\[7\]/),
    });
    expect(comparable(fromWorker?.body)).toEqual(comparable(fromMain?.body));
  });

  it('refuses a large CSV upload the worker read, as the main thread does', async () => {
    const { user } = await createTenant(worker);
    const big = 'y'.repeat(300 * 1024);
    const cases: [string, string][] = [
      [`${csvHeader},shoe_size\r\n"A ${big}",1,,a@b.example,VAN,yes,9`, 'Unknown CSV column: shoe_size'],
      [[csvHeader, ...Array.from({ length: 1001 }, (_, i) => csvRow(i))].join('\n'), 'At most 1000 carriers'],
      [`${csvHeader}\r\n"never closed ${big}`, ''],
    ];
    for (const [csv, message] of cases) {
      const answers = [];
      for (const t of [worker, main]) {
        const tenant = t === worker ? user : (await createTenant(main)).user;
        answers.push(await post(t, '/api/v1/carriers/batch', tenant.headers, csv, 'text/csv'));
      }
      expect(answers[0]?.status).toBe(answers[1]?.status);
      expect(comparable(answers[0]?.body)).toEqual(comparable(answers[1]?.body));
      expect(answers[0]?.body.error?.message ?? '').toContain(message);
    }
  });

  it('answers a large JSON carrier batch as the main thread does', async () => {
    const carriers = Array.from({ length: 1000 }, (_, i) => ({
      carrier: {
        name: `JSON Carrier ${i} ${'z'.repeat(180)}`,
        mc_number: String(800000 + i),
        equipment_types: ['VAN', 'REEFER', 'FLATBED'],
      },
    }));
    carriers[10] = { carrier: { name: '', mc_number: '800010', equipment_types: [] } };
    const text = JSON.stringify({ carriers });
    expect(text.length).toBeGreaterThan(256 * 1024);
    const answers = [];
    for (const t of [worker, main]) {
      const { user } = await createTenant(t);
      answers.push(await post(t, '/api/v1/carriers/batch', user.headers, text));
    }
    expect(answers[0]?.status).toBe(207);
    expect(answers[0]?.body.errors).toHaveLength(1);
    expect(comparable(answers[0]?.body)).toEqual(comparable(answers[1]?.body));
  });
});

describe('a body worker that cannot start', () => {
  it('serves the body on the main thread, now and after, and logs the failure once', async () => {
    const logged: unknown[] = [];
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const workers = new BodyWorkers({
      threads: 1,
      use: 'always',
      log,
      file: new URL('./no-such-worker.ts', import.meta.url),
    });
    const app = Fastify({ bodyLimit: 16 * 1024 * 1024 });
    await app.register(async (scoped) => {
      parseLargeJsonCooperatively(scoped, workers);
      scoped.post('/batch', { config: { bodyWorker: 'loads' } }, async (request) => ({
        body: request.body,
        checked: request.checkedItems !== undefined,
      }));
    });
    try {
      const body = { loads: Array.from({ length: 700 }, (_, i) => ({ n: i, note: NOTE })) };
      expect(JSON.stringify(body).length).toBeGreaterThan(256 * 1024);
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await app.inject({ method: 'POST', url: '/batch', payload: body });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ body, checked: false });
      }
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({ msg: expect.stringContaining('body worker thread failed') });
    } finally {
      await app.close();
      await workers.close();
    }
  });
});

describe('body workers used while the thread is shared', () => {
  it('reads a batch in a worker only while other requests have been served within the last second', async () => {
    let now = 1_000_000;
    const workers = new BodyWorkers({
      threads: 1,
      use: 'shared',
      log: pino({ level: 'silent' }),
      now: () => now,
    });
    const app = Fastify({ bodyLimit: 16 * 1024 * 1024 });
    workers.track(app);
    await app.register(async (scoped) => {
      parseLargeJsonCooperatively(scoped, workers);
      scoped.post('/batch', { config: { bodyWorker: 'loads' } }, async (request) => ({
        checked: request.checkedItems !== undefined,
      }));
      scoped.get('/small', async () => ({ ok: true }));
    });
    const batch = async () => {
      const payload = { loads: Array.from({ length: 700 }, () => loadPayload({ notes: NOTE })) };
      return (await app.inject({ method: 'POST', url: '/batch', payload })).json().checked;
    };
    try {
      expect(await batch()).toBe(false);
      expect((await app.inject({ method: 'GET', url: '/small' })).statusCode).toBe(200);
      now += SHARED_WINDOW_MS - 1;
      expect(await batch()).toBe(true);
      now += 2;
      expect(await batch()).toBe(false);
    } finally {
      await app.close();
      await workers.close();
    }
  });
});
