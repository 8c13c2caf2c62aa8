import { describe, expect, it } from 'vitest';
import { withReadBackCutOff as cutOff, faultSetup } from './fault-setup.js';

/**
 * A write that committed, then lost every connection it tried for reading its result back: a
 * second connection holds a lock on carrier_contacts (which creating a carrier without contacts
 * does not touch, and reading it back does), and terminates each backend that waits on it, as
 * pg_terminate_backend during a failover would. Without a key the answer is the 202 receipt with
 * the id; with a key the request's one transaction is lost, 503, and its retry creates it once.
 */
describe('a committed write whose read-back fails', () => {
  // The locker holds the lock on a connection of its own: within its transaction,
  // pg_stat_activity would stay as it first read it.
  const setup = faultSetup();

  const withReadBackCutOff = <T>(request: () => Promise<T>) => cutOff(setup, request);

  let mc = 300000 + (Date.now() % 100000);
  const create = (
    name: string,
    key?: string,
    payload: Record<string, unknown> = { mc_number: String(mc++) },
  ) =>
    setup.t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers',
      headers: key ? { ...setup.headers, 'idempotency-key': key } : setup.headers,
      payload: { name, ...payload },
    });

  const carriersNamed = async (name: string) =>
    (await setup.admin.query<{ id: string }>('SELECT id FROM carriers WHERE name = $1', [name])).rows.map(
      (r) => r.id,
    );

  it('answers an unkeyed creation 202 with its id and Location, and the carrier is there once', async () => {
    const name = `Unread ${Date.now()}`;
    const { result: res, terminated } = await withReadBackCutOff(() => create(name));
    // The first read-back and its one retry on a fresh connection were both cut off.
    expect(terminated).toBeGreaterThanOrEqual(2);
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^car_/),
      object: 'carrier',
      operation: 'created',
      complete: false,
      message: `The carrier was created, but reading it back failed: do not send the request again; read it at /api/v1/carriers/${body.id}`,
    });
    expect(res.headers.location).toBe(`/api/v1/carriers/${body.id}`);
    expect(await carriersNamed(name)).toEqual([body.id]);

    const read = await setup.t.app.inject({
      method: 'GET',
      url: String(res.headers.location),
      headers: setup.headers,
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: body.id, name });
  });

  it('answers an unkeyed update 202 with operation updated', async () => {
    const name = `Unread update ${Date.now()}`;
    const first = await create(name);
    expect(first.statusCode).toBe(201);
    const { result: res } = await withReadBackCutOff(() =>
      create(name, undefined, { mc_number: first.json().mc_number, legal_name: `${name} LLC` }),
    );
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ id: first.json().id, operation: 'updated', complete: false });
    expect(await carriersNamed(name)).toEqual([first.json().id]);
  });

  it('answers a keyed creation 503 with nothing committed; its retry creates it once', async () => {
    const name = `Unread keyed ${Date.now()}`;
    const key = `read-back-${Date.now()}`;
    const payload = { mc_number: String(mc++) };
    const { result: res } = await withReadBackCutOff(() => create(name, key, payload));
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
    expect(await carriersNamed(name)).toEqual([]);

    const retry = await create(name, key, payload);
    expect(retry.statusCode).toBe(201);
    expect(await carriersNamed(name)).toEqual([retry.json().id]);
    const replay = await create(name, key, payload);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(retry.body);
  });
});
