import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';

const TX_GA = { origin: { state: 'TX' }, destination: { state: 'GA' } };

// PATCH /carriers/{carrier_id}/lane-preferences/{preference_id}: the is_active switch, audited.
describe('PATCH /carriers/{id}/lane-preferences/{preference_id}', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registryFile([]) } });
  const url = (carrierId: string, preferenceId: string) =>
    `/api/v1/carriers/${carrierId}/lane-preferences/${preferenceId}`;
  const setup = async () => {
    const tenant = await createTenant(t);
    const carrier = await createCarrier(t, tenant.user.headers);
    const pref = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/lane-preferences`,
      headers: tenant.user.headers,
      payload: TX_GA,
    });
    expect(pref.statusCode, pref.body).toBe(201);
    return { ...tenant, carrierId: carrier.id, pref: pref.json() };
  };
  const auditOf = async (carrierId: string, prefId: string, headers: Record<string, string>) =>
    (await t.app.inject({ method: 'GET', url: `${url(carrierId, prefId)}/audit-log`, headers })).json().data;

  it('switches is_active off and on, each change with its audit row; the current value changes nothing', async () => {
    const { user, carrierId, pref } = await setup();
    expect(pref).toMatchObject({ is_active: true, preference_type: 'primary', dnu: false });
    const off = await t.app.inject({
      method: 'PATCH',
      url: url(carrierId, pref.id),
      headers: user.headers,
      payload: { is_active: false, reason: 'other', reason_note: 'Driver moved off the lane' },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({
      id: pref.id,
      is_active: false,
      preference_type: 'primary',
      dnu: false,
    });
    expect(Date.parse(off.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(pref.updated_at));

    const list = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${carrierId}/lane-preferences?is_active=false`,
      headers: user.headers,
    });
    expect(list.json().data.map((p: { id: string }) => p.id)).toEqual([pref.id]);

    const repeat = await t.app.inject({
      method: 'PATCH',
      url: url(carrierId, pref.id),
      headers: user.headers,
      payload: { is_active: false },
    });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toEqual(off.json());

    const on = await t.app.inject({
      method: 'PATCH',
      url: url(carrierId, pref.id),
      headers: user.headers,
      payload: { is_active: true },
    });
    expect(on.json().is_active).toBe(true);

    const audit = await auditOf(carrierId, pref.id, user.headers);
    expect(audit).toHaveLength(2);
    // Oldest first.
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'deactivate',
        reason: 'other',
        reason_note: 'Driver moved off the lane',
        before: { is_active: true },
        after: { is_active: false },
        actor_id: user.id,
      }),
      expect.objectContaining({
        action: 'activate',
        reason: null,
        before: { is_active: false },
        after: { is_active: true },
      }),
    ]);
  });

  it('validates the body, and refuses MEMBERs, API keys and other organizations', async () => {
    const { user, orgId, carrierId, pref } = await setup();
    for (const [payload, param] of [
      [{}, 'is_active'],
      [{ is_active: 'no' }, 'is_active'],
      [{ is_active: false, reason: 'other' }, 'reason_note'],
      [{ is_active: false, reason: 'because' }, 'reason'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: url(carrierId, pref.id),
        headers: user.headers,
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'validation_error', param });
    }
    const member = await createUser(t, orgId, 'MEMBER');
    const key = await createApiKey(t, user.headers);
    for (const headers of [member.headers, key.headers]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: url(carrierId, pref.id),
        headers,
        payload: { is_active: false },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('insufficient_permissions');
    }
    const outsider = await createTenant(t);
    const foreign = await t.app.inject({
      method: 'PATCH',
      url: url(carrierId, pref.id),
      headers: outsider.user.headers,
      payload: { is_active: false },
    });
    expect(foreign.statusCode).toBe(404);
    const wrongKind = await t.app.inject({
      method: 'PATCH',
      url: url(carrierId, carrierId),
      headers: user.headers,
      payload: { is_active: false },
    });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().error).toMatchObject({ code: 'invalid_id_format', param: 'preference_id' });
    expect(await auditOf(carrierId, pref.id, user.headers)).toEqual([]);
  });
});
