import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier, registryFile } from '../helpers/carrier-factories.js';
import { createTenant } from '../helpers/factories.js';

const TX_GA = { origin: { state: 'TX' }, destination: { state: 'GA' } };

describe('GET /carriers/{id}/lane-preferences/{preference_id}/audit-log', () => {
  const t = useTestApp({ env: { COMPLIANCE_REGISTRY_FILE: registryFile([]) } });
  const auditLog = (carrierId: string, preferenceId: string, headers: Record<string, string>) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${carrierId}/lane-preferences/${preferenceId}/audit-log`,
      headers,
    });

  it('answers 404 for an unknown preference id, a preference of another carrier, and another organization', async () => {
    const { user } = await createTenant(t);
    const a = await createCarrier(t, user.headers);
    const b = await createCarrier(t, user.headers);
    const pref = (
      await t.app.inject({
        method: 'POST',
        url: `/api/v1/carriers/${b.id}/lane-preferences`,
        headers: user.headers,
        payload: TX_GA,
      })
    ).json();
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${b.id}/lane-preferences/${pref.id}/restrict`,
      headers: user.headers,
      payload: { reason: 'compliance' },
    });

    const unknown = await auditLog(a.id, 'lp_00000000-0000-7000-8000-000000000000', user.headers);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toEqual({
      code: 'not_found',
      message: "Lane preference 'lp_00000000-0000-7000-8000-000000000000' not found",
      param: 'preference_id',
    });

    const otherCarrier = await auditLog(a.id, pref.id, user.headers);
    expect(otherCarrier.statusCode).toBe(404);
    expect(otherCarrier.json().error.param).toBe('preference_id');

    const outsider = await createTenant(t);
    expect((await auditLog(b.id, pref.id, outsider.user.headers)).statusCode).toBe(404);

    const own = await auditLog(b.id, pref.id, user.headers);
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toEqual([expect.objectContaining({ action: 'restrict', reason: 'compliance' })]);
  });

  it("does not show a carrier's own audit rows through a preference path that names the carrier id", async () => {
    const { user } = await createTenant(t);
    const c = await createCarrier(t, user.headers);
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${c.id}/disable`,
      headers: user.headers,
      payload: { reason: 'compliance' },
    });
    const res = await auditLog(c.id, c.id, user.headers);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_id_format', param: 'preference_id' });
  });
});
