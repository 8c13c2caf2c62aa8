import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';

const registry = registryFile([]);
const TX_GA = {
  origin: { city: 'Dallas', state: 'TX' },
  destination: { city: 'Atlanta', state: 'GA' },
  equipment_type: 'VAN',
};

describe('lane preferences', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });
  const addPreference = (carrierId: string, headers: Record<string, string>, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrierId}/lane-preferences`,
      headers,
      payload: body,
    });

  it('creates a preference with its lane, and reuses the lane for the same origin, destination and equipment', async () => {
    const { user } = await createTenant(t);
    const a = await createCarrier(t, user.headers);
    const b = await createCarrier(t, user.headers);
    const first = await addPreference(a.id, user.headers, { ...TX_GA, routing_guide_tier: 1 });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      id: expect.stringMatching(/^lp_/),
      carrier_id: a.id,
      lane_id: expect.stringMatching(/^lane_/),
      is_active: true,
      preference_type: 'primary',
      routing_guide_tier: 1,
      dnu: false,
      dnu_reason: null,
      dnu_set_at: null,
      lane: {
        origin: { city: 'Dallas', state: 'TX', country: 'US' },
        destination: { city: 'Atlanta', state: 'GA', country: 'US' },
        equipment_type: 'VAN',
      },
    });
    const same = await addPreference(b.id, user.headers, {
      origin: { city: 'dallas', state: 'tx' },
      destination: { city: 'ATLANTA', state: 'ga', country: 'us' },
      equipment_type: 'VAN',
    });
    expect(same.json().lane_id).toBe(first.json().lane_id);
    const otherEquipment = await addPreference(b.id, user.headers, { ...TX_GA, equipment_type: 'REEFER' });
    expect(otherEquipment.json().lane_id).not.toBe(first.json().lane_id);
    const duplicate = await addPreference(a.id, user.headers, TX_GA);
    expect(duplicate.statusCode).toBe(409);
  });

  it('validates states, countries and tiers', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    for (const [body, param] of [
      [{ ...TX_GA, origin: { state: 'Texas!' } }, 'origin.state'],
      [{ ...TX_GA, destination: { state: 'GA', country: 'USA' } }, 'destination.country'],
      [{ ...TX_GA, routing_guide_tier: 0 }, 'routing_guide_tier'],
      [{ ...TX_GA, preference_type: 'favourite' }, 'preference_type'],
      [{ destination: { state: 'GA' } }, 'origin'],
    ] as const) {
      const res = await addPreference(c.id, user.headers, body);
      expect(res.statusCode, param).toBe(422);
      expect(res.json().error.param, param).toBe(param);
    }
  });

  it('restricts with an audit row, ignores a repeat, and unrestricts the same way', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const pref = (await addPreference(c.id, user.headers, TX_GA)).json();
    const url = (action: string) => `/api/v1/carriers/${c.id}/lane-preferences/${pref.id}/${action}`;
    const audit = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/carriers/${c.id}/lane-preferences/${pref.id}/audit-log`,
          headers: user.headers,
        })
      ).json().data;

    const restricted = await t.app.inject({
      method: 'POST',
      url: url('restrict'),
      headers: user.headers,
      payload: { reason: 'pause_on_lane' },
    });
    expect(restricted.statusCode).toBe(200);
    expect(restricted.json()).toMatchObject({
      dnu: true,
      dnu_reason: 'pause_on_lane',
      dnu_set_at: expect.stringMatching(/Z$/),
    });
    const repeat = await t.app.inject({
      method: 'POST',
      url: url('restrict'),
      headers: user.headers,
      payload: { reason: 'compliance' },
    });
    expect(repeat.json()).toMatchObject({ dnu: true, dnu_reason: 'pause_on_lane' });
    expect(await audit()).toEqual([
      expect.objectContaining({ action: 'restrict', reason: 'pause_on_lane', actor_id: user.id }),
    ]);

    const lifted = await t.app.inject({ method: 'POST', url: url('unrestrict'), headers: user.headers });
    expect(lifted.json()).toMatchObject({ dnu: false, dnu_reason: null, dnu_set_at: null });
    const liftedAgain = await t.app.inject({
      method: 'POST',
      url: url('unrestrict'),
      headers: user.headers,
      payload: {},
    });
    expect(liftedAgain.statusCode).toBe(200);
    expect((await audit()).map((r: { action: string }) => r.action)).toEqual(['restrict', 'unrestrict']);
  });

  it('requires a reason to restrict, a note for other, and a bearer OWNER or ADMIN', async () => {
    const { orgId, user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const pref = (await addPreference(c.id, user.headers, TX_GA)).json();
    const url = `/api/v1/carriers/${c.id}/lane-preferences/${pref.id}/restrict`;
    expect(
      (await t.app.inject({ method: 'POST', url, headers: user.headers, payload: {} })).json().error.param,
    ).toBe('reason');
    expect(
      (
        await t.app.inject({ method: 'POST', url, headers: user.headers, payload: { reason: 'other' } })
      ).json().error.param,
    ).toBe('reason_note');
    const key = await createApiKey(t, user.headers);
    const member = await createUser(t, orgId, 'MEMBER');
    for (const headers of [key.headers, member.headers]) {
      expect(
        (await t.app.inject({ method: 'POST', url, headers, payload: { reason: 'compliance' } })).statusCode,
      ).toBe(403);
    }
  });

  it('answers 404 for a preference of another carrier or organization', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const mine = await createCarrier(t, a.user.headers);
    const theirs = await createCarrier(t, b.user.headers);
    const foreignPref = (await addPreference(theirs.id, b.user.headers, TX_GA)).json();
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${mine.id}/lane-preferences/${foreignPref.id}/restrict`,
      headers: a.user.headers,
      payload: { reason: 'compliance' },
    });
    expect(res.statusCode).toBe(404);
    expect((await addPreference(theirs.id, a.user.headers, TX_GA)).statusCode).toBe(404);
  });
});

describe('GET /carriers', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });

  async function fixture() {
    const { user } = await createTenant(t);
    const h = user.headers;
    const acme = await createCarrier(t, h, {
      name: 'Acme Freight',
      mc_number: '700001',
      dot_number: '800001',
      equipment_types: ['VAN'],
      routing_guide_tier: 3,
    });
    const bolt = await createCarrier(t, h, {
      name: 'Bolt Logistics',
      mc_number: '700002',
      equipment_types: ['REEFER', 'VAN'],
      routing_guide_tier: 1,
    });
    const cargo = await createCarrier(t, h, {
      name: 'Cargo Kings',
      equipment_types: ['FLATBED'],
      is_active: false,
    });
    const add = (id: string, body: Record<string, unknown>) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${id}/lane-preferences`,
        headers: h,
        payload: body,
      });
    const lanePref = (await add(acme.id, { ...TX_GA, routing_guide_tier: 1 })).json();
    await add(bolt.id, { ...TX_GA, routing_guide_tier: 2 });
    await add(bolt.id, { ...TX_GA, origin: { state: 'TX' }, routing_guide_tier: 4 });
    await add(cargo.id, { origin: { state: 'CA' }, destination: { state: 'NV' } });
    const list = async (query: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/carriers?${query}`, headers: h });
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
      return res.json();
    };
    const names = async (query: string) =>
      (await list(query)).data.map((c: { name: string }) => c.name).sort();
    return { acme, bolt, cargo, laneId: lanePref.lane_id, list, names };
  }

  it('searches name, MC and DOT', async () => {
    const f = await fixture();
    expect(await f.names('search=acme')).toEqual(['Acme Freight']);
    expect(await f.names('search=LOGIST')).toEqual(['Bolt Logistics']);
    expect(await f.names('search=MC-700002')).toEqual(['Bolt Logistics']);
    expect(await f.names('search=800001')).toEqual(['Acme Freight']);
    expect(await f.names('search=100%25')).toEqual([]);
  });

  it('filters by is_active, compliance_status, equipment_type and routing_guide_tier', async () => {
    const f = await fixture();
    expect(await f.names('is_active=false')).toEqual(['Cargo Kings']);
    expect(await f.names('is_active=true&equipment_type=VAN')).toEqual(['Acme Freight', 'Bolt Logistics']);
    expect(await f.names('equipment_type=FLATBED,REEFER')).toEqual(['Bolt Logistics', 'Cargo Kings']);
    expect(await f.names('equipment_type=FLATBED&equipment_type=REEFER')).toEqual([
      'Bolt Logistics',
      'Cargo Kings',
    ]);
    expect(await f.names('routing_guide_tier=1,3')).toEqual(['Acme Freight', 'Bolt Logistics']);
    expect(await f.names('compliance_status=UNVERIFIED&routing_guide_tier=1')).toEqual(['Bolt Logistics']);
  });

  it('fills the lane tier and the effective tier under a lane filter', async () => {
    const f = await fixture();
    const byLane = await f.list(`lane_id=${f.laneId}`);
    const tiers = Object.fromEntries(
      byLane.data.map(
        (c: {
          name: string;
          lane_routing_guide_tier: number;
          effective_routing_guide_tier: number;
          routing_guide_tier: number;
        }) => [c.name, [c.routing_guide_tier, c.lane_routing_guide_tier, c.effective_routing_guide_tier]],
      ),
    );
    expect(tiers).toEqual({ 'Acme Freight': [3, 1, 1], 'Bolt Logistics': [1, 2, 2] });
    // By states: Bolt holds tier 2 (Dallas) and tier 4 (any TX city): the strongest is 2.
    const byStates = await f.list('origin_state=tx&destination_state=GA&order_by=name&order_desc=false');
    expect(
      byStates.data.map((c: { name: string; lane_routing_guide_tier: number }) => [
        c.name,
        c.lane_routing_guide_tier,
      ]),
    ).toEqual([
      ['Acme Freight', 1],
      ['Bolt Logistics', 2],
    ]);
    const unfiltered = await f.list('search=acme');
    expect(unfiltered.data[0]).toMatchObject({
      lane_routing_guide_tier: null,
      effective_routing_guide_tier: 3,
    });
  });

  it('sorts by the allowed fields both ways and pages', async () => {
    const f = await fixture();
    const asc = await f.list('order_by=name&order_desc=false');
    expect(asc.data.map((c: { name: string }) => c.name)).toEqual([
      'Acme Freight',
      'Bolt Logistics',
      'Cargo Kings',
    ]);
    const desc = await f.list('order_by=name&order_desc=true');
    expect(desc.data.map((c: { name: string }) => c.name)).toEqual([
      'Cargo Kings',
      'Bolt Logistics',
      'Acme Freight',
    ]);
    const byTier = await f.list('order_by=routing_guide_tier&order_desc=false');
    expect(byTier.data.map((c: { routing_guide_tier: number | null }) => c.routing_guide_tier)).toEqual([
      1,
      3,
      null,
    ]);
    const page2 = await f.list('order_by=name&order_desc=false&page=2&page_size=2');
    expect(page2.data.map((c: { name: string }) => c.name)).toEqual(['Cargo Kings']);
    expect(page2.pagination).toEqual({
      page: 2,
      page_size: 2,
      total_count: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
  });

  it('refuses unknown sort fields and bad filter values with 422 naming the parameter', async () => {
    const { user } = await createTenant(t);
    for (const [query, param] of [
      ['order_by=mc_number', 'order_by'],
      ['compliance_status=GREEN', 'compliance_status'],
      ['routing_guide_tier=9', 'routing_guide_tier'],
      ['is_active=maybe', 'is_active'],
      ['page_size=101', 'page_size'],
      ['origin_state=T3', 'origin_state'],
    ]) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/carriers?${query}`,
        headers: user.headers,
      });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error.param, query).toBe(param);
    }
  });
});
