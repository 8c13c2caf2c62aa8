import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { createLoad } from '../helpers/load-factories.js';

describe('query parameters an operation does not declare', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  const tenant = async () => {
    const { user } = await createTenant(t);
    return createApiKey(t, user.headers);
  };

  it('refuses a typo in a list filter instead of answering every load, and suggests the parameter', async () => {
    const key = await tenant();
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/loads?statsu=Created',
      headers: key.headers,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: {
        code: 'validation_error',
        message: "statsu: Unknown query parameter 'statsu'; did you mean 'status'?",
        param: 'statsu',
      },
      detail: [
        {
          loc: ['query', 'statsu'],
          msg: "Unknown query parameter 'statsu'; did you mean 'status'?",
          type: 'extra_forbidden',
          input: 'statsu',
        },
      ],
    });
  });

  it('refuses one on an operation with a body, before the body is looked at', async () => {
    const key = await tenant();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers?dry_run=true',
      headers: key.headers,
      payload: { load_id: 'load_x', offer_amount: 100 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'validation_error', param: 'dry_run' });
  });

  it('refuses one on an operation with path parameters and no query of its own', async () => {
    const key = await tenant();
    const loadId = await createLoad(t, key.headers);
    const ok = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${loadId}`, headers: key.headers });
    expect(ok.statusCode).toBe(200);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/loads/${loadId}?expand=stops`,
      headers: key.headers,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toEqual({
      code: 'validation_error',
      message: "expand: Unknown query parameter 'expand'; this operation takes none",
      param: 'expand',
    });
  });

  it('still refuses an unknown parameter after authentication says who is calling', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads?statsu=Created' });
    expect(res.statusCode).toBe(401);
  });

  it('lets health probes and the providers’ callbacks carry whatever their caller adds', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz?probe=lb-1' })).statusCode).toBe(200);
    // The WhatsApp handshake is not configured here: 404, not a 422 for Meta's own parameters.
    const meta = await t.app.inject({
      method: 'GET',
      url: '/api/v1/integrations/whatsapp/webhook?hub.mode=x&extra=1',
    });
    expect(meta.statusCode).toBe(404);
  });

  it('documents the 422 on every operation that refuses them', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/loads/{load_id}'].get.responses['422']).toBeDefined();
    expect(doc.paths['/api/v1/loads'].get.responses['422']).toBeDefined();
  });
});
