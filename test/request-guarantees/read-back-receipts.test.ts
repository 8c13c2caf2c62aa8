import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLoad } from '../helpers/load-factories.js';
import { faultSetup, withReadBackCutOff } from './fault-setup.js';

/**
 * Every write route whose answer is read back after its commit, table-driven: with the read-back
 * cut off (carrier_contacts locked and its waiters terminated: each write below leaves that table
 * alone, and each read-back reads it), an unkeyed write answers 202 with its receipt and Location,
 * and the database holds its change once; a keyed one answers 503 and the database holds nothing
 * of it. (POST /carriers itself: read-back-faults.test.ts.)
 */
const unique = () => randomBytes(5).toString('hex');

describe('write receipts on every route that reads its result back', () => {
  const setup = faultSetup();
  const api = '/api/v1';
  const query = async (text: string, values: unknown[]) => (await setup.admin.query(text, values)).rows;

  async function carrier(): Promise<string> {
    const res = await setup.t.app.inject({
      method: 'POST',
      url: `${api}/carriers`,
      headers: setup.headers,
      payload: { name: `Receipt carrier ${unique()}` },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  }

  async function offer(): Promise<{ id: string; carrierId: string }> {
    const carrierId = await carrier();
    const loadId = await createLoad(setup.t, setup.headers);
    const res = await setup.t.app.inject({
      method: 'POST',
      url: `${api}/offers`,
      headers: setup.headers,
      payload: { load_id: loadId, carrier_id: carrierId, offer_amount: 1800 },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { id: res.json().id, carrierId };
  }

  /**
   * One route: `prepare` makes what the write needs and answers the request, the id it writes
   * (null for a creation: the receipt names it) and `state`, what the database holds of the change
   * (rows), with `written` (after the write, given its id) and `untouched` (without it).
   */
  interface Case {
    route: string;
    object: string;
    operation: 'created' | 'updated';
    collection: string;
    prepare(): Promise<{
      request: InjectOptions;
      id: string | null;
      state(): Promise<unknown[]>;
      written(id: string): unknown[];
      untouched: unknown[];
    }>;
  }

  const carrierUpdate = (
    route: string,
    path: string,
    payload: Record<string, unknown> | undefined,
    column: string,
    before: Record<string, unknown>,
    after: Record<string, unknown>,
    owner = false,
  ): Case => ({
    route,
    object: 'carrier',
    operation: 'updated',
    collection: `${api}/carriers`,
    async prepare() {
      const id = await carrier();
      if (route.includes('enable')) {
        await setup.t.app.inject({
          method: 'POST',
          url: `${api}/carriers/${id}/disable`,
          headers: setup.owner,
          payload: { reason: 'service_quality' },
        });
      }
      const method = route.split(' ')[0] === 'PATCH' ? 'PATCH' : 'POST';
      return {
        request: {
          method,
          url: `${api}/carriers/${id}${path}`,
          headers: owner ? setup.owner : setup.headers,
          ...(payload ? { payload } : {}),
        },
        id,
        state: () =>
          query(`SELECT id, ${column} IS NOT NULL AS set, ${column}::text AS v FROM carriers WHERE id = $1`, [
            id,
          ]),
        written: (w) => [{ id: w, ...after }],
        untouched: [{ id, ...before }],
      };
    },
  });

  const dispatcher = `Receipt Dispatch ${unique()}`;
  const cases: Case[] = [
    carrierUpdate(
      'PATCH /carriers/{id}',
      '',
      { dispatcher_name: dispatcher },
      'dispatcher_name',
      { set: false, v: null },
      { set: true, v: dispatcher },
    ),
    carrierUpdate(
      'POST /carriers/{id}/disable',
      '/disable',
      { reason: 'service_quality' },
      'is_active',
      { set: true, v: 'true' },
      { set: true, v: 'false' },
      true,
    ),
    carrierUpdate(
      'POST /carriers/{id}/enable',
      '/enable',
      {},
      'is_active',
      { set: true, v: 'false' },
      { set: true, v: 'true' },
      true,
    ),
    carrierUpdate(
      'POST /carriers/{id}/stop-contact',
      '/stop-contact',
      undefined,
      'stop_contact_requested_at',
      { set: false, v: null },
      { set: true, v: expect.any(String) },
    ),
    {
      route: 'POST /offers',
      object: 'offer',
      operation: 'created',
      collection: `${api}/offers`,
      async prepare() {
        const carrierId = await carrier();
        const loadId = await createLoad(setup.t, setup.headers);
        const notes = `Receipt offer ${unique()}`;
        return {
          request: {
            method: 'POST',
            url: `${api}/offers`,
            headers: setup.headers,
            payload: { load_id: loadId, carrier_id: carrierId, offer_amount: 2100, notes },
          },
          id: null,
          state: () => query('SELECT id, carrier_id FROM offers WHERE notes = $1', [notes]),
          written: (w) => [{ id: w, carrier_id: carrierId }],
          untouched: [],
        };
      },
    },
    {
      route: 'PATCH /offers/{id}',
      object: 'offer',
      operation: 'updated',
      collection: `${api}/offers`,
      async prepare() {
        const { id } = await offer();
        return {
          request: {
            method: 'PATCH',
            url: `${api}/offers/${id}`,
            headers: setup.headers,
            payload: { status: 'rejected' },
          },
          id,
          state: () => query('SELECT id, status FROM offers WHERE id = $1', [id]),
          written: (w) => [{ id: w, status: 'rejected' }],
          untouched: [{ id, status: 'pending' }],
        };
      },
    },
  ];

  describe.each(cases)('$route', (c) => {
    it('answers unkeyed 202 with the receipt and Location; the change is there once', async () => {
      const p = await c.prepare();
      const { result: res, terminated } = await withReadBackCutOff(setup, () =>
        setup.t.app.inject(p.request),
      );
      expect(terminated).toBeGreaterThanOrEqual(1);
      expect(res.statusCode, res.body).toBe(202);
      const body = res.json();
      const id = p.id ?? body.id;
      const location = `${c.collection}/${id}`;
      expect(body).toEqual({
        id,
        object: c.object,
        operation: c.operation,
        complete: false,
        message: `The ${c.object} was ${c.operation}, but reading it back failed: do not send the request again; read it at ${location}`,
      });
      expect(res.headers.location).toBe(location);
      expect(await p.state()).toEqual(p.written(id));

      const read = await setup.t.app.inject({ method: 'GET', url: location, headers: setup.headers });
      expect(read.statusCode).toBe(200);
      expect(read.json().id).toBe(id);
    });

    it('answers keyed 503 with nothing committed', async () => {
      const p = await c.prepare();
      const request = {
        ...p.request,
        headers: { ...p.request.headers, 'idempotency-key': `receipt-${unique()}` },
      };
      const { result: res } = await withReadBackCutOff(setup, () => setup.t.app.inject(request));
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().error.code).toBe('service_unavailable');
      expect(await p.state()).toEqual(p.untouched);
    });
  });
});
