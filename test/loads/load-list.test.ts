import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import {
  addCall,
  addEscalation,
  addNotification,
  addOffer,
  addOutreach,
  addVerification,
  createLoad,
  stopPayload,
} from '../helpers/load-factories.js';

const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** Four loads with distinct values for every filter, created one after the other. */
async function seedFixture(t: TestApp, headers: Record<string, string>) {
  const ids: Record<string, string> = {};
  ids.L1 = await createLoad(t, headers, {
    load_number: 'L1',
    tms_load_id: 'TMS-1',
    external_id: 'EXT-1',
    tms_status: 'Open',
    equipment_type: 'VAN',
    mode: 'FTL',
    customer_name: 'Acme Foods',
    carrier_name: 'Swift Haul',
    carrier_rep_user_name: 'Jane Doe',
    distance: 900,
    posted_rate: 2000,
    is_posted: true,
    customer_rate: 2600,
    margin: 600,
    stops: [
      stopPayload('Pickup', { city: 'Chicago', state: 'IL', date: '2026-03-02T14:00:00Z' }),
      stopPayload('Dropoff', { city: 'Dallas', state: 'TX', date: '2026-03-04T18:00:00Z' }),
    ],
  });
  ids.L2 = await createLoad(t, headers, {
    load_number: 'L2',
    tms_status: 'Booked',
    equipment_type: 'REEFER',
    mode: 'LTL',
    customer_name: 'Beta Co',
    tms_sales_rep_names: 'Bob Smith, Jane Doe',
    distance: 400,
    posted_rate: 1200,
    is_posted: false,
    stops: [
      stopPayload('Pickup', { city: 'Memphis', state: 'TN', date: '2026-03-05T00:00:00Z' }),
      stopPayload('Dropoff', { city: 'Atlanta', state: 'GA', date: '2026-03-06T09:00:00Z' }),
    ],
  });
  ids.L3 = await createLoad(t, headers, {
    load_number: 'L3',
    tms_status: 'in transit',
    equipment_type: 'FLATBED',
    mode: 'FTL',
    customer_name: 'acme foods',
    carrier_rep_user_name: 'Carl Reyes',
    distance: 800,
    posted_rate: 3000,
    stops: [
      stopPayload('Pickup', { city: 'Denver', state: 'CO', date: '2026-03-10T23:30:00Z' }),
      stopPayload('Dropoff', { city: 'Tulsa', state: 'OK', date: '2026-03-11T09:00:00Z' }),
      stopPayload('Dropoff', { city: 'Phoenix', state: 'AZ', date: '2026-03-12T09:00:00Z' }),
    ],
  });
  ids.L4 = await createLoad(t, headers, {
    load_number: 'L4',
    tms_status: 'Weird',
    equipment_type: 'VAN',
    mode: 'PTL',
    customer_name: 'Gamma',
    stops: [
      stopPayload('Pickup', { city: 'Dallas', state: 'TX', date: '2026-04-01T10:00:00Z' }),
      stopPayload('Dropoff', { city: 'Chicago', state: 'IL', date: '2026-04-03T10:00:00Z' }),
    ],
  });
  return ids;
}

describe('GET /loads', () => {
  const t = useTestApp();
  let orgId: string;
  let owner: Record<string, string>;
  let headers: Record<string, string>;
  let ids: Record<string, string>;

  beforeAll(async () => {
    const tenant = await createTenant(t);
    orgId = tenant.orgId;
    owner = tenant.user.headers;
    headers = (await createApiKey(t, owner)).headers;
    ids = await seedFixture(t, headers);
  });

  const list = (query: string, as = headers) =>
    t.app.inject({ method: 'GET', url: `/api/v1/loads${query ? `?${query}` : ''}`, headers: as });

  async function numbers(query: string): Promise<string[]> {
    const res = await list(query);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    const body = res.json();
    expect(body.pagination.total_count, query).toBe(body.data.length);
    return body.data.map((l: { load_number: string }) => l.load_number).sort();
  }

  it('lists the newest first with the pagination envelope, 10 per page by default', async () => {
    const res = await list('');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((l: { load_number: string }) => l.load_number)).toEqual([
      'L4',
      'L3',
      'L2',
      'L1',
    ]);
    expect(res.json().pagination).toEqual({
      page: 1,
      page_size: 10,
      total_count: 4,
      total_pages: 1,
      has_next: false,
      has_prev: false,
    });
  });

  const single: [string, string[]][] = [
    ['search=memphis', ['L2']],
    ['search=SWIFT', ['L1']],
    ['search=ext-1', ['L1']],
    ['search=tms-1', ['L1']],
    ['search=reefer', ['L2']],
    ['search=Acme', ['L1', 'L3']],
    ['search=phoenix', ['L3']],
    ['search=tulsa', []],
    ['search=co', ['L2', 'L3']],
    ['search=L4', ['L4']],
    ['search=100%25', []],
    ['status=Unassigned', ['L1']],
    ['status=En%20Route', ['L3']],
    ['tms_status=BOOKED', ['L2']],
    ['tms_status=weird', ['L4']],
    ['is_posted=true', ['L1']],
    ['is_posted=false', ['L2', 'L3', 'L4']],
    ['mode=FTL', ['L1', 'L3']],
    ['equipment_type=VAN', ['L1', 'L4']],
    ['customer_name=ACME%20FOODS', ['L1', 'L3']],
    ['carrier_rep_name=jane%20doe', ['L1', 'L2']],
    ['carrier_rep_name=Bob%20Smith', ['L2']],
    ['origin_city=emph', ['L2']],
    ['destination_city=CHIC', ['L4']],
    ['destination_city=tulsa', []],
    ['pickup_date_from=2026-03-05&pickup_date_to=2026-03-10', ['L2', 'L3']],
    ['pickup_date_to=2026-03-02', ['L1']],
    ['delivery_date_from=2026-03-06', ['L2', 'L3', 'L4']],
    ['delivery_date_to=2026-03-04', ['L1']],
    [`created_at_from=${today}&created_at_to=${today}`, ['L1', 'L2', 'L3', 'L4']],
    [`created_at_to=${yesterday}`, []],
    [`updated_at_from=${today}`, ['L1', 'L2', 'L3', 'L4']],
    [`updated_at_to=${yesterday}`, []],
    [`last_posted_at_from=${today}&last_posted_at_to=${today}`, ['L1']],
    [`last_posted_at_to=${yesterday}`, []],
    ['distance_min=800', ['L1', 'L3']],
    ['distance_max=500', ['L2']],
    ['posted_rate_min=1500&posted_rate_max=2500', ['L1']],
    ['posted_rate_min=3000', ['L3']],
  ];
  it.each(single)('filters on %s alone', async (query, expected) => {
    expect(await numbers(query)).toEqual(expected);
  });

  const combined: [string, string[]][] = [
    ['status=Unassigned,Dispatched&equipment_type=REEFER', ['L2']],
    ['search=acme&mode=FTL&distance_min=850', ['L1']],
    ['customer_name=acme%20foods&pickup_date_from=2026-03-03', ['L3']],
    ['carrier_rep_name=Jane%20Doe&is_posted=false', ['L2']],
    ['equipment_type=VAN&tms_status=open', ['L1']],
    ['origin_city=dallas&equipment_type=VAN', ['L4']],
    ['status=Dispatched&search=chicago', []],
    ['posted_rate_max=2500&delivery_date_to=2026-03-05', ['L1']],
  ];
  it.each(combined)('combines filters: %s', async (query, expected) => {
    expect(await numbers(query)).toEqual(expected);
  });

  it('reads repeated and comma-separated list parameters alike', async () => {
    const expected = ['L1', 'L2'];
    expect(await numbers('status=Unassigned&status=Dispatched')).toEqual(expected);
    expect(await numbers('status=Unassigned,Dispatched')).toEqual(expected);
    expect(await numbers('status=Unassigned,%20Dispatched&status=Dispatched')).toEqual(expected);
    expect(await numbers('equipment_type=REEFER&equipment_type=FLATBED')).toEqual(['L2', 'L3']);
    expect(await numbers('equipment_type=REEFER,FLATBED')).toEqual(['L2', 'L3']);
    expect(await numbers('carrier_rep_name=carl%20reyes&carrier_rep_name=bob%20smith')).toEqual(['L2', 'L3']);
    expect(await numbers('carrier_rep_name=carl%20reyes,bob%20smith')).toEqual(['L2', 'L3']);
    expect(await numbers('mode=LTL,PTL')).toEqual(['L2', 'L4']);
    expect(await numbers('tms_status=open,WEIRD')).toEqual(['L1', 'L4']);
    expect(await numbers('customer_name=Gamma&customer_name=beta%20co')).toEqual(['L2', 'L4']);
  });

  const sorts: [string, string[]][] = [
    ['created_at', ['L1', 'L2', 'L3', 'L4']],
    ['load_number', ['L1', 'L2', 'L3', 'L4']],
    ['pickup_date', ['L1', 'L2', 'L3', 'L4']],
    ['delivery_date', ['L1', 'L2', 'L3', 'L4']],
    ['posted_rate', ['L2', 'L1', 'L3', 'L4']],
    ['distance', ['L2', 'L3', 'L1', 'L4']],
  ];
  it.each(sorts)('sorts by %s both ways, nulls last', async (field, ascending) => {
    const order = async (desc: boolean) =>
      (await list(`order_by=${field}&order_desc=${desc}`))
        .json()
        .data.map((l: { load_number: string }) => l.load_number);
    expect(await order(false)).toEqual(ascending);
    const nullsLast = field === 'posted_rate' || field === 'distance';
    const descending = nullsLast ? [...ascending.slice(0, 3).reverse(), 'L4'] : [...ascending].reverse();
    expect(await order(true)).toEqual(descending);
  });

  it('sorts by last_posted_at with unposted loads last both ways', async () => {
    const order = async (desc: boolean) =>
      (await list(`order_by=last_posted_at&order_desc=${desc}`))
        .json()
        .data.map((l: { load_number: string }) => l.load_number);
    expect(await order(false)).toEqual(['L1', 'L2', 'L3', 'L4']);
    expect(await order(true)).toEqual(['L1', 'L4', 'L3', 'L2']);
  });

  it('sorts by updated_at both ways', async () => {
    const other = await createTenant(t);
    const key = (await createApiKey(t, other.user.headers)).headers;
    const first = await createLoad(t, key, { load_number: 'U1' });
    const second = await createLoad(t, key, { load_number: 'U2' });
    // Written two minutes and one minute ago (rather than a few milliseconds apart).
    await t.database.db.execute(sql`UPDATE loads SET updated_at = now() - CASE WHEN id = ${first}
      THEN interval '2 minutes' ELSE interval '1 minute' END WHERE id IN (${first}, ${second})`);
    const order = async (desc: boolean) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads?order_by=updated_at&order_desc=${desc}`,
          headers: key,
        })
      )
        .json()
        .data.map((l: { id: string }) => l.id);
    expect(await order(true)).toEqual([second, first]);
    // A change to U1 makes it the most recently updated.
    const updated = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers: key,
      payload: { load_number: 'U1', equipment_type: 'REEFER' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await order(true)).toEqual([first, second]);
    expect(await order(false)).toEqual([second, first]);
  });

  it('pages: the last page, a page past the end, page_size 100', async () => {
    const last = (await list('page=2&page_size=3')).json();
    expect(last.data.map((l: { load_number: string }) => l.load_number)).toEqual(['L1']);
    expect(last.pagination).toEqual({
      page: 2,
      page_size: 3,
      total_count: 4,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    const first = (await list('page=1&page_size=3')).json().pagination;
    expect(first).toMatchObject({ has_next: true, has_prev: false, total_pages: 2 });
    const past = (await list('page=3&page_size=3')).json();
    expect(past.data).toEqual([]);
    expect(past.pagination).toEqual({
      page: 3,
      page_size: 3,
      total_count: 4,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    const hundred = await list('page_size=100');
    expect(hundred.statusCode).toBe(200);
    expect(hundred.json().pagination.page_size).toBe(100);
    const filtered = (await list('status=Unassigned,Dispatched&page=2&page_size=1')).json();
    expect(filtered.data.map((l: { load_number: string }) => l.load_number)).toEqual(['L1']);
    expect(filtered.pagination).toMatchObject({ total_count: 2, total_pages: 2 });
  });

  const invalid: [string, string][] = [
    ['page_size=101', 'page_size'],
    ['page_size=0', 'page_size'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['status=Bogus', 'status'],
    ['status=Unassigned,Bogus', 'status'],
    ['status=unassigned', 'status'],
    ['mode=AIR', 'mode'],
    ['equipment_type=SPACESHIP', 'equipment_type'],
    ['pickup_date_from=2026-02-30', 'pickup_date_from'],
    ['pickup_date_to=03/01/2026', 'pickup_date_to'],
    ['created_at_from=yesterday', 'created_at_from'],
    ['last_posted_at_to=2026-1-1', 'last_posted_at_to'],
    ['order_by=weight', 'order_by'],
    ['order_by=search_text', 'order_by'],
    ['order_desc=maybe', 'order_desc'],
    ['is_posted=yes', 'is_posted'],
    ['tab=everything', 'tab'],
    ['distance_min=far', 'distance_min'],
    ['posted_rate_max=1.5', 'posted_rate_max'],
  ];
  it.each(invalid)('refuses %s with 422 naming %s', async (query, param) => {
    const res = await list(query);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_error', param });
    expect(res.json().detail[0].loc).toEqual(['query', param]);
  });

  it('hides customer_rate and margin from a MEMBER, and shows them to API keys, OWNERs and ADMINs', async () => {
    const member = await createUser(t, orgId, 'MEMBER');
    const admin = await createUser(t, orgId, 'ADMIN');
    const rates = async (as: Record<string, string>) => {
      const page = (await list('status=Unassigned', as)).json().data[0];
      const one = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${ids.L1}`, headers: as })).json();
      return [page.customer_rate, page.margin, one.customer_rate, one.margin];
    };
    expect(await rates(member.headers)).toEqual([null, null, null, null]);
    expect(await rates(headers)).toEqual([2600, 600, 2600, 600]);
    expect(await rates(owner)).toEqual([2600, 600, 2600, 600]);
    expect(await rates(admin.headers)).toEqual([2600, 600, 2600, 600]);
  });

  it("never shows another organization's loads, and answers 404 for their ids", async () => {
    const other = await createTenant(t);
    const otherKey = (await createApiKey(t, other.user.headers)).headers;
    await createLoad(t, otherKey, { load_number: 'L1', customer_name: 'Acme Foods' });
    const theirs = await t.app.inject({ method: 'GET', url: '/api/v1/loads?search=acme', headers: otherKey });
    expect(theirs.json().data.map((l: { load_number: string }) => l.load_number)).toEqual(['L1']);
    expect(theirs.json().pagination.total_count).toBe(1);
    expect((await list('')).json().pagination.total_count).toBe(4);
    for (const path of ['', '/calls', '/verifications', '/escalations']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads/${ids.L1}${path}`,
        headers: otherKey,
      });
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    }
  });

  it('refuses requests without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads' });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /loads tabs, aggregates and related records', () => {
  const t = useTestApp();
  let orgId: string;
  let headers: Record<string, string>;
  let ids: Record<string, string>;

  beforeAll(async () => {
    const tenant = await createTenant(t);
    orgId = tenant.orgId;
    headers = (await createApiKey(t, tenant.user.headers)).headers;
    ids = await seedFixture(t, headers);
    await addOffer(t, orgId, defined(ids.L1, 'ids.L1'), {
      status: 'pending',
      carrierId: 'car_a',
      amount: 1000,
    });
    await addOffer(t, orgId, defined(ids.L1, 'ids.L1'), {
      status: 'rejected',
      carrierId: 'car_a',
      amount: 1200,
    });
    await addOffer(t, orgId, defined(ids.L1, 'ids.L1'), {
      status: 'rejected',
      carrierId: 'car_b',
      amount: 900,
    });
    await addOffer(t, orgId, defined(ids.L2, 'ids.L2'), { status: 'accepted' });
    await addCall(t, orgId, defined(ids.L3, 'ids.L3'));
    await addOutreach(t, orgId, defined(ids.L2, 'ids.L2'), 'active');
    await addOutreach(t, orgId, defined(ids.L3, 'ids.L3'), 'pending');
    await addOutreach(t, orgId, defined(ids.L1, 'ids.L1'), 'completed');
    await addNotification(t, orgId, defined(ids.L4, 'ids.L4'), false);
    await addNotification(t, orgId, defined(ids.L1, 'ids.L1'), true);
    await addVerification(t, orgId, defined(ids.L3, 'ids.L3'), 'BLOCKED');
    await addVerification(t, orgId, defined(ids.L1, 'ids.L1'), 'PASSED');
  });

  const numbers = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pagination.total_count).toBe(res.json().data.length);
    return res
      .json()
      .data.map((l: { load_number: string }) => l.load_number)
      .sort();
  };

  const tabs: [string, string[]][] = [
    ['all', ['L1', 'L2', 'L3', 'L4']],
    ['active_offers', ['L1']],
    ['all_calls', ['L3']],
    ['active_outreaches', ['L2', 'L3']],
    ['active_notifications', ['L4']],
    ['failed_verifications', ['L3']],
    ['active_escalations', []],
    ['booked', ['L2']],
  ];
  it.each(tabs)('tab=%s keeps the loads with such a record', async (tab, expected) => {
    expect(await numbers(`tab=${tab}`)).toEqual(expected);
  });

  it('applies a tab on top of the other filters', async () => {
    expect(await numbers('tab=active_outreaches&equipment_type=FLATBED')).toEqual(['L3']);
    expect(await numbers('tab=active_outreaches&status=Unassigned')).toEqual([]);
  });

  it('computes offer_count over unique carriers, the offer range and active escalations', async () => {
    const other = await createTenant(t);
    const key = (await createApiKey(t, other.user.headers)).headers;
    const id = await createLoad(t, key, {});
    await addEscalation(t, other.orgId, id, 'ACTIVE');
    await addEscalation(t, other.orgId, id, 'RESPONDED');
    const one = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: key })).json();
    expect(one.active_escalation_count).toBe(1);
    const tab = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads?tab=active_escalations',
      headers: key,
    });
    expect(tab.json().data.map((l: { id: string }) => l.id)).toEqual([id]);

    const l1 = (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${ids.L1}`, headers })).json();
    expect(l1).toMatchObject({
      offer_count: 2,
      max_offer_amount: 1200,
      min_offer_amount: 900,
      active_escalation_count: 0,
    });
    const page = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/loads?order_by=load_number&order_desc=false',
        headers,
      })
    ).json();
    expect(page.data.map((l: { offer_count: number }) => l.offer_count)).toEqual([2, 1, 0, 0]);
    expect(page.data[3]).toMatchObject({ max_offer_amount: null, min_offer_amount: null });
    // Each item carries its booking: L2's accepted offer, null on the others.
    expect(
      page.data.map((l: { booked_offer: { booked_by: string } | null }) => l.booked_offer?.booked_by ?? null),
    ).toEqual([null, 'user', null, null]);
    expect(page.data[1].booked_offer).toMatchObject({
      carrier_id: expect.stringMatching(/^car_/),
      carrier_name: expect.stringMatching(/^Carrier car_/),
      carrier_mc_number: null,
      amount: 1500,
      booked_at: expect.stringMatching(/Z$/),
    });
  });

  it('GET /loads/{id}/calls lists the calls newest first as a plain list', async () => {
    const other = await createTenant(t);
    const key = (await createApiKey(t, other.user.headers)).headers;
    const id = await createLoad(t, key, {});
    const older = await addCall(t, other.orgId, id, new Date(Date.now() - 2 * 3600_000));
    const newer = await addCall(t, other.orgId, id, new Date(Date.now() - 3600_000));
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}/calls`, headers: key });
    expect(res.statusCode).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    expect(res.json().map((c: { id: string }) => c.id)).toEqual([newer, older]);
    expect(res.json()[0]).toMatchObject({
      load_id: id,
      status: 'COMPLETED',
      call_direction: 'OUTBOUND',
      organization_id: other.orgId,
    });
    const none = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${ids.L1}/calls`, headers });
    expect(none.json()).toEqual([]);
  });

  it("GET /loads/{id}/verifications and /escalations list the load's records", async () => {
    const v = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${ids.L3}/verifications`, headers })
    ).json();
    expect(v).toEqual([
      {
        id: expect.stringMatching(/^ver_/),
        load_id: ids.L3,
        carrier_id: expect.stringMatching(/^car_/),
        source: 'call',
        status: 'BLOCKED',
        reasons: ['Authority not active'],
        created_at: expect.any(String),
      },
    ]);
    const e = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${ids.L3}/escalations`, headers });
    expect(e.statusCode).toBe(200);
    expect(e.json()).toEqual([]);
  });

  it('GET /loads/stats counts per status and per tab under the same filters', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats', headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      total_count: 4,
      by_status: {
        Created: 0,
        Unassigned: 1,
        'Quotes Received': 0,
        Dispatched: 1,
        'En Route': 1,
        Delivered: 0,
        Cancelled: 0,
        Exception: 0,
        none: 1,
      },
      by_tab: {
        all: 4,
        active_notifications: 1,
        active_outreaches: 2,
        all_calls: 1,
        failed_verifications: 1,
        active_escalations: 0,
        active_offers: 1,
        booked: 1,
      },
    });
    const filtered = (
      await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats?mode=FTL', headers })
    ).json();
    // L2, the booked load, is LTL: a filter counts the booked tab over its own loads.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/loads/stats?mode=LTL', headers })).json().by_tab,
    ).toMatchObject({ all: 1, booked: 1, active_offers: 0 });
    expect(filtered.total_count).toBe(2);
    expect(filtered.by_tab).toMatchObject({
      all: 2,
      active_offers: 1,
      all_calls: 1,
      active_outreaches: 1,
      booked: 0,
    });
  });
});
