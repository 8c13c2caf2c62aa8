import { describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad, loadPayload, stopPayload } from '../helpers/load-factories.js';

async function keyedTenant(t: TestApp) {
  const tenant = await createTenant(t);
  const key = await createApiKey(t, tenant.user.headers);
  return { ...tenant, headers: key.headers };
}

describe('POST /loads', () => {
  const t = useTestApp();
  const post = (headers: Record<string, string>, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/loads',
      headers,
      payload,
    });
  const get = (headers: Record<string, string>, id: string) =>
    t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers });

  it('creates a load with its stops (201) and returns the upsert envelope', async () => {
    const { orgId, headers } = await keyedTenant(t);
    const res = await post(
      headers,
      loadPayload({
        load_number: 'L-100',
        tms_load_id: 'TMS-100',
        external_id: 'EXT-100',
        customer_rate: 2500.5,
        margin: 300.25,
        reference_numbers: [{ value: 'PO-9', type: 'PO' }],
        po_numbers: ['PO-9', 'PO-10'],
        special_instructions: ['Call ahead'],
        context: { lane: { origin: 'IL' }, hot: true },
        custom_fields: { priority: 2 },
        carrier_rep: { type: 'DISPATCHER', first_name: 'Ann', phone: '(415) 555-2671' },
        driver: { first_name: 'Dan', phone: 'not a phone' },
        stops: [
          {
            ...stopPayload('Pickup'),
            location: { city: 'Chicago', state: 'IL', latitude: 41.88, longitude: -87.63 },
            planned: { start: '2026-03-02T08:00:00-06:00', end: '2026-03-02T12:00:00-06:00' },
            contacts: [{ type: 'OTHER', email: 'dock@example.com' }],
          },
          { ...stopPayload('Dropoff'), location: { city: 'Toronto', state: 'ON', country: 'ca' } },
        ],
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      success: true,
      message: 'Load created',
      processed_at: expect.stringMatching(/Z$/),
      load_id: expect.stringMatching(/^load_[0-9a-f-]{36}$/),
      operation: 'created',
    });
    const load = (await get(headers, body.load_id)).json();
    expect(load).toMatchObject({
      id: body.load_id,
      organization_id: orgId,
      load_number: 'L-100',
      tms_load_id: 'TMS-100',
      external_id: 'EXT-100',
      load_status: 'Created',
      customer_rate: 2500.5,
      margin: 300.25,
      is_posted: false,
      offer_count: 0,
      max_offer_amount: null,
      active_escalation_count: 0,
      reference_numbers: [{ value: 'PO-9', type: 'PO' }],
      carrier_rep: {
        type: 'DISPATCHER',
        first_name: 'Ann',
        last_name: null,
        phone: '+14155552671',
        email: null,
      },
      driver: { type: null, first_name: 'Dan', last_name: null, phone: null, email: null },
      po_numbers: ['PO-9', 'PO-10'],
      special_instructions: ['Call ahead'],
      context: { lane: { origin: 'IL' }, hot: true },
      custom_fields: { priority: 2 },
    });
    expect(load.stops).toHaveLength(2);
    expect(load.stops[0]).toMatchObject({
      id: expect.stringMatching(/^stop_/),
      stop_number: 1,
      type: 'Pickup',
      is_pickup: true,
      is_dropoff: false,
      location: { city: 'Chicago', state: 'IL', country: 'US', latitude: 41.88, longitude: -87.63 },
      expected_date: '2026-03-02T14:00:00.000Z',
      planned: { start: '2026-03-02T14:00:00.000Z', end: '2026-03-02T18:00:00.000Z' },
      contacts: [
        { type: 'OTHER', first_name: null, last_name: null, phone: null, email: 'dock@example.com' },
      ],
    });
    expect(load.stops[1]).toMatchObject({ stop_number: 2, type: 'Dropoff', location: { country: 'CA' } });
  });

  it('updates on tms_load_id, then external_id, then load_number (200), changing only what was sent', async () => {
    const { headers } = await keyedTenant(t);
    const id = await createLoad(t, headers, {
      load_number: 'L-1',
      tms_load_id: 'T-1',
      external_id: 'E-1',
      commodity: 'Paper',
      weight: 40000,
    });

    const byTms = await post(headers, { load_number: 'L-1b', equipment_type: 'REEFER', tms_load_id: 'T-1' });
    expect(byTms.statusCode, byTms.body).toBe(200);
    expect(byTms.json()).toMatchObject({ load_id: id, operation: 'updated', message: 'Load updated' });

    const byExternal = await post(headers, {
      load_number: 'L-1c',
      equipment_type: 'REEFER',
      external_id: 'E-1',
      weight: null,
    });
    expect(byExternal.json()).toMatchObject({ load_id: id, operation: 'updated' });

    const byNumber = await post(headers, { load_number: 'L-1c', equipment_type: 'FLATBED', notes: 'n' });
    expect(byNumber.json()).toMatchObject({ load_id: id, operation: 'updated' });

    const load = (await get(headers, id)).json();
    expect(load).toMatchObject({
      load_number: 'L-1c',
      equipment_type: 'FLATBED',
      tms_load_id: 'T-1',
      external_id: 'E-1',
      commodity: 'Paper',
      weight: null,
      notes: 'n',
    });
    expect(load.stops).toHaveLength(2);
    expect(Date.parse(load.updated_at)).toBeGreaterThan(Date.parse(load.created_at));
  });

  it('clears a field sent as null, of any column type, and keeps the ones not sent', async () => {
    const { headers } = await keyedTenant(t);
    const id = await createLoad(t, headers, {
      load_number: 'L-N',
      notes: 'gate 4',
      po_numbers: ['PO-1'],
      custom_fields: { priority: 2 },
      context: { hot: true },
      driver: { first_name: 'Dan' },
    });
    const cleared = await post(headers, {
      load_number: 'L-N',
      equipment_type: 'VAN',
      notes: null,
      po_numbers: null,
      custom_fields: null,
      driver: null,
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect((await get(headers, id)).json()).toMatchObject({
      notes: null,
      po_numbers: null,
      // The response shows custom_fields as an object, {} when none is stored.
      custom_fields: {},
      driver: null,
      context: { hot: true },
    });
  });

  it('stores every kind of value as sent: quotes, backslashes, braces, tabs and line breaks in text, fractions, nested jsonb', async () => {
    const { headers } = await keyedTenant(t);
    const odd = 'Dana "DJ" O\\Neil {ops}';
    const sent = {
      load_number: 'L-"odd"\\{1}',
      carrier_rep_user_name: odd,
      tms_sales_rep_names: 'Ann {A}; B\\"C',
      weight: 1234.5,
      customer_rate: 1999.99,
      // What COPY's text format escapes (tab, line feed, carriage return, backslash) and its NULL.
      notes: 'dock 4\tdoor 2\r\nno \\N here\\',
      special_instructions: ['\\N', 'tab\there'],
      custom_fields: { nested: { list: [1, 'two', null], quote: '"', text: 'a\tb\nc\\' } },
    };
    const id = await createLoad(t, headers, sent);
    expect((await get(headers, id)).json()).toMatchObject(sent);
    // An update is written the same way, through another path.
    const changed = { ...sent, notes: '\\N', commodity: 'line\nbreak\ttab' };
    const res = await post(headers, { ...loadPayload(changed), stops: undefined });
    expect(res.statusCode, res.body).toBe(200);
    expect((await get(headers, id)).json()).toMatchObject(changed);
    // The rep names are filtered on as stored (lower-cased), each name one element.
    const list = (q: string) =>
      t.app.inject({ method: 'GET', url: `/api/v1/loads?${q}`, headers }).then((r) => r.json());
    for (const name of [odd, 'Ann {A}', 'B\\"C']) {
      const body = await list(`carrier_rep_name=${encodeURIComponent(name.toLowerCase())}`);
      expect(
        body.data.map((l: { id: string }) => l.id),
        name,
      ).toEqual([id]);
    }
  });

  it('replaces the stops when they are sent and keeps them when they are not', async () => {
    const { headers } = await keyedTenant(t);
    const id = await createLoad(t, headers, { load_number: 'L-2' });
    const before = (await get(headers, id)).json().stops;
    await post(headers, {
      load_number: 'L-2',
      equipment_type: 'VAN',
      stops: [
        stopPayload('Pickup', { city: 'Reno' }),
        stopPayload('Dropoff', { city: 'Boise' }),
        stopPayload('Dropoff', { city: 'Provo' }),
      ],
    });
    const after = (await get(headers, id)).json().stops;
    expect(after.map((s: { location: { city: string } }) => s.location.city)).toEqual([
      'Reno',
      'Boise',
      'Provo',
    ]);
    expect(after.map((s: { id: string }) => s.id)).not.toContain(before[0].id);

    const list = await t.app.inject({ method: 'GET', url: '/api/v1/loads?destination_city=provo', headers });
    expect(list.json().data.map((l: { id: string }) => l.id)).toEqual([id]);
  });

  it('writes nothing for a load re-sent unchanged: updated_at, stop ids and webhooks stay; stops sent again unchanged keep their ids', async () => {
    const tenant = await keyedTenant(t);
    const { headers } = tenant;
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: tenant.user.headers,
      payload: { url: 'https://receiver.example/hooks', event_types: ['*'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const payload = loadPayload({
      load_number: 'L-SAME',
      tms_status: 'Booked',
      posted_rate: 1800,
      po_numbers: ['PO-1', 'PO-2'],
      custom_fields: { lane: 'east', nested: { b: [1, 2], a: null } },
      driver: { first_name: 'Dan', phone: '+13125550100' },
      stops: [
        stopPayload('Pickup', { city: 'Reno' }),
        {
          ...stopPayload('Dropoff', { city: 'Boise' }),
          notes: 'dock 2',
          contact: { first_name: 'Ann', email: 'ann@dock.example' },
        },
      ],
    });
    const id = await createLoad(t, headers, payload);
    const events = async (type: string) => {
      const { rows } = await t.database.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE type = $1 AND data->>'load_id' = $2`,
        [type, id],
      );
      return defined(rows[0], 'rows[0]').n;
    };
    expect(await events('load.created')).toBe(1);
    const first = (await get(headers, id)).json();

    // The same load again, its jsonb keys in another order and its datetimes spelt otherwise.
    const again = {
      ...payload,
      custom_fields: { nested: { a: null, b: [1, 2] }, lane: 'east' },
      stops: [
        stopPayload('Pickup', { city: 'Reno', date: '2026-03-02T08:00:00-06:00' }),
        {
          ...stopPayload('Dropoff', { city: 'Boise' }),
          notes: 'dock 2',
          contact: { first_name: 'Ann', email: 'ann@dock.example' },
        },
      ],
    };
    const same = await post(headers, again);
    expect(same.statusCode, same.body).toBe(200);
    expect(same.json()).toMatchObject({ load_id: id, operation: 'updated' });
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/v1/loads/batch',
      headers,
      payload: { loads: [again] },
    });
    expect(batch.statusCode, batch.body).toBe(200);
    expect(batch.json()).toMatchObject({
      summary: { total: 1, created: 0, updated: 1, skipped: 0, failed: 0 },
      results: [{ load_id: id, operation: 'updated' }],
    });
    const unchanged = (await get(headers, id)).json();
    expect(unchanged).toEqual(first);
    expect(await events('load.updated')).toBe(0);

    // A changed rate is written, and its stops, sent again unchanged, keep their ids.
    const rate = await post(headers, { ...again, posted_rate: 1900 });
    expect(rate.statusCode, rate.body).toBe(200);
    const rated = (await get(headers, id)).json();
    expect(rated.posted_rate).toBe(1900);
    expect(Date.parse(rated.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    expect(rated.stops).toEqual(first.stops);
    expect(await events('load.updated')).toBe(1);

    // One changed stop replaces the stops: the load is updated with them.
    const moved = await post(headers, {
      ...again,
      posted_rate: 1900,
      stops: [again.stops[0], { ...again.stops[1], notes: 'dock 3' }],
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const restopped = (await get(headers, id)).json();
    expect(restopped.stops.map((s: { notes: string | null }) => s.notes)).toEqual([null, 'dock 3']);
    expect(restopped.stops[0].id).not.toBe(first.stops[0].id);
    expect(Date.parse(restopped.updated_at)).toBeGreaterThan(Date.parse(rated.updated_at));
    expect(await events('load.updated')).toBe(2);

    // A change deep inside a jsonb field is a change, and so is a key holding null left out.
    const restoppedBody = {
      ...again,
      posted_rate: 1900,
      stops: [again.stops[0], { ...again.stops[1], notes: 'dock 3' }],
    };
    for (const [n, custom_fields] of [
      [3, { lane: 'east', nested: { a: null, b: [1, 3] } }],
      [4, { lane: 'east', nested: { b: [1, 3] } }],
    ] as const) {
      const res = await post(headers, { ...restoppedBody, custom_fields });
      expect(res.statusCode, res.body).toBe(200);
      expect((await get(headers, id)).json().custom_fields).toEqual(custom_fields);
      expect(await events('load.updated')).toBe(n);
    }
  });

  it('refuses a new load with fewer than two stops, naming stops', async () => {
    const { headers } = await keyedTenant(t);
    const res = await post(headers, loadPayload({ stops: [stopPayload('Pickup')] }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_error', param: 'stops' });
    expect(res.json().detail[0].loc).toEqual(['body', 'stops']);
    const none = await post(headers, { load_number: 'X', equipment_type: 'VAN' });
    expect(none.json().error.param).toBe('stops');
  });

  it('validates stops, coordinates, country and enums, naming the field', async () => {
    const { headers } = await keyedTenant(t);
    const cases: [Record<string, unknown>, string][] = [
      [
        loadPayload({ stops: [{ ...stopPayload('Pickup'), type: 'pickup' }, stopPayload('Dropoff')] }),
        'stops[0].type',
      ],
      [
        loadPayload({ stops: [stopPayload('Pickup'), { ...stopPayload('Dropoff'), type: 'Delivery' }] }),
        'stops[1].type',
      ],
      [
        loadPayload({
          stops: [
            { type: 'Pickup', location: { city: 'A', state: 'B', latitude: 91 } },
            stopPayload('Dropoff'),
          ],
        }),
        'stops[0].location.latitude',
      ],
      [
        loadPayload({
          stops: [
            { type: 'Pickup', location: { city: 'A', state: 'B', longitude: -180.5 } },
            stopPayload('Dropoff'),
          ],
        }),
        'stops[0].location.longitude',
      ],
      [
        loadPayload({
          stops: [
            { type: 'Pickup', location: { city: 'A', state: 'B', country: 'USA' } },
            stopPayload('Dropoff'),
          ],
        }),
        'stops[0].location.country',
      ],
      [
        loadPayload({ stops: [{ type: 'Pickup', location: { state: 'B' } }, stopPayload('Dropoff')] }),
        'stops[0].location.city',
      ],
      [loadPayload({ equipment_type: 'SPACESHIP' }), 'equipment_type'],
      [loadPayload({ mode: 'AIR' }), 'mode'],
      [loadPayload({ load_number: undefined }), 'load_number'],
      [loadPayload({ posted_rate: 12.5 }), 'posted_rate'],
      [loadPayload({ notes: 'a\u0000b' }), 'notes'],
    ];
    for (const [payload, param] of cases) {
      const res = await post(headers, payload);
      expect(res.statusCode, param).toBe(422);
      expect(res.json().error.param, param).toBe(param);
    }
  });

  it('maps tms_status case-insensitively, unknown to null, and follows later changes', async () => {
    const { headers } = await keyedTenant(t);
    const expectations: [string, string | null][] = [
      ['OPEN', 'Unassigned'],
      ['Quotes Received', 'Quotes Received'],
      ['covered', 'Dispatched'],
      ['In Transit', 'En Route'],
      ['INVOICED', 'Delivered'],
      ['Canceled', 'Cancelled'],
      ['delayed', 'Exception'],
      ['on the moon', null],
    ];
    for (const [tms, expected] of expectations) {
      const id = await createLoad(t, headers, { tms_status: tms });
      const load = (await get(headers, id)).json();
      expect(load.load_status, tms).toBe(expected);
      expect(load.tms_status).toBe(tms);
    }
  });

  it("uses the organization's own tms_status mapping before the default table", async () => {
    const { orgId, headers } = await keyedTenant(t);
    await t.database.pool.query(
      `INSERT INTO load_status_mappings (organization_id, tms_status, load_status) VALUES ($1, 'tendered', 'Quotes Received'), ($1, 'open', 'Created')`,
      [orgId],
    );
    const tendered = await createLoad(t, headers, { tms_status: 'Tendered' });
    const open = await createLoad(t, headers, { tms_status: 'Open' });
    expect((await get(headers, tendered)).json().load_status).toBe('Quotes Received');
    expect((await get(headers, open)).json().load_status).toBe('Created');
  });

  it('stamps last_posted_at when is_posted turns on and last_unposted_at when it turns off', async () => {
    const { headers } = await keyedTenant(t);
    const id = await createLoad(t, headers, { load_number: 'P-1', is_posted: true });
    const posted = (await get(headers, id)).json();
    expect(posted.is_posted).toBe(true);
    expect(posted.last_posted_at).toEqual(posted.created_at);
    expect(posted.last_unposted_at).toBeNull();

    await post(headers, { load_number: 'P-1', equipment_type: 'VAN', is_posted: true });
    expect((await get(headers, id)).json().last_posted_at).toBe(posted.last_posted_at);

    await post(headers, { load_number: 'P-1', equipment_type: 'VAN', is_posted: false });
    const unposted = (await get(headers, id)).json();
    expect(unposted.is_posted).toBe(false);
    expect(unposted.last_posted_at).toBe(posted.last_posted_at);
    expect(Date.parse(unposted.last_unposted_at)).toBeGreaterThan(Date.parse(posted.last_posted_at));

    await post(headers, { load_number: 'P-1', equipment_type: 'VAN', is_posted: true });
    const reposted = (await get(headers, id)).json();
    expect(Date.parse(reposted.last_posted_at)).toBeGreaterThan(Date.parse(unposted.last_unposted_at));
  });

  it('refuses an identifier that belongs to another load with 409 naming it', async () => {
    const { headers } = await keyedTenant(t);
    await createLoad(t, headers, { load_number: 'C-1', external_id: 'E-C1' });
    await createLoad(t, headers, { load_number: 'C-2', tms_load_id: 'T-C2' });
    const res = await post(headers, {
      load_number: 'C-2',
      equipment_type: 'VAN',
      tms_load_id: 'T-C2',
      external_id: 'E-C1',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'already_exists', param: 'external_id' });
  });

  it('keeps organizations apart: the same load number in another organization is another load', async () => {
    const a = await keyedTenant(t);
    const b = await keyedTenant(t);
    const idA = await createLoad(t, a.headers, { load_number: 'SAME-1', tms_load_id: 'T-SAME' });
    const idB = await createLoad(t, b.headers, { load_number: 'SAME-1', tms_load_id: 'T-SAME' });
    expect(idB).not.toBe(idA);
    expect((await get(b.headers, idA)).statusCode).toBe(404);
  });

  it('accepts a bearer token of any role', async () => {
    const { user } = await createTenant(t, 'MEMBER');
    const res = await post(user.headers, loadPayload());
    expect(res.statusCode).toBe(201);
  });
});

describe('POST /loads/batch', () => {
  const t = useTestApp();
  const batch = (headers: Record<string, string>, loads: unknown[], extra: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/loads/batch',
      headers: { ...headers, ...extra },
      payload: { loads },
    });

  it('answers 200 when every load was created or updated', async () => {
    const { headers } = await keyedTenant(t);
    await createLoad(t, headers, { load_number: 'B-0', tms_load_id: 'TB-0' });
    const res = await batch(headers, [
      loadPayload({ load_number: 'B-1', tms_status: 'open' }),
      { load_number: 'B-0x', equipment_type: 'VAN', tms_load_id: 'TB-0' },
      loadPayload({ load_number: 'B-2', external_id: 'EB-2' }),
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      success: true,
      total_loads: 3,
      successful: 3,
      failed: 0,
      created: 2,
      updated: 1,
      summary: { total: 3, created: 2, updated: 1, skipped: 0, failed: 0 },
      errors: [],
    });
    expect(
      body.results.map((r: { load_identifier: string; operation: string }) => [
        r.load_identifier,
        r.operation,
      ]),
    ).toEqual([
      ['B-1', 'created'],
      ['TB-0', 'updated'],
      ['EB-2', 'created'],
    ]);
    expect(
      body.data.map((d: { index: number; status: string; external_id: string | null }) => [
        d.index,
        d.status,
        d.external_id,
      ]),
    ).toEqual([
      [0, 'created', null],
      [1, 'updated', null],
      [2, 'created', 'EB-2'],
    ]);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/loads', headers });
    expect(list.json().pagination.total_count).toBe(3);
  });

  it('answers 207 with per-item errors named from the body root, and applies the rest', async () => {
    const { headers } = await keyedTenant(t);
    const res = await batch(headers, [
      loadPayload({ load_number: 'G-0' }),
      loadPayload({ load_number: 'G-1' }),
      loadPayload({ load_number: 'G-2' }),
      loadPayload({
        load_number: 'G-3',
        stops: [stopPayload('Pickup'), { ...stopPayload('Dropoff'), type: 'Drop' }],
      }),
      loadPayload({ load_number: 'G-1' }),
      loadPayload({ load_number: 'G-5', stops: [stopPayload('Pickup')] }),
    ]);
    expect(res.statusCode, res.body).toBe(207);
    const body = res.json();
    expect(body).toMatchObject({
      success: false,
      total_loads: 6,
      successful: 3,
      failed: 3,
      created: 3,
      updated: 0,
    });
    expect(body.summary).toEqual({ total: 6, created: 3, updated: 0, skipped: 1, failed: 2 });
    expect(body.data[3]).toMatchObject({
      index: 3,
      status: 'failed',
      id: null,
      error: { code: 'validation_error', param: 'loads[3].stops[1].type' },
    });
    expect(body.data[4]).toMatchObject({
      status: 'skipped',
      error: { code: 'duplicate_in_batch', param: 'loads[4].load_number' },
    });
    expect(body.data[5]).toMatchObject({
      status: 'failed',
      error: { code: 'validation_error', param: 'loads[5].stops' },
    });
    expect(body.errors.map((e: { index: number; code: string }) => [e.index, e.code])).toEqual([
      [3, 'validation_error'],
      [4, 'duplicate_in_batch'],
      [5, 'validation_error'],
    ]);
    expect(body.results[3]).toMatchObject({
      load_identifier: 'G-3',
      success: false,
      load_id: null,
      error_code: 'validation_error',
    });
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads?order_by=load_number&order_desc=false',
      headers,
    });
    expect(list.json().data.map((l: { load_number: string }) => l.load_number)).toEqual([
      'G-0',
      'G-1',
      'G-2',
    ]);
  });

  it('reports an item whose identifiers have the wrong type as failed, naming the field (was a 500)', async () => {
    const { headers } = await keyedTenant(t);
    const res = await batch(headers, [
      { ...loadPayload({ load_number: 'W-0' }), external_id: true },
      { ...loadPayload({ load_number: 'W-1' }), tms_load_id: 7 },
      loadPayload({ load_number: 'W-2' }),
    ]);
    expect(res.statusCode, res.body).toBe(207);
    const body = res.json();
    expect(body.summary).toEqual({ total: 3, created: 1, updated: 0, skipped: 0, failed: 2 });
    expect(body.data[0]).toMatchObject({
      status: 'failed',
      external_id: null,
      error: { code: 'validation_error', param: 'loads[0].external_id' },
    });
    expect(body.results[0]).toMatchObject({ load_identifier: 'W-0', success: false });
    expect(body.results[1]).toMatchObject({ load_identifier: 'W-1', success: false });
    expect(body.data[1].error.param).toBe('loads[1].tms_load_id');
  });

  it('refuses an empty batch and one over 1000 loads with 422', async () => {
    const { headers } = await keyedTenant(t);
    expect((await batch(headers, [])).statusCode).toBe(422);
    const tooMany = await batch(
      headers,
      Array.from({ length: 1001 }, () => ({})),
    );
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().error.param).toBe('loads');
  });

  it('applies 1000 loads in one request', async () => {
    const { headers } = await keyedTenant(t);
    const res = await batch(
      headers,
      Array.from({ length: 1000 }, (_, i) =>
        loadPayload({ load_number: `K-${i}`, tms_status: i % 2 ? 'open' : 'booked' }),
      ),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().created).toBe(1000);
    const dispatched = await t.app.inject({ method: 'GET', url: '/api/v1/loads?status=Dispatched', headers });
    expect(dispatched.json().pagination.total_count).toBe(500);

    // The same 1000 again, every status flipped: all updated (written a piece of rows at a time).
    const again = await batch(
      headers,
      Array.from({ length: 1000 }, (_, i) =>
        loadPayload({ load_number: `K-${i}`, tms_status: i % 2 ? 'booked' : 'open' }),
      ),
    );
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ created: 0, updated: 1000 });
    const unassigned = await t.app.inject({ method: 'GET', url: '/api/v1/loads?status=Unassigned', headers });
    expect(unassigned.json().pagination.total_count).toBe(500);
    const ids = new Set(again.json().results.map((r: { load_id: string }) => r.load_id));
    expect(ids).toEqual(new Set(res.json().results.map((r: { load_id: string }) => r.load_id)));
  });

  it('replays a batch sent again with the same Idempotency-Key', async () => {
    const { headers } = await keyedTenant(t);
    const loads = [loadPayload({ load_number: 'I-1' })];
    const first = await batch(headers, loads, { 'idempotency-key': 'batch-1' });
    const again = await batch(headers, loads, { 'idempotency-key': 'batch-1' });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().results).toEqual(first.json().results);
  });
});
