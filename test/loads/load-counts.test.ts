import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { addOffer, createLoad, stopPayload } from '../helpers/load-factories.js';

describe('total_count stays exact as loads change', () => {
  const t = useTestApp();

  it('recounts a search, a status list and a tab after every kind of write', async () => {
    const { orgId, user } = await createTenant(t);
    const headers = (await createApiKey(t, user.headers)).headers;
    const total = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/loads?${query}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().pagination.total_count as number;
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
