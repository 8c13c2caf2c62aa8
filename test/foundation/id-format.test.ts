import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

// An id of another kind, in a path, a body or a query, is 400 invalid_id_format naming the field;
// a well-formed id that matches nothing stays a 404.
describe('ids with the wrong prefix', () => {
  const t = useTestApp();
  let headers: Record<string, string>;
  beforeAll(async () => {
    const { user } = await createTenant(t);
    headers = (await createApiKey(t, user.headers)).headers;
  });

  it('answers 400 invalid_id_format on a path parameter, and 404 on a well-formed unknown id', async () => {
    for (const [url, param, prefix] of [
      ['/api/v1/carriers/load_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15', 'carrier_id', 'car'],
      ['/api/v1/loads/car_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15', 'load_id', 'load'],
      ['/api/v1/offers/nonsense', 'offer_id', 'ofr'],
      ['/api/v1/calls/call_', 'call_id', 'call'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json();
      expect(body.error).toEqual({
        code: 'invalid_id_format',
        message: `${param}: Must be a ${prefix}_ id`,
        param,
      });
      expect(body).not.toHaveProperty('detail');
    }
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/v1/carriers/car_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15',
      headers,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });

  it('answers 400 invalid_id_format on a body field and a query filter', async () => {
    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers,
      payload: { load_id: 'car_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15', offer_amount: 1500 },
    });
    expect(offer.statusCode, offer.body).toBe(400);
    expect(offer.json().error).toMatchObject({ code: 'invalid_id_format', param: 'load_id' });

    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/offers?carrier_id=load_01920c5e-7f3a-7c4e-9b1d-2f6a8e4c0d15',
      headers,
    });
    expect(list.statusCode).toBe(400);
    expect(list.json().error).toMatchObject({ code: 'invalid_id_format', param: 'carrier_id' });
  });

  it('documents each id parameter with its pattern in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const params = doc.paths['/api/v1/loads/{load_id}'].get.parameters;
    const loadId = params.find((p: { name: string }) => p.name === 'load_id');
    expect(loadId.schema.pattern).toBe('^load_[0-9A-Za-z][0-9A-Za-z_-]*$');
  });
});
