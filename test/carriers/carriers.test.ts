import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, goodStanding, postCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';

const registry = registryFile([goodStanding('12345', '777001'), goodStanding('55501', '777002')]);

describe('POST /carriers', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry, WORKER_POLL_MS: '100' } });

  it('creates a carrier with normalised MC, DOT and phones, its contacts, and a compliance verdict', async () => {
    const { orgId, user } = await createTenant(t);
    const res = await postCarrier(t, user.headers, {
      name: 'Blue Line Freight',
      mc_number: 'MC-012345',
      dot_number: '0777001',
      phone: '(415) 555-2671',
      email: 'Dispatch@BlueLine.example',
      equipment_types: ['VAN', 'REEFER'],
      on_time_pickup_pct: 97.5,
      contacts: [{ contact_type: 'DISPATCHER', name: 'Ana', phone: '415.555.2672' }],
      unknown_field: 'ignored',
    });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toMatchObject({
      id: expect.stringMatching(/^car_/),
      organization_id: orgId,
      name: 'Blue Line Freight',
      mc_number: '12345',
      dot_number: '777001',
      phone: '+14155552671',
      email: 'dispatch@blueline.example',
      equipment_types: ['VAN', 'REEFER'],
      on_time_pickup_pct: 97.5,
      is_active: true,
      is_onboarded: false,
      ingestion_method: 'api',
      compliance_status: 'PASSED',
      is_verified: true,
      last_verified_provider: 'registry',
      authorized_for_hire: true,
      routing_guide_tier: null,
      effective_routing_guide_tier: null,
      lane_routing_guide_tier: null,
    });
    expect(c.contacts).toEqual([
      {
        id: expect.stringMatching(/^con_/),
        contact_type: 'DISPATCHER',
        name: 'Ana',
        phone: '+14155552672',
        email: null,
        equipment_type: null,
      },
    ]);
    expect(c).not.toHaveProperty('unknown_field');
    expect(Date.parse(c.verified_date)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('matches tms_carrier_id before MC before DOT before name, and answers 200 on an update', async () => {
    const { user } = await createTenant(t);
    const byTms = await createCarrier(t, user.headers, { name: 'Alpha', tms_carrier_id: 'T-1' });
    const byMc = await createCarrier(t, user.headers, { name: 'Bravo', mc_number: '900001' });
    const byDot = await createCarrier(t, user.headers, { name: 'Charlie', dot_number: '800001' });
    const byName = await createCarrier(t, user.headers, { name: 'Zulu Hauling' });

    // Every identifier names a different carrier: the tms id wins.
    const tmsWins = await postCarrier(t, user.headers, {
      name: 'Delta Hauling',
      tms_carrier_id: 'T-1',
      tms_status: 'ACTIVE',
    });
    expect(tmsWins.statusCode).toBe(200);
    expect(tmsWins.json()).toMatchObject({ id: byTms.id, name: 'Delta Hauling', tms_status: 'ACTIVE' });

    const mcWins = await postCarrier(t, user.headers, {
      name: 'Charlie',
      mc_number: 'MC 900001',
      tms_status: 'X',
    });
    expect(mcWins.statusCode).toBe(200);
    expect(mcWins.json().id).toBe(byMc.id);

    const dotWins = await postCarrier(t, user.headers, { name: 'delta hauling', dot_number: '800001' });
    expect(dotWins.json().id).toBe(byDot.id);

    const nameWins = await postCarrier(t, user.headers, { name: 'ZULU HAULING', total_loads_hauled: 12 });
    expect(nameWins.statusCode).toBe(200);
    expect(nameWins.json()).toMatchObject({ id: byName.id, total_loads_hauled: 12 });
  });

  it('keeps omitted fields on an update and lets the latest tms_status win', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, {
      name: 'Echo',
      mc_number: '900100',
      email: 'a@echo.example',
      tms_status: 'A',
    });
    const res = await postCarrier(t, user.headers, { name: 'Echo', mc_number: '900100', tms_status: 'B' });
    expect(res.json()).toMatchObject({ id: c.id, email: 'a@echo.example', tms_status: 'B' });
  });

  it('creates disabled with is_active false, disables an existing one, and never re-enables', async () => {
    const { user } = await createTenant(t);
    const disabled = await createCarrier(t, user.headers, {
      name: 'Foxtrot',
      mc_number: '900200',
      is_active: false,
    });
    expect(disabled.is_active).toBe(false);
    const again = await postCarrier(t, user.headers, {
      name: 'Foxtrot',
      mc_number: '900200',
      is_active: true,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json().is_active).toBe(false);

    const active = await createCarrier(t, user.headers, { name: 'Golf', mc_number: '900300' });
    const off = await postCarrier(t, user.headers, { name: 'Golf', mc_number: '900300', is_active: false });
    expect(off.json().is_active).toBe(false);
    const audit = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${active.id}/audit-log`,
      headers: user.headers,
    });
    expect(audit.json().data).toEqual([
      expect.objectContaining({
        action: 'disable',
        before: { is_active: true },
        after: { is_active: false },
      }),
    ]);
  });

  it('refuses bad input with 422 naming the field', async () => {
    const { user } = await createTenant(t);
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: 'x', phone: 'call me maybe' }, 'phone'],
      [{ name: 'x', mc_number: 'MC-' }, 'mc_number'],
      [{ name: 'x', dot_number: '000' }, 'dot_number'],
      [{ name: 'x', on_time_pickup_pct: 101 }, 'on_time_pickup_pct'],
      [{ name: 'x', on_time_delivery_pct: -1 }, 'on_time_delivery_pct'],
      [{ name: 'x', equipment_types: ['VAN', 'SPACESHIP'] }, 'equipment_types[1]'],
      [{ name: 'x', contacts: [{ contact_type: 'BOSS' }] }, 'contacts[0].contact_type'],
      [{ name: 'x', email: 'not-an-email' }, 'email'],
      [{ name: 'x', routing_guide_tier: 5 }, 'routing_guide_tier'],
    ];
    for (const [payload, param] of cases) {
      const res = await postCarrier(t, user.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().error.param, JSON.stringify(payload)).toBe(param);
    }
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: user.headers });
    expect(list.json().pagination.total_count).toBe(0);
  });

  it('answers 409 when an identifier belongs to another carrier', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, { name: 'Hotel', mc_number: '900400' });
    const india = await createCarrier(t, user.headers, { name: 'India', tms_carrier_id: 'T-9' });
    const res = await postCarrier(t, user.headers, {
      name: 'India',
      tms_carrier_id: 'T-9',
      mc_number: '900400',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'already_exists', param: 'mc_number' });
    const unchanged = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${india.id}`,
      headers: user.headers,
    });
    expect(unchanged.json().mc_number).toBeNull();
  });

  it('accepts an API key and any signed-in role', async () => {
    const { orgId, user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const member = await createUser(t, orgId, 'MEMBER');
    expect((await postCarrier(t, key.headers, { name: 'Juliet' })).statusCode).toBe(201);
    expect((await postCarrier(t, member.headers, { name: 'Kilo' })).statusCode).toBe(201);
  });
});

describe('PATCH /carriers/{id}', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });

  it('changes only the sent fields, and replaces equipment_types', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, {
      name: 'Lima',
      email: 'l@lima.example',
      equipment_types: ['VAN'],
    });
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${c.id}`,
      headers: user.headers,
      payload: { equipment_types: ['FLATBED', 'STEPDECK'], dot_number: 'USDOT 0042' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      email: 'l@lima.example',
      equipment_types: ['FLATBED', 'STEPDECK'],
      dot_number: '42',
    });
    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${c.id}`,
      headers: user.headers,
      payload: { equipment_types: [] },
    });
    expect(cleared.json().equipment_types).toEqual([]);
  });

  it('refuses is_active with 422 field_not_updatable', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${c.id}`,
      headers: user.headers,
      payload: { is_active: false, name: 'Renamed' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'field_not_updatable', param: 'is_active' });
    const unchanged = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${c.id}`,
      headers: user.headers,
    });
    expect(unchanged.json()).toMatchObject({ name: c.name, is_active: true });
  });

  it('answers 409 naming the field when tms_carrier_id, MC or DOT belongs to another carrier', async () => {
    const { user } = await createTenant(t);
    await createCarrier(t, user.headers, {
      tms_carrier_id: 'TMS-A',
      mc_number: '910001',
      dot_number: '810001',
    });
    const other = await createCarrier(t, user.headers);
    for (const [field, value] of [
      ['tms_carrier_id', 'TMS-A'],
      ['mc_number', '910001'],
      ['dot_number', '810001'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/carriers/${other.id}`,
        headers: user.headers,
        payload: { [field]: value },
      });
      expect(res.statusCode, field).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'already_exists', param: field });
    }
  });

  it('accepts an API key and an ADMIN, refuses a MEMBER', async () => {
    const { orgId, user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const key = await createApiKey(t, user.headers);
    const admin = await createUser(t, orgId, 'ADMIN');
    const member = await createUser(t, orgId, 'MEMBER');
    const patch = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'PATCH',
        url: `/api/v1/carriers/${c.id}`,
        headers,
        payload: { tms_status: 'x' },
      });
    expect((await patch(key.headers)).statusCode).toBe(200);
    expect((await patch(admin.headers)).statusCode).toBe(200);
    expect((await patch(member.headers)).statusCode).toBe(403);
  });
});

describe('disable and enable', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });
  const post = (url: string, headers: Record<string, string>, payload?: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url, headers, ...(payload ? { payload } : {}) });
  const audit = async (id: string, headers: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${id}/audit-log`, headers })).json().data;

  it('disables with a reason and an audit row, and a repeat writes nothing', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const first = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, {
      reason: 'service_quality',
      reason_note: 'late twice',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().is_active).toBe(false);
    const repeat = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, { reason: 'compliance' });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().is_active).toBe(false);
    const rows = await audit(c.id, user.headers);
    expect(rows).toEqual([
      expect.objectContaining({
        action: 'disable',
        reason: 'service_quality',
        reason_note: 'late twice',
        actor_type: 'user',
        actor_id: user.id,
      }),
    ]);
  });

  it('enables without a reason, audited once; enabling an active carrier changes nothing', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers, { is_active: false });
    const on = await post(`/api/v1/carriers/${c.id}/enable`, user.headers);
    expect(on.statusCode).toBe(200);
    expect(on.json().is_active).toBe(true);
    const again = await post(`/api/v1/carriers/${c.id}/enable`, user.headers, {});
    expect(again.json().is_active).toBe(true);
    expect((await audit(c.id, user.headers)).map((r: { action: string }) => r.action)).toEqual(['enable']);
  });

  it('requires reason_note when the reason is other, and a known reason', async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const missing = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, { reason: 'other' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().error.param).toBe('reason_note');
    const unknown = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, { reason: 'vibes' });
    expect(unknown.json().error.param).toBe('reason');
    const none = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, {});
    expect(none.json().error.param).toBe('reason');
    const ok = await post(`/api/v1/carriers/${c.id}/disable`, user.headers, {
      reason: 'other',
      reason_note: 'asked',
    });
    expect(ok.statusCode).toBe(200);
  });

  it('needs a bearer OWNER or ADMIN', async () => {
    const { orgId, user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    const key = await createApiKey(t, user.headers);
    const member = await createUser(t, orgId, 'MEMBER');
    expect(
      (await post(`/api/v1/carriers/${c.id}/disable`, key.headers, { reason: 'compliance' })).statusCode,
    ).toBe(403);
    expect(
      (await post(`/api/v1/carriers/${c.id}/disable`, member.headers, { reason: 'compliance' })).statusCode,
    ).toBe(403);
  });

  it('answers 404 for another organization’s carrier', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const foreign = await createCarrier(t, b.user.headers);
    for (const url of [`/api/v1/carriers/${foreign.id}/disable`, `/api/v1/carriers/${foreign.id}/enable`]) {
      const res = await post(url, a.user.headers, { reason: 'compliance' });
      expect(res.statusCode).toBe(404);
    }
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${foreign.id}`, headers: a.user.headers }))
        .statusCode,
    ).toBe(404);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/carriers/${foreign.id}`,
      headers: a.user.headers,
      payload: { name: 'x' },
    });
    expect(patched.statusCode).toBe(404);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/carriers', headers: a.user.headers });
    expect(list.json().data).toEqual([]);
  });
});

describe('stop contact', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registry } });

  it('stamps once, and only an OWNER or ADMIN clears it, audited', async () => {
    const { orgId, user } = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const member = await createUser(t, orgId, 'MEMBER');
    const c = await createCarrier(t, user.headers);
    const first = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${c.id}/stop-contact`,
      headers: key.headers,
    });
    expect(first.statusCode).toBe(200);
    const stamped = first.json().stop_contact_requested_at;
    expect(stamped).toMatch(/Z$/);
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${c.id}/stop-contact`,
      headers: member.headers,
    });
    expect(again.json().stop_contact_requested_at).toBe(stamped);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/v1/carriers/${c.id}/stop-contact`,
          headers: member.headers,
        })
      ).statusCode,
    ).toBe(403);
    const cleared = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/carriers/${c.id}/stop-contact`,
      headers: user.headers,
    });
    expect(cleared.json().stop_contact_requested_at).toBeNull();
    const rows = (
      await t.app.inject({ method: 'GET', url: `/api/v1/carriers/${c.id}/audit-log`, headers: user.headers })
    ).json().data;
    // The first stamp is audited (a repeat is not), and so is the clearing.
    expect(rows.map((r: { action: string }) => r.action)).toEqual([
      'stop_contact_requested',
      'stop_contact_cleared',
    ]);
  });
});
