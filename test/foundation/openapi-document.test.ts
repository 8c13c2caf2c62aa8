import { randomBytes } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

// biome-ignore lint/suspicious/noExplicitAny: the test walks an arbitrary JSON document
type Json = Record<string, any>;

/**
 * Transport headers every HTTP response has, and the CORS protocol's (`Vary: Origin` and the
 * `Access-Control-*` answers): OpenAPI does not describe them per response.
 */
const TRANSPORT = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
  // The same on every response, for browsers and caches rather than API clients
  // (docs/reliability-and-security.md lists them); not declared per operation.
  'cache-control',
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolve(doc: Json, node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, part: string) => at[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function declaredHeaders(doc: Json, method: string, path: string, status: number): Set<string> {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path} is documented`).toBeDefined();
  const response = operation.responses[String(status)];
  expect(response, `${method} ${path} documents ${status}`).toBeDefined();
  return new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
}

describe('the OpenAPI document', () => {
  const t = useTestApp({ env: { RATE_LIMIT_UPLOADS_PER_MINUTE: '1' } });
  let doc: Json;

  beforeAll(async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });

  it('is valid OpenAPI 3.1 for the schema validator', async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares X-Organization-ID (but on the health probes), a summary, a description and a declared tag on every operation', () => {
    const tags = new Set(doc.tags.map((tag: Json) => tag.name));
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
    let count = 0;
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        count++;
        const where = `${method.toUpperCase()} ${path}`;
        const params = (op.parameters ?? []).map((p: Json) => resolve(doc, p));
        const org = params.find((p: Json) => p.name.toLowerCase() === 'x-organization-id');
        if (path === '/healthz' || path === '/readyz') expect(org, where).toBeUndefined();
        else expect(org, where).toMatchObject({ in: 'header', required: false });
        expect(op.summary, where).toBeTruthy();
        expect(op.description, where).toBeTruthy();
        expect(op.tags?.length, where).toBeGreaterThan(0);
        for (const tag of op.tags) expect(tags.has(tag), `${where}: tag ${tag}`).toBe(true);
      }
    }
    expect(count).toBeGreaterThan(70);
  });

  it('names every JSON request body and keeps only components something refers to', () => {
    const text = JSON.stringify(doc);
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const method of METHODS) {
        const json = item[method]?.requestBody?.content?.['application/json'];
        if (json) expect(json.schema.$ref, `${method} ${path}`).toMatch(/^#\/components\/schemas\/[A-Z]/);
      }
    }
    for (const name of Object.keys(doc.components.schemas)) {
      expect(text.includes(`"#/components/schemas/${name}"`), name).toBe(true);
    }
    const batch = doc.components.schemas.CarrierBatchRequest.properties.carriers;
    expect(batch).toMatchObject({ maxItems: 1000, items: { $ref: '#/components/schemas/CarrierBatchItem' } });
    expect(doc.paths['/api/v1/carriers/batch'].post.requestBody.content['text/csv'].schema.type).toBe(
      'string',
    );
    expect(doc.components.schemas.LoadBatchRequest.properties.loads.items.$ref).toBe(
      '#/components/schemas/LoadInput',
    );
    const status = doc.paths['/api/v1/loads'].get.parameters.find((p: Json) => p.name === 'status');
    expect(status.schema).toMatchObject({
      type: 'array',
      items: { enum: expect.arrayContaining(['Created']) },
    });
  });

  it('declares, for a sample of operations, every header the server actually sends', async () => {
    const { user } = await createTenant(t);
    const other = await createTenant(t);
    const key = await createApiKey(t, user.headers);
    const idem = { ...key.headers, 'idempotency-key': `openapi-${randomBytes(4).toString('hex')}` };
    const carrier = { name: `Headers Freight ${randomBytes(3).toString('hex')}` };
    const csv = `name,mc_number\nCsv Freight ${randomBytes(3).toString('hex')},${Date.now() % 1_000_000}\n`;
    const samples: {
      method: string;
      path: string;
      url: string;
      headers?: Json;
      payload?: string | object;
    }[] = [
      { method: 'GET', path: '/healthz', url: '/healthz' },
      {
        method: 'POST',
        path: '/api/v1/auth/login',
        url: '/api/v1/auth/login',
        payload: { email: 'x@y.z', password: 'nope-nope' },
      },
      { method: 'POST', path: '/api/v1/carriers', url: '/api/v1/carriers', headers: idem, payload: carrier },
      // The same key and body again: the stored response, replayed.
      { method: 'POST', path: '/api/v1/carriers', url: '/api/v1/carriers', headers: idem, payload: carrier },
      {
        method: 'POST',
        path: '/api/v1/carriers',
        url: '/api/v1/carriers',
        headers: key.headers,
        payload: { name: 7 },
      },
      {
        method: 'GET',
        path: '/api/v1/carriers/{carrier_id}',
        url: '/api/v1/carriers/car_nope',
        headers: key.headers,
      },
      {
        method: 'GET',
        path: '/api/v1/carriers',
        url: '/api/v1/carriers',
        headers: { 'x-api-key': 'envoy_sk_nope' },
      },
      {
        method: 'GET',
        path: '/api/v1/loads',
        url: '/api/v1/loads?status=Created&status=Dispatched',
        headers: { ...key.headers, 'x-organization-id': other.orgId },
      },
      {
        method: 'GET',
        path: '/api/v1/loads',
        url: '/api/v1/loads?status=Created,Dispatched',
        headers: key.headers,
      },
      {
        method: 'POST',
        path: '/api/v1/carriers/batch',
        url: '/api/v1/carriers/batch',
        headers: { ...key.headers, 'content-type': 'text/csv' },
        payload: csv,
      },
      // Uploads are limited to one a minute here: the second is a 429.
      {
        method: 'POST',
        path: '/api/v1/carriers/batch',
        url: '/api/v1/carriers/batch',
        headers: { ...key.headers, 'content-type': 'text/csv' },
        payload: csv,
      },
      {
        method: 'POST',
        path: '/api/v1/integrations/voice/events',
        url: '/api/v1/integrations/voice/events',
        payload: {},
      },
      { method: 'GET', path: '/api/v1/auth/me', url: '/api/v1/auth/me', headers: user.headers },
    ];

    const seen = new Set<string>();
    const statuses: number[] = [];
    for (const s of samples) {
      const res = await t.app.inject({
        method: s.method,
        url: s.url,
        headers: s.headers,
        payload: s.payload,
      });
      statuses.push(res.statusCode);
      const declared = declaredHeaders(doc, s.method, s.path, res.statusCode);
      for (const name of Object.keys(res.headers)) {
        if (TRANSPORT.has(name)) continue;
        seen.add(name);
        expect(declared.has(name), `${s.method} ${s.url} ${res.statusCode} sends ${name}`).toBe(true);
      }
    }
    expect(statuses).toEqual([200, 401, 201, 201, 422, 404, 401, 403, 200, 200, 429, 404, 200]);
    // The sample reaches every header the server adds of its own.
    expect([...seen].sort()).toEqual([
      'idempotent-replayed',
      'retry-after',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'x-request-id',
    ]);
  });
});
