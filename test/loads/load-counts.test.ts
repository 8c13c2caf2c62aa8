import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { fileDatabaseUrl, type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { bodyOf } from '../helpers/json-body.js';
import { addOffer, createLoad, stopPayload } from '../helpers/load-factories.js';
import { statementConfigsDuring } from '../helpers/statements.js';

describe('total_count stays exact as loads change', () => {
  const t = useTestApp();

  it('recounts a search, a status list and a tab after every kind of write', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    const total = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ pagination: { total_count: number } }>().pagination.total_count;
    };
    const reno = { stops: [stopPayload('Pickup', { city: 'Reno', state: 'NV' }), stopPayload('Dropoff')] };

    const first = await createLoad(t, headers, { load_number: 'C-1', tms_status: 'open', ...reno });
    expect(await total('search=reno')).toBe(1);
    expect(await total('search=reno')).toBe(1);
    expect(await total('status=Unassigned')).toBe(1);

    await createLoad(t, headers, { load_number: 'C-2', tms_status: 'open', ...reno });
    expect(await total('search=reno')).toBe(2);
    expect(await total('status=Unassigned')).toBe(2);
    expect(await total('')).toBe(2);

    // An update moving a load out of the search and out of the status.
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers,
      payload: {
        load_number: 'C-2',
        equipment_type: 'VAN',
        tms_status: 'delivered',
        stops: [stopPayload('Pickup'), stopPayload('Dropoff')],
      },
    });
    expect(await total('search=reno')).toBe(1);
    expect(await total('status=Unassigned')).toBe(1);
    expect(await total('status=Delivered')).toBe(1);
    expect(await total('status=Unassigned,Delivered&search=reno')).toBe(1);

    // A tab alone is counted from its own table.
    expect(await total('tab=active_offers')).toBe(0);
    await addOffer(t, orgId, first, { status: 'pending' });
    await addOffer(t, orgId, first, { status: 'pending' });
    expect(await total('tab=active_offers')).toBe(1);
    expect(await total('tab=active_offers&search=reno')).toBe(1);
    expect(await total('tab=active_offers&status=Delivered')).toBe(0);
    await t.database.pool.query(`UPDATE offers SET status = 'rejected' WHERE load_id = $1`, [first]);
    expect(await total('tab=active_offers')).toBe(0);
    expect(await total('tab=active_offers&search=reno')).toBe(0);
    await addOffer(t, orgId, first, { status: 'pending' });
    expect(await total('tab=active_offers')).toBe(1);
    expect(await total('tab=active_offers&search=reno')).toBe(1);

    // Deleting loads (the organization's cleanup path) keeps the counters right too.
    await t.database.pool.query(`DELETE FROM loads WHERE organization_id = $1 AND load_number = 'C-1'`, [
      orgId,
    ]);
    expect(await total('search=reno')).toBe(0);
    expect(await total('status=Unassigned')).toBe(0);
    expect(await total('')).toBe(1);
    expect(await total('tab=active_offers')).toBe(0);
  });
});

/** Lists of one organization whose total_count each test compares with a plain count in SQL. */
function exactness(t: TestApp) {
  return async (orgId: string, headers: Record<string, string>, lists: [string, string][]) => {
    for (const [query, where] of lists) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const { rows } = await t.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM loads WHERE organization_id = $1 AND ${where}`,
        [orgId],
      );
      expect(res.json().pagination.total_count, query).toBe(defined(rows[0], 'rows[0]').n);
    }
  };
}

/** The SQL text of every statement the app sends on its pool while `fn` runs. */
async function statementsSentDuring(t: TestApp, fn: () => Promise<void>): Promise<string[]> {
  return (await statementConfigsDuring(t, fn)).map((s) => s.text);
}

/** Whether a statement finds the ids of a page (listLoadPage) rather than reading known ids. */
const findsPage = (q: string) => q.includes('"loads"."id" IN (');

/** Whether a statement counts a list afresh (countLoads) rather than bringing a kept count up to date. */
const isFreshCount = (q: string) => /^select count\(\*\)::int AS n, pg_current_snapshot/i.test(q);

/** Whether a statement brings a kept count up to date from load_changes (countChangesSince). */
const isCountUpdate = (q: string) => q.includes('"load_changes"') && !q.includes('now_in AS');

const LISTS: [string, string][] = [
  ['posted_rate_min=1000&posted_rate_max=1999', 'posted_rate BETWEEN 1000 AND 1999'],
  ['origin_city=reno', `origin_city ILIKE '%reno%'`],
  ['customer_name=ACME', `lower(customer_name) = 'acme'`],
  ['carrier_rep_name=jane&status=Unassigned', `rep_names && '{jane}' AND load_status = 'Unassigned'`],
  ['tms_status=OPEN&posted_rate_min=1', `lower(tms_status) = 'open' AND posted_rate >= 1`],
  ['search=reno&is_posted=true', `search_text LIKE '%reno%' AND is_posted`],
  ['distance_max=500&order_by=distance', 'distance <= 500'],
];

const body = (n: number, o: Record<string, unknown> = {}) => ({
  load_number: `E-${n}`,
  equipment_type: 'VAN',
  tms_status: 'open',
  customer_name: n % 2 ? 'Acme' : 'Other',
  carrier_rep_user_name: n % 3 ? 'Jane' : 'Bob',
  posted_rate: 900 + n * 50,
  distance: 100 * n,
  is_posted: n % 2 === 0,
  stops: [
    stopPayload('Pickup', { city: n % 2 ? 'Reno' : 'Boise', state: n % 2 ? 'NV' : 'ID' }),
    stopPayload('Dropoff'),
  ],
  ...o,
});

describe('total_count stays exact while loads are written', () => {
  const t = useTestApp();
  const expectExact = exactness(t);

  async function batch(headers: Record<string, string>, loads: Record<string, unknown>[]) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads/batch',
      headers,
      payload: { loads },
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  /** A new organization with an API key and `n` loads (body(0) to body(n - 1)). */
  async function tenantWithLoads(n: number) {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    await batch(
      headers,
      Array.from({ length: n }, (_, i) => body(i)),
    );
    return { orgId, headers };
  }

  it('follows inserts, updates moving loads in and out of a filter, and deletes', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    await batch(
      headers,
      Array.from({ length: 30 }, (_, n) => body(n)),
    );
    await expectExact(orgId, headers, LISTS);
    // Rates, cities, customers, reps and statuses change; some loads leave each list, some join.
    await batch(
      headers,
      Array.from({ length: 30 }, (_, n) =>
        body(n, {
          posted_rate: n % 4 ? 1500 : 3000,
          customer_name: n % 3 ? 'ACME' : 'acme',
          carrier_rep_user_name: n % 2 ? 'Bob' : 'Jane',
          tms_sales_rep_names: n % 5 ? null : 'Jane; Kim',
          tms_status: n % 7 ? 'Open' : 'Delivered',
          stops: [
            stopPayload('Pickup', { city: n % 3 ? 'Reno' : 'Sparks', state: 'NV' }),
            stopPayload('Dropoff'),
          ],
        }),
      ),
    );
    await expectExact(orgId, headers, LISTS);
    await batch(
      headers,
      Array.from({ length: 10 }, (_, n) => body(100 + n)),
    );
    await t.database.pool.query(
      `DELETE FROM loads WHERE organization_id = $1 AND load_number IN ('E-1', 'E-2', 'E-101')`,
      [orgId],
    );
    await expectExact(orgId, headers, LISTS);
    // Straight SQL writes (the status mapping path rewrites loads this way) are seen too.
    await t.database.pool.query(
      `UPDATE loads SET posted_rate = 1234, rep_names = '{jane}' WHERE organization_id = $1 AND load_number LIKE 'E-1%'`,
      [orgId],
    );
    await expectExact(orgId, headers, LISTS);
    // A city and a customer spelled in a way no load had before join the lists they match.
    await batch(headers, [
      body(200, {
        customer_name: 'aCmE',
        stops: [stopPayload('Pickup', { city: 'North Reno', state: 'NV' }), stopPayload('Dropoff')],
      }),
    ]);
    await expectExact(orgId, headers, LISTS);
  });

  it('keeps the count of every filter exact when a column the filter reads changes', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    const day = (d: number) => `2026-04-${String(d).padStart(2, '0')}`;
    const load = (n: number, v: number) => ({
      load_number: `F-${n}`,
      equipment_type: v % 2 ? 'VAN' : 'REEFER',
      mode: v % 2 ? 'FTL' : 'LTL',
      tms_status: v % 2 ? 'Open' : 'Booked',
      customer_name: v % 2 ? 'Acme' : 'Zenith',
      carrier_rep_user_name: v % 2 ? 'Jane' : 'Bob',
      carrier_name: v % 2 ? 'Swift' : 'Knight',
      posted_rate: v % 2 ? 1200 : 2500,
      distance: v % 2 ? 300.5 : 1500,
      is_posted: v % 2 === 1,
      stops: [
        stopPayload('Pickup', { city: v % 2 ? 'Reno' : 'Boise', date: `${day(1 + (v % 2) * 10)}T08:00:00Z` }),
        stopPayload('Dropoff', {
          city: v % 2 ? 'Dallas' : 'Tulsa',
          date: `${day(3 + (v % 2) * 10)}T08:00:00Z`,
        }),
      ],
    });
    const today = new Date().toISOString().slice(0, 10);
    const lists: [string, string][] = [
      ['search=swift', `search_text LIKE '%swift%'`],
      ['status=Unassigned&mode=FTL', `load_status = 'Unassigned' AND mode = 'FTL'`],
      ['tms_status=open&equipment_type=VAN', `lower(tms_status) = 'open' AND equipment_type = 'VAN'`],
      ['is_posted=true&customer_name=acme', `is_posted AND lower(customer_name) = 'acme'`],
      ['carrier_rep_name=jane&origin_city=ren', `rep_names && '{jane}' AND origin_city ILIKE '%ren%'`],
      ['destination_city=dal&distance_max=1000', `destination_city ILIKE '%dal%' AND distance <= 1000`],
      ['distance_min=1000&posted_rate_max=2000', 'distance >= 1000 AND posted_rate <= 2000'],
      ['posted_rate_min=2000&mode=LTL', `posted_rate >= 2000 AND mode = 'LTL'`],
      [`pickup_date_from=${day(10)}&mode=FTL`, `pickup_date >= '${day(10)}' AND mode = 'FTL'`],
      [`delivery_date_to=${day(5)}&mode=LTL`, `delivery_date < '${day(6)}' AND mode = 'LTL'`],
      [`last_posted_at_from=${today}&mode=FTL`, `last_posted_at >= '${today}' AND mode = 'FTL'`],
      [`updated_at_from=${today}&mode=FTL`, `updated_at >= '${today}' AND mode = 'FTL'`],
      [`created_at_from=${today}&mode=LTL`, `created_at >= '${today}' AND mode = 'LTL'`],
    ];
    await batch(
      headers,
      Array.from({ length: 12 }, (_, n) => load(n, n)),
    );
    await expectExact(orgId, headers, lists);
    // Every load flips every attribute: each list loses its loads and gains the others.
    await batch(
      headers,
      Array.from({ length: 12 }, (_, n) => load(n, n + 1)),
    );
    await expectExact(orgId, headers, lists);
    // And the columns the API does not write: moved straight in SQL.
    await t.database.pool.query(
      `UPDATE loads SET created_at = created_at - interval '3 days', updated_at = updated_at - interval '3 days',
         last_posted_at = last_posted_at - interval '3 days'
       WHERE organization_id = $1 AND load_number IN ('F-1', 'F-2', 'F-3')`,
      [orgId],
    );
    await expectExact(orgId, headers, lists);
  });

  it('counts a change committed by a transaction that was still open when the count was kept', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    const list: [string, string][] = [defined(LISTS[0], 'LISTS[0]')];
    await expectExact(orgId, headers, list);
    const writer = new pg.Client({ connectionString: await fileDatabaseUrl() });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await writer.query(
        `UPDATE loads SET posted_rate = 1001 WHERE organization_id = $1 AND load_number IN ('E-0', 'E-1')`,
        [orgId],
      );
      // Counted while the writer is open: its change is not visible yet, and must not be lost later.
      await expectExact(orgId, headers, list);
      const before = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?${defined(list[0], 'list[0]')[0]}`,
        headers,
      });
      await writer.query('COMMIT');
      await expectExact(orgId, headers, list);
      const after = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?${defined(list[0], 'list[0]')[0]}`,
        headers,
      });
      expect(after.json().pagination.total_count).toBe(before.json().pagination.total_count + 2);
    } finally {
      await writer.end();
    }
  });

  it('stays exact with batches and list requests running at the same time', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    await batch(
      headers,
      Array.from({ length: 40 }, (_, n) => body(n)),
    );
    await expectExact(orgId, headers, LISTS);
    const writes = Array.from({ length: 6 }, (_, round) =>
      batch(
        headers,
        Array.from({ length: 40 }, (_, n) =>
          body(n, {
            posted_rate: 900 + ((n * 37 + round * 101) % 2000),
            stops: [
              stopPayload('Pickup', { city: (n + round) % 3 ? 'Reno' : 'Elko', state: 'NV' }),
              stopPayload('Dropoff'),
            ],
          }),
        ).filter((_, n) => (n + round) % 2 === 0),
      ),
    );
    const reads = Array.from({ length: 12 }, (_, i) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/loads?${defined(LISTS[i % LISTS.length], 'LISTS[i % LISTS.length]')[0]}`,
        headers,
      }),
    );
    await Promise.all([...writes, ...reads]);
    await expectExact(orgId, headers, LISTS);
  });

  it('brings a kept count up to date from the loads written since, without counting the list again', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    const list: [string, string][] = [defined(LISTS[1], 'LISTS[1]')];
    await expectExact(orgId, headers, list);
    await batch(headers, [
      body(3, { stops: [stopPayload('Pickup', { city: 'Carson' }), stopPayload('Dropoff')] }),
    ]);
    const sent = await statementsSentDuring(t, () => expectExact(orgId, headers, list));
    expect(sent.some(isCountUpdate)).toBe(true);
    expect(sent.some(isFreshCount)).toBe(false);
  });

  it('runs the statements of a kept list as prepared statements, one name per text, and a fresh count unnamed', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    const url = '/api/v1/loads?origin_city=reno&order_by=posted_rate&order_desc=true';
    const get = async () => {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ data: { id: string }[]; pagination: { total_count: number } }>();
    };
    const first = await get();
    // A text is named on its third use: two more requests bring every statement of a kept list there.
    await get();
    await get();
    // A load outside the list changes: the kept count is brought up to date, the kept page stays.
    await batch(headers, [body(8, { posted_rate: 4321 })]);
    const requests = [await statementConfigsDuring(t, async () => void (await get()))];
    requests.push(await statementConfigsDuring(t, async () => void (await get())));
    for (const sent of requests) {
      const unnamed = sent.filter((s) => !s.name).map((s) => s.text);
      // The stored-values lookup, the count update, the page check and the rows of the kept page.
      expect(sent.filter((s) => s.name && s.text.includes('"load_filter_values"'))).toHaveLength(1);
      expect(sent.filter((s) => s.name && isCountUpdate(s.text))).toHaveLength(1);
      expect(sent.filter((s) => s.name && s.text.includes('now_in AS'))).toHaveLength(1);
      expect(sent.filter((s) => s.name && s.text.includes('"loads"."id" = ANY('))).toHaveLength(1);
      expect(unnamed.filter((q) => isFreshCount(q) || findsPage(q))).toEqual([]);
    }
    // The same text is sent under the same name every time.
    const names = new Map<string, Set<string>>();
    for (const { text, name } of requests.flat().filter((s) => s.name)) {
      names.set(text, (names.get(text) ?? new Set()).add(defined(name, 'name')));
    }
    expect([...names.values()].every((n) => n.size === 1)).toBe(true);
    expect(new Set([...names.values()].flatMap((n) => [...n])).size).toBe(names.size);
    const again = await get();
    expect(again.pagination.total_count).toBe(first.pagination.total_count);
    // A fresh count of a list never seen runs unnamed: its plan depends on the values.
    const fresh = await statementConfigsDuring(t, async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads?origin_city=boise', headers });
      expect(res.statusCode, res.body).toBe(200);
    });
    expect(fresh.filter((s) => isFreshCount(s.text)).map((s) => s.name)).toEqual([undefined]);
    expect(again.data.map((l) => l.id)).toEqual(first.data.map((l) => l.id));
    await expectExact(orgId, headers, [['origin_city=reno', `origin_city ILIKE '%reno%'`]]);
  });

  it('counts a cheap list afresh when more loads changed since its kept count than re-testing them is worth', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    const list: [string, string][] = [defined(LISTS[1], 'LISTS[1]')];
    await expectExact(orgId, headers, list);
    // 300 loads written since (more than the 200 a count this quick is brought up to date over).
    await batch(
      headers,
      Array.from({ length: 300 }, (_, n) => body(100 + n)),
    );
    const sent = await statementsSentDuring(t, () => expectExact(orgId, headers, list));
    expect(sent.some(isCountUpdate)).toBe(true);
    expect(sent.some(isFreshCount)).toBe(true);
  });

  it('counts a list once when several requests for it arrive together, and each total is exact', async () => {
    const { orgId, headers } = await tenantWithLoads(20);
    const [query, where] = defined(LISTS[1], 'LISTS[1]');
    const { rows } = await t.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM loads WHERE organization_id = $1 AND ${where}`,
      [orgId],
    );
    let totals: number[] = [];
    const sent = await statementsSentDuring(t, async () => {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers }),
        ),
      );
      totals = answers.map((res) => {
        expect(res.statusCode, res.body).toBe(200);
        return res.json<{ pagination: { total_count: number } }>().pagination.total_count;
      });
    });
    expect(totals).toEqual(Array(6).fill(defined(rows[0], 'rows[0]').n));
    // One fresh count; the requests that waited for it brought its result up to date instead.
    expect(sent.filter(isFreshCount)).toHaveLength(1);
  });

  it('reads a page again by its ids while no load it could hold is written, and finds it afresh after one is', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    // The odd loads start in Reno, rated 900 + 50 n: E-9, E-7 and E-5 lead by rate.
    const page = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      const listed = z.object({ load_number: z.string(), posted_rate: z.number().nullable() });
      return bodyOf(res, z.object({ data: z.array(listed) })).data.map((l): [string, number | null] => [
        l.load_number,
        l.posted_rate,
      ]);
    };
    const byRate = 'origin_city=reno&order_by=posted_rate&order_desc=true&page_size=3';
    const pageOf = async (query: string) => {
      let rows: [string, number | null][] = [];
      const sent = await statementsSentDuring(t, async () => {
        rows = await page(query);
      });
      return { rows, found: sent.some(findsPage) };
    };
    expect(await pageOf(byRate)).toEqual({
      rows: [
        ['E-9', 1350],
        ['E-7', 1250],
        ['E-5', 1150],
      ],
      found: true,
    });
    // Nothing written: the same ids, read as they are.
    expect((await pageOf(byRate)).found).toBe(false);
    // A load outside the list (E-4 is in Boise) changes: the page still holds.
    await batch(headers, [body(4, { posted_rate: 5000 })]);
    expect(await pageOf(byRate)).toEqual({
      rows: [
        ['E-9', 1350],
        ['E-7', 1250],
        ['E-5', 1150],
      ],
      found: false,
    });
    // A load of the list moves to its top; then another leaves it.
    await batch(headers, [body(1, { posted_rate: 9000 })]);
    expect(await pageOf(byRate)).toEqual({
      rows: [
        ['E-1', 9000],
        ['E-9', 1350],
        ['E-7', 1250],
      ],
      found: true,
    });
    await batch(headers, [
      body(7, { stops: [stopPayload('Pickup', { city: 'Carson' }), stopPayload('Dropoff')] }),
    ]);
    expect(await pageOf(byRate)).toEqual({
      rows: [
        ['E-1', 9000],
        ['E-9', 1350],
        ['E-5', 1150],
      ],
      found: true,
    });
    // A later page of the whole organization in creation order: a changed rate moves no load in
    // it, a new load shifts every page by one.
    const deep = 'page=2&page_size=3&order_by=created_at&order_desc=false';
    const second = await pageOf(deep);
    expect(second.rows.map((r) => r[0])).toEqual(['E-3', 'E-4', 'E-5']);
    await batch(headers, [body(4, { posted_rate: 4000 }), body(8, { posted_rate: 4100 })]);
    expect(await pageOf(deep)).toEqual({
      rows: [
        ['E-3', 1050],
        ['E-4', 4000],
        ['E-5', 1150],
      ],
      found: false,
    });
    await t.database.pool.query(
      `UPDATE loads SET created_at = created_at - interval '1 day' WHERE organization_id = $1 AND load_number = 'E-9'`,
      [orgId],
    );
    const shifted = await pageOf(deep);
    expect(shifted.found).toBe(true);
    expect(shifted.rows.map((r) => r[0])).toEqual(['E-2', 'E-3', 'E-4']);

    // A list with a tab also follows the tab's table: a new pending offer puts E-3 in it.
    const offered = 'tab=active_offers&origin_city=reno&order_by=posted_rate&order_desc=true';
    const { rows: ids } = await t.database.pool.query<{ id: string; load_number: string }>(
      `SELECT id, load_number FROM loads WHERE organization_id = $1 AND load_number IN ('E-3', 'E-9')`,
      [orgId],
    );
    await addOffer(
      t,
      orgId,
      defined(
        ids.find((r) => r.load_number === 'E-9'),
        "ids.find((r) => r.load_number === 'E-9')",
      ).id,
      { status: 'pending' },
    );
    expect(await pageOf(offered)).toEqual({ rows: [['E-9', 1350]], found: true });
    expect((await pageOf(offered)).found).toBe(false);
    await addOffer(
      t,
      orgId,
      defined(
        ids.find((r) => r.load_number === 'E-3'),
        "ids.find((r) => r.load_number === 'E-3')",
      ).id,
      { status: 'pending' },
    );
    expect(await pageOf(offered)).toEqual({
      rows: [
        ['E-9', 1350],
        ['E-3', 1050],
      ],
      found: true,
    });

    // Sorted by load_number: a load of the page re-rated keeps its place (the page holds); one
    // renumbered moves.
    const byNumber = 'order_by=load_number&order_desc=false&page_size=3';
    expect((await pageOf(byNumber)).rows.map((r) => r[0])).toEqual(['E-0', 'E-1', 'E-2']);
    await batch(headers, [body(1, { posted_rate: 7777 })]);
    expect(await pageOf(byNumber)).toEqual({
      rows: [
        ['E-0', 900],
        ['E-1', 7777],
        ['E-2', 1000],
      ],
      found: false,
    });
    await t.database.pool.query(
      `UPDATE loads SET load_number = 'E-00' WHERE organization_id = $1 AND load_number = 'E-2'`,
      [orgId],
    );
    expect(await pageOf(byNumber)).toEqual({
      rows: [
        ['E-0', 900],
        ['E-00', 1000],
        ['E-1', 7777],
      ],
      found: true,
    });
  });

  it('brings the count of a tab with a filter up to date while the tab table is unchanged, and counts afresh after it changes', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    const { rows } = await t.database.pool.query<{ id: string; load_number: string }>(
      `SELECT id, load_number FROM loads WHERE organization_id = $1`,
      [orgId],
    );
    const idOf = (n: number) =>
      defined(
        rows.find((r) => r.load_number === `E-${n}`),
        'rows.find((r) => r.load_number === E-{n})',
      ).id;
    // Odd loads start in Reno: E-1 and E-3 are in the list, E-2 has an offer but is in Boise.
    for (const n of [1, 2, 3]) await addOffer(t, orgId, idOf(n), { status: 'pending' });
    const list: [string, string][] = [
      [
        'tab=active_offers&origin_city=reno',
        `origin_city ILIKE '%reno%' AND EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'pending')`,
      ],
    ];
    await expectExact(orgId, headers, list);

    // Loads move in (E-2 to Reno) and out (E-3 to Carson); the offers stay as they were.
    await batch(headers, [
      body(2, { stops: [stopPayload('Pickup', { city: 'Reno', state: 'NV' }), stopPayload('Dropoff')] }),
      body(3, { stops: [stopPayload('Pickup', { city: 'Carson' }), stopPayload('Dropoff')] }),
    ]);
    const updated = await statementsSentDuring(t, () => expectExact(orgId, headers, list));
    expect(updated.some(isCountUpdate)).toBe(true);
    expect(updated.some(isFreshCount)).toBe(false);

    // A new pending offer changes the tab's table: the kept count no longer holds.
    await addOffer(t, orgId, idOf(5), { status: 'pending' });
    const offered = await statementsSentDuring(t, () => expectExact(orgId, headers, list));
    expect(offered.some(isFreshCount)).toBe(true);
  });

  it('keeps the booked and active_offers tabs exact, alone and with filters, while offers are accepted and un-accepted beside load writes', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    await batch(
      headers,
      Array.from({ length: 16 }, (_, n) => body(n)),
    );
    const { rows } = await t.database.pool.query<{ id: string; load_number: string }>(
      `SELECT id, load_number FROM loads WHERE organization_id = $1 ORDER BY load_number`,
      [orgId],
    );
    const idOf = (n: number) =>
      defined(
        rows.find((r) => r.load_number === `E-${n}`),
        'rows.find((r) => r.load_number === E-{n})',
      ).id;
    const offerOn = async (n: number, amount: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/offers',
        headers,
        payload: { load_id: idOf(n), offer_amount: amount },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const setStatus = (id: string, status: string) =>
      t.app.inject({ method: 'PATCH', url: `/api/v1/offers/${id}`, headers, payload: { status } });
    // Two pending offers on each load: the first is the one accepted.
    const first: string[] = [];
    for (let n = 0; n < 16; n++) {
      first.push(await offerOn(n, 1000 + n));
      await offerOn(n, 2000 + n);
    }
    const booked = `EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'accepted')`;
    const pending = `EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'pending')`;
    const lists: [string, string][] = [
      ['tab=booked', booked],
      ['tab=active_offers', `${pending} AND NOT ${booked}`],
      ['tab=booked&origin_city=reno', `origin_city ILIKE '%reno%' AND ${booked}`],
      ['tab=active_offers&posted_rate_min=1300', `posted_rate >= 1300 AND ${pending} AND NOT ${booked}`],
      ['tab=booked&status=Unassigned', `load_status = 'Unassigned' AND ${booked}`],
    ];
    await expectExact(orgId, headers, lists);

    // Accepts and un-accepts, load rewrites moving loads in and out of the filters, and reads of the
    // lists, all at once.
    for (let round = 0; round < 3; round++) {
      const moves = first.map((id, n) =>
        setStatus(id, (n + round) % 3 === 0 ? 'rejected' : (n + round) % 3 === 1 ? 'accepted' : 'pending'),
      );
      const write = batch(
        headers,
        Array.from({ length: 16 }, (_, n) =>
          body(n, {
            posted_rate: 900 + ((n * 37 + round * 101) % 800),
            tms_status: (n + round) % 4 ? 'open' : 'quoted',
            stops: [
              stopPayload('Pickup', { city: (n + round) % 3 ? 'Reno' : 'Elko', state: 'NV' }),
              stopPayload('Dropoff'),
            ],
          }),
        ),
      );
      const reads = lists.map(([q]) => t.app.inject({ method: 'GET', url: `/api/v1/loads?${q}`, headers }));
      const done = await Promise.all([...moves, write, ...reads]);
      for (const res of done) if (res) expect(res.statusCode, res.body).toBeLessThan(300);
      await expectExact(orgId, headers, lists);
      const stats = await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats', headers });
      const { rows: sqlTabs } = await t.database.pool.query<{ booked: number; active: number }>(
        `SELECT count(*) FILTER (WHERE ${booked})::int AS booked,
                count(*) FILTER (WHERE ${pending} AND NOT ${booked})::int AS active
         FROM loads WHERE organization_id = $1`,
        [orgId],
      );
      expect(stats.json().by_tab).toMatchObject({
        booked: defined(sqlTabs[0], 'sqlTabs[0]').booked,
        active_offers: defined(sqlTabs[0], 'sqlTabs[0]').active,
      });
    }

    // A kept count of the booked tab with a filter follows load writes from the change log while
    // no offer is written, and is counted afresh once one is accepted.
    const kept: [string, string][] = [defined(lists[2], 'lists[2]')];
    await expectExact(orgId, headers, kept);
    await batch(headers, [
      body(1, { stops: [stopPayload('Pickup', { city: 'Carson' }), stopPayload('Dropoff')] }),
    ]);
    const updated = await statementsSentDuring(t, () => expectExact(orgId, headers, kept));
    expect(updated.some(isCountUpdate)).toBe(true);
    expect(updated.some(isFreshCount)).toBe(false);
    const open = await t.database.pool.query<{ id: string }>(
      `SELECT o.id FROM offers o JOIN loads l ON l.id = o.load_id
       WHERE l.organization_id = $1 AND l.origin_city = 'Reno' AND o.offer_amount < 2000
         AND NOT EXISTS (SELECT 1 FROM offers a WHERE a.load_id = o.load_id AND a.status = 'accepted')
       LIMIT 1`,
      [orgId],
    );
    expect((await setStatus(defined(open.rows[0], 'open.rows[0]').id, 'accepted')).statusCode).toBe(200);
    const recounted = await statementsSentDuring(t, () => expectExact(orgId, headers, kept));
    expect(recounted.some(isFreshCount)).toBe(true);
  });

  it('counts a few-valued filter or a rep name, alone or with statuses, from load_facet_counts', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    await batch(
      headers,
      Array.from({ length: 12 }, (_, n) => body(n, { tms_sales_rep_names: n % 4 ? null : 'Kim; JANE' })),
    );
    const lists: [string, string][] = [
      ['tms_status=OPEN', `lower(tms_status) = 'open'`],
      ['mode=FTL,FTL', `mode = 'FTL'`],
      [
        'equipment_type=VAN&status=Unassigned,Delivered',
        `equipment_type = 'VAN' AND load_status IN ('Unassigned', 'Delivered')`,
      ],
      ['is_posted=false', 'NOT is_posted'],
      ['carrier_rep_name=jane', `rep_names && '{jane}'`],
      ['carrier_rep_name=KIM&status=Unassigned', `rep_names && '{kim}' AND load_status = 'Unassigned'`],
    ];
    const sent = await statementsSentDuring(t, async () => {
      await expectExact(orgId, headers, lists);
      // Writes move the counters in the same transaction.
      await batch(
        headers,
        Array.from({ length: 12 }, (_, n) =>
          body(n, {
            tms_status: n % 3 ? 'open' : 'Delivered',
            is_posted: n % 5 === 0,
            carrier_rep_user_name: 'Kim',
          }),
        ),
      );
      await t.database.pool.query(
        `DELETE FROM loads WHERE organization_id = $1 AND load_number IN ('E-2', 'E-3')`,
        [orgId],
      );
      await expectExact(orgId, headers, lists);
    });
    expect(sent.filter((q) => q.includes('"load_facet_counts"')).length).toBe(2 * lists.length);
    expect(sent.filter((q) => isFreshCount(q) || isCountUpdate(q))).toEqual([]);
  });

  it('answers the stats of a whole organization, or of a few-valued filter, without reading its loads', async () => {
    const { orgId, headers } = await tenantWithLoads(12);
    await batch(headers, [
      body(1, { tms_status: 'Delivered' }),
      body(2, { tms_status: 'something unmapped' }),
      body(3, { mode: 'LTL' }),
    ]);
    const { rows } = await t.database.pool.query<{ id: string; load_number: string }>(
      `SELECT id, load_number FROM loads WHERE organization_id = $1`,
      [orgId],
    );
    for (const n of [1, 4, 4]) {
      await addOffer(
        t,
        orgId,
        defined(
          rows.find((r) => r.load_number === `E-${n}`),
          'rows.find((r) => r.load_number === E-{n})',
        ).id,
        { status: 'pending' },
      );
    }
    const sqlStats = async (where: string) => {
      const counts = await t.database.pool.query<{ s: string | null; n: number }>(
        `SELECT load_status AS s, count(*)::int AS n FROM loads WHERE organization_id = $1 AND ${where} GROUP BY 1`,
        [orgId],
      );
      const offered = await t.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM loads WHERE organization_id = $1 AND ${where}
           AND EXISTS (SELECT 1 FROM offers o WHERE o.load_id = loads.id AND o.status = 'pending')`,
        [orgId],
      );
      return {
        total: counts.rows.reduce((sum, r) => sum + r.n, 0),
        byStatus: Object.fromEntries(counts.rows.map((r) => [r.s ?? 'none', r.n])),
        offered: defined(offered.rows[0], 'offered.rows[0]').n,
      };
    };
    for (const [query, where] of [
      ['', 'true'],
      ['mode=FTL', `mode = 'FTL'`],
    ] as const) {
      let body: Record<string, unknown> = {};
      const sent = await statementsSentDuring(t, async () => {
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads/stats?${query}`, headers });
        expect(res.statusCode, res.body).toBe(200);
        body = res.json();
      });
      const expected = await sqlStats(where);
      expect(body.total_count, query).toBe(expected.total);
      expect(body.by_status, query).toMatchObject(expected.byStatus);
      expect(body.by_tab, query).toMatchObject({ active_offers: expected.offered, all: expected.total });
      // By status from the counters; a filter still counts its tabs over its own loads.
      expect(
        sent.filter((q) => /group by "loads"\."load_status"/i.test(q)),
        query,
      ).toEqual([]);
      if (query === '')
        expect(
          sent.filter((q) => /from "loads"/i.test(q)),
          query,
        ).toEqual([]);
    }
    // A tab's count is kept until its table is written: a new pending offer shows at once.
    await addOffer(
      t,
      orgId,
      defined(
        rows.find((r) => r.load_number === 'E-7'),
        "rows.find((r) => r.load_number === 'E-7')",
      ).id,
      { status: 'pending' },
    );
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats', headers });
    expect(after.json().by_tab.active_offers).toBe((await sqlStats('true')).offered);
  });

  it('counts afresh once the history behind a kept count is purged', async () => {
    const { orgId, headers } = await tenantWithLoads(10);
    await expectExact(orgId, headers, LISTS);
    await batch(
      headers,
      Array.from({ length: 10 }, (_, n) => body(n, { posted_rate: 1111 })),
    );
    const horizon = async () =>
      defined(
        (
          await t.database.pool.query<{ x: string }>(
            'SELECT snapshot_xmin::text AS x FROM load_changes_horizon',
          )
        ).rows[0],
        "( await t.database.pool.query<{ x: string }>( 'SELECT snapshot_xmin::text AS x FROM load_changes_horizon', ) ).rows[0]",
      ).x;
    const before = BigInt(await horizon());
    await t.database.pool.query(`SELECT load_changes_purge(interval '0 seconds')`);
    // The horizon moved up to the oldest transaction still running anywhere on the server, and
    // nothing below it is left.
    expect(BigInt(await horizon())).toBeGreaterThanOrEqual(before);
    const { rows } = await t.database.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM load_changes WHERE xid < (SELECT snapshot_xmin FROM load_changes_horizon)',
    );
    expect(defined(rows[0], 'rows[0]').n).toBe(0);
    await expectExact(orgId, headers, LISTS);
    await batch(
      headers,
      Array.from({ length: 10 }, (_, n) => body(n, { posted_rate: 1500 + n })),
    );
    await expectExact(orgId, headers, LISTS);
  });
});
