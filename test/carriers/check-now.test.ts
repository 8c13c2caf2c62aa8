import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createTenant, createUser } from '../helpers/factories.js';

describe('POST /carriers/{id}/compliance-checks', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('checks the carrier at once for an OWNER, answers the stored check, and refuses a MEMBER and an unknown carrier', async () => {
    const { user, orgId } = await createTenant(t);
    const carrier = await createCarrier(t, user.headers, { mc_number: '612345' });
    const before = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${carrier.id}/compliance-checks`,
      headers: user.headers,
    });
    const run = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/compliance-checks`,
      headers: user.headers,
    });
    expect(run.statusCode, run.body).toBe(201);
    expect(['PASSED', 'BLOCKED', 'UNVERIFIED']).toContain(run.json().verdict);
    const after = await t.app.inject({
      method: 'GET',
      url: `/api/v1/carriers/${carrier.id}/compliance-checks`,
      headers: user.headers,
    });
    expect(after.json().data.length).toBe(before.json().data.length + 1);
    expect(after.json().data[0].id).toBe(run.json().id);

    const member = await createUser(t, orgId, 'MEMBER');
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/v1/carriers/${carrier.id}/compliance-checks`,
      headers: member.headers,
    });
    expect(refused.statusCode).toBe(403);
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/v1/carriers/car_00000000-0000-7000-8000-000000000000/compliance-checks',
      headers: user.headers,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.param).toBe('carrier_id');
  });

  it('names the roles of each operation in the OpenAPI document (x-envoy-roles)', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(doc.statusCode).toBe(200);
    const paths = doc.json().paths;
    expect(paths['/api/v1/carriers/{carrier_id}/compliance-checks'].post['x-envoy-roles']).toEqual([
      'OWNER',
      'ADMIN',
    ]);
    expect(paths['/api/v1/carriers'].get['x-envoy-roles']).toEqual(['OWNER', 'ADMIN', 'MEMBER']);
  });
});
