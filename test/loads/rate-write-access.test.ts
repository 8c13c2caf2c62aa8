import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createOrg, createUser, type TestUser } from '../helpers/factories.js';
import { createLoad, loadPayload } from '../helpers/load-factories.js';

// docs/decisions/0013-tenancy-and-rates-by-role.md (rates by role): customer_rate and margin are written only by those who may read them.
describe('customer_rate and margin on load writes', () => {
  const t = useTestApp();
  let orgId: string;
  let owner: TestUser;
  let admin: TestUser;
  let member: TestUser;
  let keyHeaders: Record<string, string>;

  beforeAll(async () => {
    orgId = await createOrg(t);
    owner = await createUser(t, orgId, 'OWNER');
    admin = await createUser(t, orgId, 'ADMIN');
    member = await createUser(t, orgId, 'MEMBER');
    keyHeaders = (await createApiKey(t, owner.headers)).headers;
  });

  const post = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/loads', headers, payload });
  const batch = (headers: Record<string, string>, loads: Record<string, unknown>[]) =>
    t.app.inject({ method: 'POST', url: '/api/v1/loads/batch', headers, payload: { loads } });
  const ratesOf = async (id: string) => {
    const load = (
      await t.app.inject({ method: 'GET', url: `/api/v1/loads/${id}`, headers: keyHeaders })
    ).json();
    return { customer_rate: load.customer_rate, margin: load.margin, notes: load.notes };
  };

  it("refuses a MEMBER's POST /loads that changes customer_rate or margin of an existing load (403, param names the field)", async () => {
    const id = await createLoad(t, keyHeaders, { load_number: 'RATE-1', customer_rate: 2400, margin: 300 });
    for (const [field, value] of [
      ['customer_rate', 1],
      ['margin', 5],
      ['customer_rate', null],
      ['margin', null],
    ] as const) {
      const res = await post(member.headers, {
        load_number: 'RATE-1',
        equipment_type: 'VAN',
        [field]: value,
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual({
        error: {
          code: 'insufficient_permissions',
          message: `${field}: only API keys, OWNERs and ADMINs may set it`,
          param: field,
        },
      });
    }
    expect(await ratesOf(id)).toEqual({ customer_rate: 2400, margin: 300, notes: null });
  });

  it('writes nothing of a refused load: the other fields sent with the rate are not applied either', async () => {
    const id = await createLoad(t, keyHeaders, { load_number: 'RATE-2', customer_rate: 1000 });
    const res = await post(member.headers, {
      load_number: 'RATE-2',
      equipment_type: 'VAN',
      notes: 'x',
      margin: 9,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.param).toBe('margin');
    expect(await ratesOf(id)).toEqual({ customer_rate: 1000, margin: null, notes: null });
  });

  it('refuses a MEMBER who creates a load with a rate, and creates none', async () => {
    const res = await post(member.headers, loadPayload({ load_number: 'RATE-NEW', customer_rate: 1 }));
    expect(res.statusCode).toBe(403);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads?search=RATE-NEW',
      headers: keyHeaders,
    });
    expect(list.json().pagination.total_count).toBe(0);
  });

  it('lets a MEMBER update the rest of a load when both rate fields are left out', async () => {
    const id = await createLoad(t, keyHeaders, { load_number: 'RATE-3', customer_rate: 2000, margin: 250 });
    const res = await post(member.headers, {
      load_number: 'RATE-3',
      equipment_type: 'VAN',
      notes: 'called shipper',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await ratesOf(id)).toEqual({ customer_rate: 2000, margin: 250, notes: 'called shipper' });
  });

  it('lets API keys, OWNERs and ADMINs set both fields', async () => {
    const id = await createLoad(t, keyHeaders, { load_number: 'RATE-4' });
    for (const [headers, rate] of [
      [keyHeaders, 10],
      [owner.headers, 20],
      [admin.headers, 30],
    ] as const) {
      const res = await post(headers, {
        load_number: 'RATE-4',
        equipment_type: 'VAN',
        customer_rate: rate,
        margin: rate,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await ratesOf(id)).toMatchObject({ customer_rate: rate, margin: rate });
    }
  });

  it("fails only a MEMBER's batch items that carry a rate, with error_code forbidden and the item's path", async () => {
    const id = await createLoad(t, keyHeaders, { load_number: 'RATE-5', customer_rate: 500, margin: 50 });
    const res = await batch(member.headers, [
      { load_number: 'RATE-5', equipment_type: 'VAN', notes: 'fine' },
      { load_number: 'RATE-5B', equipment_type: 'VAN', margin: 1 },
      loadPayload({ load_number: 'RATE-5C' }),
      { load_number: 'RATE-5', equipment_type: 'VAN', customer_rate: 1 },
    ]);
    expect(res.statusCode, res.body).toBe(207);
    const body = res.json();
    expect(body.errors).toEqual([
      {
        index: 1,
        code: 'insufficient_permissions',
        param: 'loads[1].margin',
        message: 'loads[1].margin: only API keys, OWNERs and ADMINs may set it',
      },
      {
        index: 3,
        code: 'insufficient_permissions',
        param: 'loads[3].customer_rate',
        message: 'loads[3].customer_rate: only API keys, OWNERs and ADMINs may set it',
      },
    ]);
    expect(body.results.map((r: { error_code: string | null }) => r.error_code)).toEqual([
      null,
      'insufficient_permissions',
      null,
      'insufficient_permissions',
    ]);
    expect(body.summary).toMatchObject({ created: 1, updated: 1, failed: 2 });
    expect(await ratesOf(id)).toEqual({ customer_rate: 500, margin: 50, notes: 'fine' });
  });

  it('applies the same batch in full for an API key', async () => {
    const res = await batch(keyHeaders, [
      { load_number: 'RATE-5', equipment_type: 'VAN', customer_rate: 1 },
      loadPayload({ load_number: 'RATE-6', margin: 2 }),
    ]);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('documents the rule on both write operations in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/loads'].post.description).toMatch(
      /MEMBER who sends either .* 403 `insufficient_permissions`/,
    );
    expect(doc.paths['/api/v1/loads/batch'].post.description).toMatch(/`loads\[3\]\.customer_rate`/);
  });
});
