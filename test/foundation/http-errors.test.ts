import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../src/db/client.js';
import { access } from '../../src/http/access.js';
import { pageQuery } from '../../src/http/page-query.js';
import { errorResponses, int32, text } from '../../src/http/schemas.js';
import { useTestApp } from '../helpers/app.js';

// Probe routes that exercise the shared HTTP layer the way a resource route does.
const probes: FastifyPluginAsyncZod<{ database: Database }> = async (app, { database }) => {
  app.post(
    '/probe/items',
    {
      config: { access: access.public },
      schema: {
        body: z.object({
          name: text(50),
          count: int32().optional(),
          lines: z
            .array(z.object({ sku: text(20) }))
            .max(3)
            .optional(),
        }),
        response: { 201: z.object({ name: z.string(), at: z.date() }), ...errorResponses(422) },
      },
    },
    async (request, reply) =>
      reply.status(201).send({ name: request.body.name, at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) }),
  );
  app.get(
    '/probe/list',
    { config: { access: access.public }, schema: { querystring: pageQuery() } },
    async (request) => request.query,
  );
  app.get('/probe/explode', { config: { access: access.public } }, async () => {
    throw new Error('relation "secret_table" does not exist at SELECT password FROM users');
  });
  app.get('/probe/query', { config: { access: access.public } }, async () => {
    await database.pool.query('SELECT 1');
    return { ok: true };
  });
};

describe('the shared HTTP layer', () => {
  const t = useTestApp({
    captureLogs: true,
    extend: (app, { database }) => void app.register(probes, { prefix: '/api/v1', database }),
  });

  it('answers an unknown route with 404 and the error body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-thing?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.json()).toEqual({
      error: { code: 'not_found', message: 'Route GET /api/v1/no-such-thing not found', param: null },
    });
  });

  it('turns malformed JSON into a 422 validation_error on the body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error).toEqual({ code: 'validation_error', message: 'Body is not valid JSON', param: null });
    expect(body.detail).toEqual([{ loc: ['body'], msg: 'Body is not valid JSON', type: 'json_invalid' }]);
  });

  it('names a missing required field in param and detail', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/probe/items', payload: { count: 2 } });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error.code).toBe('validation_error');
    expect(body.error.param).toBe('name');
    expect(body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
  });

  it('names a wrong type with its input', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/probe/items', payload: { name: 42 } });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error.param).toBe('name');
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_type', input: 42 });
  });

  it('names a nested list item as a path from the body root', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      payload: { name: 'a', lines: [{ sku: 'ok' }, { sku: 'x'.repeat(21) }] },
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.error.param).toBe('lines[1].sku');
    expect(body.detail[0]).toMatchObject({
      loc: ['body', 'lines', 1, 'sku'],
      type: 'too_big',
      ctx: { maximum: 20 },
    });
  });

  it('refuses a NUL character and an integer beyond 32 bits with 422, not 500', async () => {
    const nul = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      payload: { name: 'a\u0000b' },
    });
    expect(nul.statusCode).toBe(422);
    expect(nul.json().error.param).toBe('name');
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      payload: { name: 'a', count: 2 ** 31 },
    });
    expect(big.statusCode).toBe(422);
    expect(big.json().error.param).toBe('count');
  });

  it('renders datetimes as ISO 8601 UTC with milliseconds', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/probe/items', payload: { name: 'a' } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ name: 'a', at: '2026-01-02T03:04:05.000Z' });
  });

  it('validates the query string with the pagination helper', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/probe/list' });
    expect(ok.json()).toEqual({ page: 1, page_size: 20 });
    for (const [query, param] of [
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/probe/list?${query}` });
      expect(res.statusCode, query).toBe(422);
      expect(res.json().error.param, query).toBe(param);
      expect(res.json().detail[0].loc, query).toEqual(['query', param]);
    }
  });

  it('answers an oversized body with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      payload: { name: 'x'.repeat(1024 * 1024 + 10) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/probe/items',
      headers: { 'content-type': 'application/xml' },
      payload: '<name>x</name>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
  });

  it('hides the cause of a 500 from the client and logs it with the request id', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/probe/explode',
      headers: { 'x-request-id': 'req-explode-1' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      error: {
        code: 'internal_error',
        message: 'An unexpected error occurred; it has been logged',
        param: null,
      },
    });
    expect(res.body).not.toMatch(/secret_table|password|stack/);
    expect(res.headers['x-request-id']).toBe('req-explode-1');
    const logged = t.logs.find((l) => l.reqId === 'req-explode-1' && l.level === 50);
    expect(logged?.msg).toBe('request failed');
  });

  it('generates a request id when none is sent, and refuses unsafe ones', async () => {
    const generated = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'a b\u0001' },
    });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('a dropped database connection', () => {
  const t = useTestApp({
    // Nothing listens on port 9: every connection attempt fails at once.
    databaseUrl: 'postgres://nobody@127.0.0.1:9/none',
    extend: (app, { database }) => void app.register(probes, { prefix: '/api/v1', database }),
  });

  it('makes /readyz answer 503 while /healthz stays 200', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
  });

  it('fails a request that needs the database with 503 instead of crashing', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/probe/query' });
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toEqual({
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable; retry shortly',
      param: null,
    });
  });
});
