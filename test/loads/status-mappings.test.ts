import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createTenant, createUser } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

const statusOf = async (t: TestApp, headers: Record<string, string>, id: string) =>
  (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers })).json().load_status;

describe('load status mappings', () => {
  const t = useTestApp();
  const put = (headers: Record<string, string>, tms: string, body: object) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/load-status-mappings/${encodeURIComponent(tms)}`,
      headers,
      payload: body,
    });

  it('lists the defaults of the design', async () => {
    const { user } = await createTenant(t);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/load-status-mappings',
      headers: user.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toContainEqual({
      tms_status: 'open',
      load_status: 'Unassigned',
      source: 'default',
    });
    expect(res.json().data).toContainEqual({
      tms_status: 'void',
      load_status: 'Cancelled',
      source: 'default',
    });
  });

  it('extends the table, remapping existing loads and mapping new ones', async () => {
    const { user } = await createTenant(t);
    const before = await createLoad(t, user.headers, { tms_status: ' TENDERED ' });
    expect(await statusOf(t, user.headers, before)).toBeNull();
    const res = await put(user.headers, 'Tendered', { load_status: 'Quotes Received' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tms_status: 'tendered',
      load_status: 'Quotes Received',
      source: 'organization',
      remapped_loads: 1,
    });
    expect(await statusOf(t, user.headers, before)).toBe('Quotes Received');
    const after = await createLoad(t, user.headers, { tms_status: 'tendered' });
    expect(await statusOf(t, user.headers, after)).toBe('Quotes Received');
    const counts = (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/loads?status=Quotes%20Received',
        headers: user.headers,
      })
    ).json();
    expect(counts.pagination.total_count).toBe(2);
  });

  it('overrides a default, and dropping the entry brings the default back', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    const mine = await createLoad(t, user.headers, { tms_status: 'open' });
    const theirs = await createLoad(t, other.user.headers, { tms_status: 'open' });
    await put(user.headers, 'open', { load_status: 'Created' });
    expect(await statusOf(t, user.headers, mine)).toBe('Created');
    expect(await statusOf(t, other.user.headers, theirs)).toBe('Unassigned');
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/load-status-mappings/open',
      headers: user.headers,
    });
    expect(del.statusCode).toBe(204);
    expect(await statusOf(t, user.headers, mine)).toBe('Unassigned');
  });

  it('refuses an unknown load_status and a MEMBER', async () => {
    const { orgId, user } = await createTenant(t);
    const bad = await put(user.headers, 'x', { load_status: 'Lost' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error.param).toBe('load_status');
    const member = await createUser(t, orgId, 'MEMBER');
    expect((await put(member.headers, 'x', { load_status: 'Created' })).statusCode).toBe(403);
  });
});
