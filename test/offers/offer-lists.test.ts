import { describe, expect, it } from 'vitest';
import { offers } from '../../src/modules/offers/offers-tables.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { at, expectedOrder, expectQueryError, getJson, listIds } from '../helpers/list-helpers.js';
import { createLoad, ensureCarrier } from '../helpers/load-factories.js';

type OfferValues = typeof offers.$inferInsert;

/**
 * Six offers on two loads, written straight to the table so every time is known. Ties on purpose:
 * o4/o5 share created_at, o1/o6 updated_at, o2/o3 offer_amount; four have no accepted_at.
 */
async function dataset(t: TestApp) {
  const { orgId, user } = await createTenant(t);
  const [l1, l2] = [await createLoad(t, user.headers), await createLoad(t, user.headers)];
  const carrierId = await ensureCarrier(t, orgId);
  const tag = orgId.slice(-8);
  const row = (n: number, v: Partial<OfferValues>): OfferValues => ({
    id: `ofr_${tag}_${n}`,
    organization_id: orgId,
    load_id: l1,
    carrier_id: carrierId,
    offer_amount: 1000,
    ...v,
  });
  const rows = [
    row(1, { created_at: at(0), updated_at: at(5), offer_amount: 1000, status: 'pending', source: 'api' }),
    row(2, {
      created_at: at(1),
      updated_at: at(1),
      offer_amount: 1500,
      status: 'rejected',
      channel: 'voice',
      source: 'agent',
    }),
    row(3, {
      load_id: l2,
      created_at: at(2),
      updated_at: at(9),
      offer_amount: 1500,
      status: 'accepted',
      accepted_at: at(2),
      channel: 'email',
      source: 'agent',
    }),
    row(4, {
      created_at: at(3),
      updated_at: at(3),
      offer_amount: 900,
      status: 'pending',
      channel: 'messaging',
      source: 'agent',
    }),
    row(5, {
      created_at: at(3),
      updated_at: at(4),
      offer_amount: 1200,
      status: 'accepted',
      accepted_at: at(4),
      source: 'api',
    }),
    row(6, {
      load_id: l2,
      created_at: at(5),
      updated_at: at(5),
      offer_amount: 2000,
      status: 'pending',
      channel: 'voice',
      source: 'agent',
    }),
  ];
  await t.database.db.insert(offers).values(rows);
  const ids = rows.map((r) => r.id);
  return { orgId, user, l1, l2, rows, ids };
}

const iso = (d: Date) => encodeURIComponent(d.toISOString());

describe('offer lists: filters, sorting and stats', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('filters on created_after (inclusive) and created_before (exclusive), also per load', async () => {
    const { user, l1, ids } = await dataset(t);
    const [o1, o2, o3, o4, o5, o6] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/offers?${qs}`);
    expect(await list(`created_after=${iso(at(3))}`)).toEqual([o6, o5, o4]);
    expect(await list(`created_before=${iso(at(3))}`)).toEqual([o3, o2, o1]);
    expect(await list(`created_after=${iso(at(1))}&created_before=${iso(at(3))}`)).toEqual([o3, o2]);
    // A millisecond either side of a boundary moves it.
    const justAfter = new Date(at(3).getTime() + 1);
    expect(await list(`created_after=${iso(justAfter)}`)).toEqual([o6]);
    expect(await list(`created_before=${iso(justAfter)}`)).toEqual([o5, o4, o3, o2, o1]);
    // An empty range is allowed (nothing is both at or after and before one instant).
    expect(await list(`created_after=${iso(at(3))}&created_before=${iso(at(3))}`)).toEqual([]);
    // Any offset: 14:03+02:00 is 12:03Z.
    expect(await list(`created_after=${encodeURIComponent('2025-06-01T14:03:00+02:00')}`)).toEqual([
      o6,
      o5,
      o4,
    ]);
    expect(await listIds(t, user.headers, `/api/v1/loads/${l1}/offers?created_after=${iso(at(1))}`)).toEqual([
      o5,
      o4,
      o2,
    ]);
  });

  it('refuses a reversed range, a malformed datetime and an unknown sort field with 422 naming the parameter', async () => {
    const { user, l1 } = await dataset(t);
    for (const base of ['/api/v1/offers', `/api/v1/loads/${l1}/offers`, '/api/v1/offers/stats']) {
      const reversed = await expectQueryError(
        t,
        user.headers,
        `${base}?created_after=${iso(at(4))}&created_before=${iso(at(3))}`,
        'created_after',
      );
      expect(reversed.error.message).toMatch(/created_before/);
      await expectQueryError(t, user.headers, `${base}?created_after=yesterday`, 'created_after');
      await expectQueryError(t, user.headers, `${base}?created_before=2025-06-01`, 'created_before');
      await expectQueryError(t, user.headers, `${base}?source=email`, 'source');
    }
    for (const base of ['/api/v1/offers', `/api/v1/loads/${l1}/offers`]) {
      const unknown = await expectQueryError(t, user.headers, `${base}?order_by=carrier_id`, 'order_by');
      expect(unknown.detail[0].type).toBe('enum');
      await expectQueryError(t, user.headers, `${base}?order_desc=maybe`, 'order_desc');
    }
  });

  it('filters on source, alone and with the other filters', async () => {
    const { user, l2, ids } = await dataset(t);
    const [o1, o2, o3, o4, o5, o6] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/offers?${qs}`);
    expect(await list('source=api')).toEqual([o5, o1]);
    expect(await list('source=agent')).toEqual([o6, o4, o3, o2]);
    expect(await list('source=agent,api')).toEqual([o6, o5, o4, o3, o2, o1]);
    expect(await list('source=agent&source=api&status=pending')).toEqual([o6, o4, o1]);
    expect(await list(`source=agent&load_id=${l2}&channel=voice`)).toEqual([o6]);
  });

  it('sorts on every documented field both ways, rows without a value last, ties by id', async () => {
    const { user, l1, rows, ids } = await dataset(t);
    const [o1, o2, o3, o4, o5, o6] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/offers?${qs}`);
    // Spelled out once, so the rule itself is pinned and not only its reimplementation below.
    expect(await list('order_by=accepted_at')).toEqual([o5, o3, o6, o4, o2, o1]);
    expect(await list('order_by=accepted_at&order_desc=false')).toEqual([o3, o5, o1, o2, o4, o6]);
    expect(await list('order_by=offer_amount&order_desc=false')).toEqual([o4, o1, o5, o2, o3, o6]);
    expect(await list('order_by=offer_amount&order_desc=true')).toEqual([o6, o3, o2, o5, o1, o4]);
    for (const field of ['created_at', 'updated_at', 'offer_amount', 'accepted_at'] as const) {
      for (const desc of [true, false]) {
        expect(await list(`order_by=${field}&order_desc=${desc}`), `${field} ${desc}`).toEqual(
          expectedOrder(rows, field, desc),
        );
      }
    }
    // The default is created_at descending; order_desc alone flips it.
    expect(await list('')).toEqual([o6, o5, o4, o3, o2, o1]);
    expect(await list('order_desc=0')).toEqual([o1, o2, o3, o4, o5, o6]);
    // Per load, the same sorts.
    expect(
      await listIds(t, user.headers, `/api/v1/loads/${l1}/offers?order_by=updated_at&order_desc=false`),
    ).toEqual([o2, o4, o5, o1]);
  });

  it('pages a sort with ties stably: the pages together are the whole list, each offer once', async () => {
    const { user, ids } = await dataset(t);
    for (const qs of [
      'order_by=offer_amount',
      'order_by=accepted_at&order_desc=false',
      'order_by=created_at',
    ]) {
      const whole = await listIds(t, user.headers, `/api/v1/offers?${qs}`);
      const paged: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const body = await getJson(t, user.headers, `/api/v1/offers?${qs}&page=${page}&page_size=2`);
        expect(body.pagination).toMatchObject({ page, total_count: 6, total_pages: 3 });
        paged.push(...body.data.map((o: { id: string }) => o.id));
      }
      expect(paged).toEqual(whole);
      expect([...paged].sort()).toEqual([...ids].sort());
    }
  });

  it('answers GET /offers/stats with every status, channel and source counted exactly, under the filters', async () => {
    const { user, l2 } = await dataset(t);
    const stats = (qs = '') => getJson(t, user.headers, `/api/v1/offers/stats${qs ? `?${qs}` : ''}`);
    expect(await stats()).toEqual({
      total_count: 6,
      by_status: { pending: 3, accepted: 2, rejected: 1 },
      by_channel: { voice: 2, email: 1, messaging: 1, none: 2 },
      by_source: { api: 2, agent: 4 },
    });
    expect(await stats('status=pending')).toEqual({
      total_count: 3,
      by_status: { pending: 3, accepted: 0, rejected: 0 },
      by_channel: { voice: 1, email: 0, messaging: 1, none: 1 },
      by_source: { api: 1, agent: 2 },
    });
    expect(await stats(`created_after=${iso(at(3))}`)).toMatchObject({
      total_count: 3,
      by_status: { pending: 2, accepted: 1, rejected: 0 },
    });
    expect(await stats(`created_before=${iso(at(3))}`)).toMatchObject({
      total_count: 3,
      by_status: { pending: 1, accepted: 1, rejected: 1 },
    });
    expect(await stats(`load_id=${l2}&source=agent`)).toEqual({
      total_count: 2,
      by_status: { pending: 1, accepted: 1, rejected: 0 },
      by_channel: { voice: 1, email: 1, messaging: 0, none: 0 },
      by_source: { api: 0, agent: 2 },
    });
    expect(await stats('channel=voice,email')).toMatchObject({
      total_count: 3,
      by_channel: { voice: 2, email: 1, messaging: 0, none: 0 },
    });
    // The stats count what the list lists.
    for (const qs of ['', 'status=accepted', 'source=api', `created_after=${iso(at(1))}`]) {
      const list = await getJson(t, user.headers, `/api/v1/offers?${qs}`);
      expect((await stats(qs)).total_count).toBe(list.pagination.total_count);
    }
  });

  it("counts only the caller's organization, with an API key too, and 0 everywhere when it has none", async () => {
    const a = await dataset(t);
    const b = await dataset(t);
    const empty = await createTenant(t);
    const key = await createApiKey(t, a.user.headers);
    const statsA = await getJson(t, key.headers, '/api/v1/offers/stats');
    expect(statsA.total_count).toBe(6);
    expect(statsA.by_source).toEqual({ api: 2, agent: 4 });
    expect(await listIds(t, b.user.headers, '/api/v1/offers?order_by=offer_amount')).toEqual(
      expectedOrder(b.rows, 'offer_amount', true),
    );
    // Another organization's load id filters to nothing rather than leaking its offers.
    expect((await getJson(t, a.user.headers, `/api/v1/offers/stats?load_id=${b.l1}`)).total_count).toBe(0);
    expect(await getJson(t, empty.user.headers, '/api/v1/offers/stats')).toEqual({
      total_count: 0,
      by_status: { pending: 0, accepted: 0, rejected: 0 },
      by_channel: { voice: 0, email: 0, messaging: 0, none: 0 },
      by_source: { api: 0, agent: 0 },
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/offers/stats' })).statusCode).toBe(401);
  });
});
