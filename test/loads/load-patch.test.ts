import { beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createOrg, createUser, type TestUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';

// PATCH /loads/{load_id}: a partial update, validated as ingestion is, answering the load as GET does.
describe('PATCH /loads/{load_id}', () => {
  const t = useTestApp();
  let keyHeaders: Record<string, string>;
  let member: TestUser;
  let otherOrgKey: Record<string, string>;

  beforeAll(async () => {
    const orgId = await createOrg(t);
    const owner = await createUser(t, orgId, 'OWNER');
    member = await createUser(t, orgId, 'MEMBER');
    keyHeaders = (await createApiKey(t, owner.headers)).headers;
    // Events are kept only for an organization with a reader: an endpoint subscribed to all.
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: owner.headers,
      payload: { url: 'https://receiver.example/hooks', event_types: ['*'] },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const other = await createUser(t, await createOrg(t), 'OWNER');
    otherOrgKey = (await createApiKey(t, other.headers)).headers;
  });

  const patch = (id: string, payload: Record<string, unknown>, headers = keyHeaders) =>
    t.app.inject({ method: 'PATCH', url: `/api/v1/loads/${id}`, headers, payload });
  const get = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: keyHeaders })).json();
  const events = async (type: string, id: string) => {
    const { rows } = await t.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE type = $1 AND data->>'load_id' = $2`,
      [type, id],
    );
    return defined(rows[0], 'rows[0]').n;
  };

  it('changes only the fields sent and answers the load as GET does, with load.updated', async () => {
    const id = await createLoad(t, keyHeaders, { commodity: 'Paper', posted_rate: 1800, notes: 'dock 4' });
    const before = await get(id);
    const res = await patch(id, { is_posted: true, posted_rate: 1950, notes: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const after = res.json();
    expect(after).toEqual(await get(id));
    expect(after).toMatchObject({ is_posted: true, posted_rate: 1950, notes: null, commodity: 'Paper' });
    const unchangedFields = Object.keys(before).filter(
      (k) => !['is_posted', 'posted_rate', 'notes', 'updated_at', 'last_posted_at'].includes(k),
    );
    for (const k of unchangedFields) expect(after[k], k).toEqual(before[k]);
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
    expect(await events('load.updated', id)).toBe(1);
    expect(await events('load.status_changed', id)).toBe(0);
  });

  it('sends load.status_changed when tms_status maps to another load_status, and nothing for an unchanged patch', async () => {
    const id = await createLoad(t, keyHeaders, { tms_status: 'open' });
    expect((await get(id)).load_status).toBe('Unassigned');
    const moved = await patch(id, { tms_status: 'Covered' });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json()).toMatchObject({ tms_status: 'Covered', load_status: 'Dispatched' });
    expect(await events('load.status_changed', id)).toBe(1);
    const same = await patch(id, { tms_status: 'Covered' });
    expect(same.statusCode).toBe(200);
    expect(same.json().updated_at).toBe(moved.json().updated_at);
    const empty = await patch(id, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual(same.json());
    expect(await events('load.updated', id)).toBe(1);
  });

  it('replaces the stops when sent, keeping their ids when sent again as stored', async () => {
    const id = await createLoad(t, keyHeaders);
    const stops = [stopPayload('Pickup', { city: 'Joliet' }), stopPayload('Dropoff', { city: 'Waco' })];
    const res = await patch(id, { stops });
    expect(res.statusCode, res.body).toBe(200);
    const load = res.json();
    expect(load.stops.map((s: { location: { city: string } }) => s.location.city)).toEqual([
      'Joliet',
      'Waco',
    ]);
    const again = await patch(id, { stops });
    expect(again.json().stops.map((s: { id: string }) => s.id)).toEqual(
      load.stops.map((s: { id: string }) => s.id),
    );
  });

  it('validates as ingestion does: 422 naming the field, nothing written', async () => {
    const id = await createLoad(t, keyHeaders, { weight: 1000 });
    for (const [body, param] of [
      [{ weight: 'heavy' }, 'weight'],
      [{ load_number: null }, 'load_number'],
      [{ load_number: '   ' }, 'load_number'],
      [{ equipment_type: 'BOAT' }, 'equipment_type'],
      [{ stops: [{ location: { city: 'Austin' } }] }, 'stops[0].location.state'],
    ] as const) {
      const res = await patch(id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_error', param });
      expect(res.json().detail[0].loc[0]).toBe('body');
    }
    expect((await get(id)).weight).toBe(1000);
    expect(await events('load.updated', id)).toBe(0);
  });

  it("is 404 for another organization's load or an unknown one, and 400 invalid_id_format for another kind's id", async () => {
    const id = await createLoad(t, keyHeaders);
    const foreign = await patch(id, { notes: 'x' }, otherOrgKey);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toMatchObject({ code: 'not_found', param: 'load_id' });
    const unknown = await patch('load_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15', { notes: 'x' });
    expect(unknown.statusCode).toBe(404);
    const wrongKind = await patch('car_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15', { notes: 'x' });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().error).toMatchObject({ code: 'invalid_id_format', param: 'load_id' });
    expect((await get(id)).notes).toBeNull();
  });

  it('is 409 already_exists when an identifier sent belongs to another load', async () => {
    const taken = await createLoad(t, keyHeaders, { tms_load_id: 'TMS-TAKEN-1' });
    const id = await createLoad(t, keyHeaders);
    const takenNumber = (await get(taken)).load_number;
    for (const [body, param] of [
      [{ load_number: takenNumber }, 'load_number'],
      [{ tms_load_id: 'TMS-TAKEN-1' }, 'tms_load_id'],
    ] as const) {
      const res = await patch(id, body);
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'already_exists', param });
      expect(res.json().error.message).toContain(taken);
    }
    const own = await patch(taken, { tms_load_id: 'TMS-TAKEN-1', load_number: takenNumber });
    expect(own.statusCode).toBe(200);
    const renamed = await patch(id, { load_number: 'LN-RENAMED-1', external_id: 'EXT-RENAMED-1' });
    expect(renamed.json()).toMatchObject({ load_number: 'LN-RENAMED-1', external_id: 'EXT-RENAMED-1' });
  });

  it('refuses a MEMBER who sends customer_rate or margin (403 naming the field), and lets them change the rest', async () => {
    const id = await createLoad(t, keyHeaders, { customer_rate: 2400 });
    const refused = await patch(id, { customer_rate: 1, notes: 'n' }, member.headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'insufficient_permissions', param: 'customer_rate' });
    expect(await get(id)).toMatchObject({ customer_rate: 2400, notes: null });
    const allowed = await patch(id, { notes: 'call first' }, member.headers);
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.json().notes).toBe('call first');
    expect(allowed.json().customer_rate).toBeNull();
  });
});
