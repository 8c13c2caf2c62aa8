import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createTenant } from '../helpers/factories.js';
import { loadPayload } from '../helpers/load-factories.js';

/** `depth` nested arrays around a number, as JSON text. */
const nestedArrays = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
/** `depth` nested objects `{"a": ...}` around a number, as JSON text. */
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const tooDeep = {
  error: {
    code: 'validation_error',
    message: 'Body nests objects and arrays deeper than 64 levels',
    param: null,
  },
  detail: [
    {
      loc: ['body'],
      msg: 'Body nests objects and arrays deeper than 64 levels',
      type: 'json_too_deep',
      ctx: { maximum: 64 },
    },
  ],
};

/** Sends raw bytes to a listening server and returns what came back before it closed. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', (err) => (answer ? resolve(answer) : reject(err)));
    socket.on('close', () => resolve(answer));
    socket.write(request);
  });
}

function parseRawResponse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

const INBOUND_SECRET = 'hostile-input-inbound-secret';

describe('hostile input keeps the error contract', () => {
  // The inbound e-mail route checks its credential before reading the body: give it one.
  const t = useTestApp({ env: { EMAIL_INBOUND_SECRET: INBOUND_SECRET } });
  let headers: Record<string, string>;

  beforeAll(async () => {
    headers = (await createTenant(t)).user.headers;
  });

  const postJson = (url: string, payload: string, extra: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/json', ...extra },
      payload,
    });

  describe('JSON nesting', () => {
    it('refuses a body nested 5,000 deep with 422 json_too_deep, also on /auth/login', async () => {
      for (const [url, body] of [
        ['/api/v1/auth/login', `{"email":${nestedArrays(5000)},"password":"x"}`],
        ['/api/v1/loads', `{"load_number":${nestedArrays(5000)}}`],
        ['/api/v1/loads', `{"context":${nestedObjects(5000)}}`],
        ['/api/v1/carriers', nestedArrays(100_000)],
      ] as const) {
        const res = await postJson(url, body);
        expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
        expect(res.json()).toEqual(tooDeep);
      }
    });

    it('draws the line at 64 levels: 64 are accepted, 65 refused', async () => {
      // The body object is level 1, so `context` may hold 63 more.
      const ok = await postJson(
        '/api/v1/loads',
        JSON.stringify(loadPayload()).replace(/}$/, `,"context":${nestedObjects(63)}}`),
      );
      expect(ok.statusCode, ok.body).toBe(201);
      const refused = await postJson(
        '/api/v1/loads',
        JSON.stringify(loadPayload()).replace(/}$/, `,"context":${nestedObjects(64)}}`),
      );
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual(tooDeep);
    });

    it('does not count brackets inside strings, escaped quotes included', async () => {
      const notes = `[[{{ "quoted [ { \\ ${'['.repeat(500)}`;
      const res = await postJson('/api/v1/loads', JSON.stringify(loadPayload({ notes })));
      expect(res.statusCode, res.body).toBe(201);
      const load = await t.app.inject({ method: 'GET', url: `/api/v1/loads/${res.json().load_id}`, headers });
      expect(load.json().notes).toBe(notes);
    });

    it('applies the same bound on the raw-body integration routes', async () => {
      const res = await postJson(
        `/api/v1/integrations/email/inbound?token=${INBOUND_SECRET}`,
        nestedArrays(70),
      );
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual(tooDeep);
    });
  });

  describe('URL-level errors', () => {
    it('answers bad percent-encoding in the path with 400 bad_request in our body', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/loads/%ff', headers });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(res.json()).toEqual({
        error: {
          code: 'bad_request',
          message: 'The URL path is not valid percent-encoded UTF-8',
          param: null,
        },
      });
    });

    it('answers a path parameter over 100 characters with 414 uri_too_long, and 100 with a plain 404', async () => {
      const long = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads/load_${'x'.repeat(96)}`,
        headers,
      });
      expect(long.statusCode).toBe(414);
      expect(long.json()).toEqual({
        error: {
          code: 'uri_too_long',
          message: 'A path parameter is longer than 100 characters',
          param: null,
        },
      });
      const limit = await t.app.inject({
        method: 'GET',
        url: `/api/v1/loads/load_${'x'.repeat(95)}`,
        headers,
      });
      expect(limit.statusCode).toBe(404);
      expect(limit.json().error.code).toBe('not_found');
    });

    it('answers an unknown method on a known path with 405 and Allow in our body (OPTIONS stays 404)', async () => {
      for (const method of ['DELETE', 'PUT', 'TRACE'] as const) {
        const res = await t.app.inject({ method, url: '/api/v1/loads', headers });
        expect(res.statusCode).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD, POST');
        expect(res.json().error).toEqual({
          code: 'method_not_allowed',
          message: `${method} is not allowed on /api/v1/loads; use GET, HEAD, POST`,
          param: null,
        });
      }
      const options = await t.app.inject({ method: 'OPTIONS', url: '/api/v1/loads', headers });
      expect(options.statusCode).toBe(404);
      expect(options.json().error.message).toBe('Route OPTIONS /api/v1/loads not found');
    });
  });

  describe('bodies', () => {
    it('refuses prototype-poisoning keys with 422 naming them, never applying them', async () => {
      for (const body of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']) {
        const res = await postJson('/api/v1/loads', body);
        expect(res.statusCode).toBe(422);
        expect(res.json().detail).toEqual([
          {
            loc: ['body'],
            msg: 'Body contains a "__proto__" or "constructor.prototype" key, which is not accepted',
            type: 'forbidden_key',
          },
        ]);
      }
    });

    it('gives invalid JSON on a raw-body route the same 422 with detail as everywhere else', async () => {
      const res = await postJson(`/api/v1/integrations/email/inbound?token=${INBOUND_SECRET}`, '{"a":');
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        error: { code: 'validation_error', message: 'Body is not valid JSON', param: null },
        detail: [{ loc: ['body'], msg: 'Body is not valid JSON', type: 'json_invalid' }],
      });
    });

    it('answers empty, null, non-object and wrongly typed bodies with 4xx in our shape', async () => {
      const cases: [string, string][] = [
        ['application/json', ''],
        ['application/json', 'null'],
        ['application/json', '"text"'],
        ['application/json', '[]'],
        ['application/json', '\u0000'],
        ['application/json; charset=utf-16', '{}'],
        ['text/plain', 'hello'],
        ['application/xml', '<load/>'],
        ['multipart/form-data; boundary=x', '--x--'],
      ];
      for (const [contentType, payload] of cases) {
        const res = await postJson('/api/v1/loads', payload, { 'content-type': contentType });
        expect(res.statusCode, `${contentType} ${JSON.stringify(payload)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
        expect(Object.keys(res.json().error)).toEqual(['code', 'message', 'param']);
        expect(res.body).not.toMatch(/FST_/);
      }
    });
  });

  describe('errors Node answers before Fastify (a real socket)', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      port = typeof address === 'object' && address ? address.port : 0;
    });

    it('answers headers over the size limit with 431 in our body', async () => {
      const raw = await rawExchange(
        port,
        `GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      const res = parseRawResponse(raw);
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toEqual({
        error: {
          code: 'request_header_fields_too_large',
          message: 'The request line and headers are larger than the server accepts',
          param: null,
        },
      });
    });

    it('answers oversized headers on a kept-alive connection after a good request, too', async () => {
      const socket = connect(port, '127.0.0.1');
      socket.setEncoding('utf8');
      let raw = '';
      const closed = new Promise<void>((done) => socket.on('close', () => done()));
      const first = new Promise<void>((done) =>
        socket.on('data', (chunk) => {
          raw += chunk;
          if (raw.includes('"status"')) done();
        }),
      );
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await first;
      socket.write(`GET /api/v1/loads HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      await closed;
      expect(raw).toMatch(/^HTTP\/1\.1 200 /);
      const second = parseRawResponse(raw.slice(raw.indexOf('HTTP/1.1 431')));
      expect(second.status).toBe(431);
      expect(second.body.error.code).toBe('request_header_fields_too_large');
    });

    it('answers a request Node cannot parse with 400 in our body', async () => {
      const res = parseRawResponse(await rawExchange(port, 'GARBAGE\r\n\r\n'));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: { code: 'bad_request', message: 'The request is not valid HTTP', param: null },
      });
    });

    it('answers the URL errors the same over the wire', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/loads/%ff`, { headers });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'bad_request' } });
    });
  });
});
