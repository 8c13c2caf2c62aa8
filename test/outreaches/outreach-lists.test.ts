import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { at, expectedOrder, expectQueryError, getJson, listIds } from '../helpers/list-helpers.js';
import { createLoad, ensureCarrier } from '../helpers/load-factories.js';

type OutreachValues = typeof outreaches.$inferInsert;

/**
 * Five outreaches written straight to the table so every time is known. Ties on purpose: r2/r3
 * share created_at, r1/r3 updated_at, r1/r4 status.
 */
async function dataset(t: TestApp) {
  const { orgId, user } = await createTenant(t);
  const loadId = await createLoad(t, user.headers);
  const carrierId = await ensureCarrier(t, orgId);
  const tag = orgId.slice(-8);
  const row = (n: number, v: Partial<OutreachValues>): OutreachValues => ({
    id: `out_${tag}_${n}`,
    organization_id: orgId,
    load_id: loadId,
    carrier_id: carrierId,
    modality: 'call',
    ...v,
  });
  const rows = [
    row(1, { created_at: at(0), updated_at: at(3), status: 'active', modality: 'call', is_automated: false }),
    row(2, {
      created_at: at(1),
      updated_at: at(1),
      status: 'completed',
      modality: 'email',
      is_automated: true,
    }),
    row(3, {
      created_at: at(1),
      updated_at: at(3),
      status: 'failed',
      modality: 'whatsapp',
      is_automated: true,
    }),
    row(4, {
      created_at: at(3),
      updated_at: at(0),
      status: 'active',
      modality: 'email',
      is_automated: false,
    }),
    row(5, { created_at: at(4), updated_at: at(5), status: 'pending', modality: 'call', is_automated: true }),
  ];
  await t.database.db.insert(outreaches).values(rows);
  const ids = rows.map((r) => r.id);
  return { orgId, user, loadId, rows, ids };
}

const iso = (d: Date) => encodeURIComponent(d.toISOString());

describe('outreach list: filters, sorting and stats', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('filters on created_after (inclusive), created_before (exclusive) and is_automated', async () => {
    const { user, ids } = await dataset(t);
    const [r1, r2, r3, r4, r5] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/outreaches?${qs}`);
    expect(await list(`created_after=${iso(at(1))}`)).toEqual([r5, r4, r3, r2]);
    expect(await list(`created_before=${iso(at(1))}`)).toEqual([r1]);
    expect(await list(`created_after=${iso(at(1))}&created_before=${iso(at(3))}`)).toEqual([r3, r2]);
    expect(await list(`created_after=${iso(at(4))}&created_before=${iso(at(4))}`)).toEqual([]);
    expect(await list('is_automated=true')).toEqual([r5, r3, r2]);
    expect(await list('is_automated=false')).toEqual([r4, r1]);
    expect(await list('is_automated=1&modality=email')).toEqual([r2]);
    expect(await list(`is_automated=0&created_after=${iso(at(1))}`)).toEqual([r4]);
    // Left out, both kinds are listed.
    expect(await list('')).toEqual([r5, r4, r3, r2, r1]);
  });

  it('refuses a reversed range, a bad boolean and an unknown sort field with 422 naming the parameter', async () => {
    const { user } = await dataset(t);
    for (const base of ['/api/v1/outreaches', '/api/v1/outreaches/stats']) {
      await expectQueryError(
        t,
        user.headers,
        `${base}?created_after=${iso(at(2))}&created_before=${iso(at(1))}`,
        'created_after',
      );
      await expectQueryError(t, user.headers, `${base}?is_automated=yes`, 'is_automated');
      await expectQueryError(t, user.headers, `${base}?created_before=soon`, 'created_before');
    }
    await expectQueryError(t, user.headers, '/api/v1/outreaches?order_by=modality', 'order_by');
  });

  it('sorts on every documented field both ways, ties by id, and pages stably', async () => {
    const { user, rows, ids } = await dataset(t);
    const [r1, r2, r3, r4, r5] = ids;
    const list = (qs: string) => listIds(t, user.headers, `/api/v1/outreaches?${qs}`);
    expect(await list('order_by=status&order_desc=false')).toEqual([r1, r4, r2, r3, r5]);
    expect(await list('order_by=status')).toEqual([r5, r3, r2, r4, r1]);
    expect(await list('order_by=updated_at')).toEqual([r5, r3, r1, r2, r4]);
    for (const field of ['created_at', 'updated_at', 'status'] as const) {
      for (const desc of [true, false]) {
        expect(await list(`order_by=${field}&order_desc=${desc}`), `${field} ${desc}`).toEqual(
          expectedOrder(rows, field, desc),
        );
      }
    }
    const whole = await list('order_by=updated_at&order_desc=false');
    const paged: string[] = [];
    for (let page = 1; page <= 3; page++) {
      paged.push(...(await list(`order_by=updated_at&order_desc=false&page=${page}&page_size=2`)));
    }
    expect(paged).toEqual(whole);
  });

  it('answers GET /outreaches/stats per status and modality, exactly, under the filters, for its organization only', async () => {
    const a = await dataset(t);
    const b = await dataset(t);
    const stats = (qs = '', headers = a.user.headers) =>
      getJson(t, headers, `/api/v1/outreaches/stats${qs ? `?${qs}` : ''}`);
    const whole = {
      total_count: 5,
      by_status: { pending: 1, active: 2, completed: 1, failed: 1, no_response: 0 },
      by_modality: { call: 2, email: 2, whatsapp: 1 },
    };
    expect(await stats()).toEqual(whole);
    // Another organization's identical rows never count; each sees its own.
    expect(await stats('', b.user.headers)).toEqual(whole);
    expect(await stats('is_automated=true')).toEqual({
      total_count: 3,
      by_status: { pending: 1, active: 0, completed: 1, failed: 1, no_response: 0 },
      by_modality: { call: 1, email: 1, whatsapp: 1 },
    });
    expect(await stats(`created_after=${iso(at(1))}&created_before=${iso(at(4))}`)).toEqual({
      total_count: 3,
      by_status: { pending: 0, active: 1, completed: 1, failed: 1, no_response: 0 },
      by_modality: { call: 0, email: 2, whatsapp: 1 },
    });
    expect(await stats('status=active&modality=email')).toMatchObject({ total_count: 1 });
    expect(
      await stats(`carrier_id=${defined(a.rows[0], 'a.rows[0]').carrier_id}&load_id=${a.loadId}`),
    ).toMatchObject({
      total_count: 5,
    });
    expect(await stats(`load_id=${b.loadId}`)).toMatchObject({ total_count: 0 });
    for (const qs of ['', 'is_automated=false', 'status=active,failed', `created_before=${iso(at(3))}`]) {
      const list = await getJson(t, a.user.headers, `/api/v1/outreaches?${qs}`);
      expect((await stats(qs)).total_count, qs).toBe(list.pagination.total_count);
    }
    const key = await createApiKey(t, a.user.headers);
    expect((await stats('', key.headers)).total_count).toBe(5);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/outreaches/stats' })).statusCode).toBe(401);
  });
});
