import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLargeJsonCooperatively } from '../../src/http/cooperative-json.js';
import { toAppError } from '../../src/http/error-handler.js';

/**
 * Large JSON bodies parsed a piece at a time read exactly as JSON.parse reads them, and are refused
 * for exactly what the whole parse refuses. Each body is padded past the size from which it is
 * parsed in pieces (256 KiB) with a long string member, so both the pieces and the padding are
 * exercised; a small twin of every body checks the whole-body path gives the same answer.
 */
let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify({ bodyLimit: 16 * 1024 * 1024 });
  app.setErrorHandler((err, request, reply) => {
    const e = toAppError(err, request);
    reply.status(e.statusCode).send({ code: e.code, message: e.message });
  });
  await app.register(async (scoped) => {
    parseLargeJsonCooperatively(scoped);
    scoped.post('/echo', async (request) => ({ body: request.body ?? null }));
    scoped.post('/small', { bodyLimit: 1000 }, async (request) => ({ body: request.body ?? null }));
  });
  await app.ready();
});
afterAll(() => app.close());

const PAD = 'p'.repeat(300 * 1024);
const padded = (text: string) =>
  text.replace(/^(\s*)\{(\s*\})?/, (_, space: string, empty?: string) =>
    empty ? `${space}{"pad":"${PAD}"}` : `${space}{"pad":"${PAD}",`,
  );

async function post(text: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/echo',
    headers: { 'content-type': 'application/json' },
    payload: text,
  });
  return { status: res.statusCode, body: res.json() };
}

describe('JSON bodies parsed in pieces', () => {
  const valid = [
    '{}',
    '{"loads":[]}',
    '{"loads":[ ],"x":1}',
    '{ "loads" : [ {"a":1,"b":[1,2,{"c":"]},[{"}]}, "s\\"q,\\\\", 3, null, true ] , "k" : {"n":[1,[2,[3]]]} }',
    '{"a":"\\u005f_proto__ lookalike in a value","b":{"x":{"y":[{"z":",:"}]}}}',
    '{"dup":1,"dup":[2,3]}',
    '{"nested":[[1,2],[3,[4]],{"a":[5,6]}],"e":"é ✓ \\n"}',
    '\n {"trailing":"space"} \n',
  ];
  it.each(valid)('reads %s as JSON.parse does', async (small) => {
    for (const text of [small, padded(small)]) {
      const res = await post(text);
      expect(res.status).toBe(200);
      expect(res.body.body).toEqual(JSON.parse(text));
    }
  });

  it('reads a thousand-element batch item by item as JSON.parse does', async () => {
    const loads = Array.from({ length: 1000 }, (_, i) => ({
      n: i,
      s: `x,"y"[${i}]`,
      a: [i, { b: `}${i}` }],
    }));
    const text = JSON.stringify({ loads, after: { ok: true } });
    expect(text.length).toBeGreaterThan(40_000);
    const res = await post(padded(text));
    expect(res.status).toBe(200);
    expect(res.body.body.loads).toEqual(loads);
    expect(res.body.body.after).toEqual({ ok: true });
  });

  const invalid = [
    '{"a":1,}',
    '{"loads":[1,,2]}',
    '{"loads":[1,2,]}',
    '{"a" 1}',
    '{"a":1 "b":2}',
    '{"a":1:2}',
    '{1:2}',
    '{"a":[1,2]]}',
    '{"a":[1,2}',
    '{"a":"open}',
    '{"a":1} x',
    '{"a":1}{"b":2}',
    '{"a":tru}',
    '{"a":[01]}',
  ];
  it.each(invalid)('refuses %s as not JSON, as the whole parse does', async (small) => {
    for (const text of [small, padded(small)]) {
      const res = await post(text);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ code: 'validation_error', message: 'Body is not valid JSON' });
    }
  });

  const forbidden = [
    '{"__proto__":{"admin":true}}',
    '{"loads":[{"ok":1},{"__proto__":{"admin":true}}]}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '{"loads":[{"constructor":{"prototype":{}}}]}',
  ];
  it.each(forbidden)('refuses the forbidden key in %s by name', async (small) => {
    for (const text of [small, padded(small)]) {
      const res = await post(text);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(
        'Body contains a "__proto__" or "constructor.prototype" key, which is not accepted',
      );
    }
  });

  it('refuses a forbidden key in a body that is not JSON further on as not JSON', async () => {
    const res = await post(padded('{"loads":[{"__proto__":{}},{"a":]}'));
    expect(res.body).toEqual({ code: 'validation_error', message: 'Body is not valid JSON' });
  });

  it('refuses nesting past 64 levels before parsing, large or small', async () => {
    const deep = `{"a":${'['.repeat(70)}${']'.repeat(70)}}`;
    for (const text of [deep, padded(deep)]) {
      const res = await post(text);
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/deeper than 64 levels/);
    }
  });

  it('parses a large body whose root is not an object whole', async () => {
    const text = JSON.stringify([PAD, 1, { a: 2 }]);
    const res = await post(text);
    expect(res.status).toBe(200);
    expect(res.body.body).toEqual(JSON.parse(text));
  });
});

describe('bodies read as they arrive', () => {
  const send = (url: string, payload: string | Readable) =>
    app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

  it('decodes a character split across chunks', async () => {
    const bytes = Buffer.from(JSON.stringify({ s: 'é✓😀'.repeat(50) }));
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.subarray(i * 7, i * 7 + 7),
    );
    const res = await send('/echo', Readable.from(chunks));
    expect(res.statusCode).toBe(200);
    expect(res.json().body).toEqual({ s: 'é✓😀'.repeat(50) });
  });

  it('decodes a body of several MiB whose characters are split across chunks and decoding pieces', async () => {
    // Chunks of an odd size: many of their ends, and of the 1 MiB pieces decoded at once, fall
    // inside a character of two, three or four bytes.
    const text = 'é✓😀a'.repeat(300_000);
    const bytes = Buffer.from(JSON.stringify({ s: text }));
    expect(bytes.length).toBeGreaterThan(2 * 1024 * 1024);
    const size = 65_537;
    const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) =>
      bytes.subarray(i * size, i * size + size),
    );
    const res = await send('/echo', Readable.from(chunks));
    expect(res.statusCode).toBe(200);
    expect(res.json().body.s === text).toBe(true);
  });

  it("refuses a body over the route's limit, announced or not, with 413", async () => {
    const big = JSON.stringify({ s: 'x'.repeat(2000) });
    for (const payload of [big, Readable.from([Buffer.from(big)])]) {
      const res = await send('/small', payload);
      expect(res.statusCode).toBe(413);
      expect(res.json().code).toBe('payload_too_large');
    }
    expect((await send('/small', JSON.stringify({ s: 'x'.repeat(900) }))).statusCode).toBe(200);
  });
});
