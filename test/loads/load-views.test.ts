import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant, createUser, type TestUser } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

describe('saved load views', () => {
  const t = useTestApp();
  let orgId: string;
  let owner: TestUser;
  let member: TestUser;
  let key: Record<string, string>;

  beforeAll(async () => {
    const tenant = await createTenant(t);
    orgId = tenant.orgId;
    owner = tenant.user;
    member = await createUser(t, orgId, 'MEMBER');
    key = (await createApiKey(t, owner.headers)).headers;
    await createLoad(t, key, {
      load_number: 'V1',
      tms_status: 'open',
      equipment_type: 'VAN',
      customer_name: 'Acme',
    });
    await createLoad(t, key, {
      load_number: 'V2',
      tms_status: 'booked',
      equipment_type: 'VAN',
      customer_name: 'Acme',
    });
    await createLoad(t, key, {
      load_number: 'V3',
      tms_status: 'booked',
      equipment_type: 'REEFER',
      customer_name: 'Beta',
    });
    await createLoad(t, key, {
      load_number: 'V4',
      tms_status: 'delivered',
      equipment_type: 'REEFER',
      customer_name: 'Acme',
    });
  });

  const createView = async (headers: Record<string, string>, payload: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/load-views', headers, payload });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const numbers = async (headers: Record<string, string>, query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().pagination.total_count).toBe(res.json().data.length);
    return res
      .json()
      .data.map((l: { load_number: string }) => l.load_number)
      .sort();
  };

  it('creates a private view by default and returns it', async () => {
    const view = await createView(owner.headers, {
      name: 'Open and booked vans',
      filters: {
        status: ['Unassigned', 'Dispatched'],
        equipment_type: 'VAN',
        distance_min: 0,
        is_posted: false,
      },
    });
    expect(view).toEqual({
      id: expect.stringMatching(/^view_[0-9a-f-]{36}$/),
      organization_id: orgId,
      name: 'Open and booked vans',
      filters: {
        status: ['Unassigned', 'Dispatched'],
        equipment_type: 'VAN',
        distance_min: '0',
        is_posted: 'false',
      },
      visibility: 'private',
      owner_id: owner.id,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.any(String),
    });
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/v1/load-views/${view.id}`,
      headers: owner.headers,
    });
    expect(one.json()).toEqual(view);
  });

  it("stacks a view's filters with inline ones: both narrow, neither widens", async () => {
    const view = await createView(owner.headers, {
      name: 'Acme',
      filters: { customer_name: 'acme', status: 'Dispatched,Delivered' },
    });
    expect(await numbers(owner.headers, `view_id=${view.id}`)).toEqual(['V2', 'V4']);
    expect(await numbers(owner.headers, `view_id=${view.id}&equipment_type=REEFER`)).toEqual(['V4']);
    // Inline statuses intersect with the view's: Unassigned is outside the view, so it adds nothing.
    expect(await numbers(owner.headers, `view_id=${view.id}&status=Unassigned,Dispatched`)).toEqual(['V2']);
    expect(await numbers(owner.headers, `view_id=${view.id}&status=Unassigned`)).toEqual([]);
    expect(await numbers(owner.headers, `view_id=${view.id}&customer_name=Beta`)).toEqual([]);
  });

  it('uses the sort a view saved unless the query sets one', async () => {
    const view = await createView(owner.headers, {
      name: 'By number',
      filters: { order_by: 'load_number', order_desc: 'false' },
    });
    const order = async (query: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads?view_id=${view.id}${query}`,
          headers: owner.headers,
        })
      )
        .json()
        .data.map((l: { load_number: string }) => l.load_number);
    expect(await order('')).toEqual(['V1', 'V2', 'V3', 'V4']);
    expect(await order('&order_desc=true')).toEqual(['V4', 'V3', 'V2', 'V1']);
  });

  it("answers 404 for a view the caller cannot see: someone else's private view, another organization's", async () => {
    const mine = await createView(owner.headers, { name: 'Mine', filters: { equipment_type: 'VAN' } });
    const shared = await createView(owner.headers, {
      name: 'Shared',
      filters: { equipment_type: 'VAN' },
      visibility: 'organization',
    });

    const hidden = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads?view_id=${mine.id}`,
      headers: member.headers,
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error).toMatchObject({ code: 'not_found', param: 'view_id' });
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/load-views/${mine.id}`, headers: member.headers }))
        .statusCode,
    ).toBe(404);
    expect(await numbers(member.headers, `view_id=${shared.id}`)).toEqual(['V1', 'V2']);

    const listed = (
      await t.app.inject({ method: 'GET', url: '/api/v1/load-views?page_size=100', headers: member.headers })
    ).json();
    const listedIds = listed.data.map((v: { id: string }) => v.id);
    expect(listedIds).toContain(shared.id);
    expect(listedIds).not.toContain(mine.id);

    const stranger = await createTenant(t);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads?view_id=${shared.id}`,
      headers: stranger.user.headers,
    });
    expect(res.statusCode).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v1/loads?view_id=view_nope', headers: owner.headers }))
        .statusCode,
    ).toBe(404);
    // An API key's private views are its own.
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/loads?view_id=${mine.id}`, headers: key }))
        .statusCode,
    ).toBe(404);
  });

  it('validates filters like the query string, naming filters.<parameter>', async () => {
    const cases: [unknown, string][] = [
      [{ status: 'Bogus' }, 'filters.status'],
      [{ status: ['Unassigned', 'nope'] }, 'filters.status'],
      [{ pickup_date_from: '2026-02-30' }, 'filters.pickup_date_from'],
      [{ order_by: 'weight' }, 'filters.order_by'],
      [{ page: 2 }, 'filters.page'],
      [{ view_id: 'view_x' }, 'filters.view_id'],
      [{ colour: 'red' }, 'filters.colour'],
      ['status=Unassigned', 'filters'],
    ];
    for (const [filters, param] of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/load-views',
        headers: owner.headers,
        payload: { name: 'bad', filters },
      });
      expect(res.statusCode, JSON.stringify(filters)).toBe(422);
      expect(res.json().error.param, JSON.stringify(filters)).toBe(param);
    }
    const noName = await t.app.inject({
      method: 'POST',
      url: '/api/v1/load-views',
      headers: owner.headers,
      payload: { filters: {} },
    });
    expect(noName.json().error.param).toBe('name');
  });

  it('lets the creator change and delete a view; others get 403 or 404', async () => {
    const shared = await createView(member.headers, {
      name: 'Team',
      filters: {},
      visibility: 'organization',
    });
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/load-views/${shared.id}`,
      headers: member.headers,
      payload: { name: 'Team vans', filters: { equipment_type: ['VAN'] } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'Team vans',
      filters: { equipment_type: ['VAN'] },
      visibility: 'organization',
    });

    const badPatch = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/load-views/${shared.id}`,
      headers: member.headers,
      payload: { filters: { status: 'Nope' } },
    });
    expect(badPatch.json().error.param).toBe('filters.status');

    const otherMember = await createUser(t, orgId, 'MEMBER');
    const refused = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/load-views/${shared.id}`,
      headers: otherMember.headers,
      payload: { name: 'Mine now' },
    });
    expect(refused.statusCode).toBe(403);
    // An OWNER may tidy up organization views.
    const renamed = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/load-views/${shared.id}`,
      headers: owner.headers,
      payload: { visibility: 'private' },
    });
    expect(renamed.statusCode).toBe(200);
    // Now private to its creator: invisible to the owner.
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/v1/load-views/${shared.id}`,
          headers: owner.headers,
        })
      ).statusCode,
    ).toBe(404);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/load-views/${shared.id}`,
      headers: member.headers,
    });
    expect(deleted.statusCode).toBe(204);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/load-views/${shared.id}`, headers: member.headers }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/loads?view_id=${shared.id}`,
          headers: member.headers,
        })
      ).statusCode,
    ).toBe(404);
  });
});
