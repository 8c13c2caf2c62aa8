import { sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { WebhooksWorker } from '../../src/workers/webhooks-worker.js';
import { type TestApp, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';

const BASE = '/api/v1/webhooks';

async function keyHeaders(t: TestApp) {
  const { user } = await createTenant(t);
  return (await createApiKey(t, user.headers)).headers;
}

const create = (t: TestApp, headers: Record<string, string>, url: string) =>
  t.app.inject({
    method: 'POST',
    url: `${BASE}/endpoints`,
    headers,
    payload: { url, event_types: ['ping'] },
  });

// Targets that are not public unicast, with the ipaddr.js range (or our name) the refusal gives.
const REFUSED: [string, string, string][] = [
  ['https://[::127.0.0.1]/hook', '::7f00:1', 'ipv4Compatible'],
  ['https://[::10.0.0.1]/hook', '::a00:1', 'ipv4Compatible'],
  ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1', 'loopback'],
  ['https://[::ffff:192.168.0.1]/hook', '::ffff:c0a8:1', 'private'],
  ['https://[2002:7f00:1::]/hook', '2002:7f00:1::', '6to4'],
  ['https://[2002:808:808::1]/hook', '2002:808:808::1', '6to4'],
  ['https://[64:ff9b::a00:1]/hook', '64:ff9b::a00:1', 'rfc6052'],
  ['https://[64:ff9b:1::1]/hook', '64:ff9b:1::1', 'rfc6052'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['https://[ff02::1]/hook', 'ff02::1', 'multicast'],
  ['https://224.0.0.251/hook', '224.0.0.251', 'multicast'],
  ['https://240.0.0.1/hook', '240.0.0.1', 'reserved'],
  ['https://192.0.2.10/hook', '192.0.2.10', 'reserved'],
  ['https://[2001:db8::1]/hook', '2001:db8::1', 'reserved'],
  ['https://[100::1]/hook', '100::1', 'discard'],
  ['https://[3fff::1]/hook', '3fff::1', 'reserved'],
  ['https://[4000::1]/hook', '4000::1', 'reserved'],
  ['https://0.0.0.0/hook', '0.0.0.0', 'unspecified'],
  ['https://[::]/hook', '::', 'unspecified'],
  ['https://255.255.255.255/hook', '255.255.255.255', 'broadcast'],
  ['https://100.64.1.1/hook', '100.64.1.1', 'carrierGradeNat'],
  ['https://169.254.169.254/latest', '169.254.169.254', 'linkLocal'],
  ['https://[fe80::1]/hook', 'fe80::1', 'linkLocal'],
  ['https://[fd12:3456::1]/hook', 'fd12:3456::1', 'uniqueLocal'],
  ['https://10.1.2.3/hook', '10.1.2.3', 'private'],
  ['https://2130706433/hook', '127.0.0.1', 'loopback'],
  ['https://0x7f.1/hook', '127.0.0.1', 'loopback'],
  ['https://localhost/hook', 'localhost', 'loopback'],
  ['https://api.localhost/hook', 'api.localhost', 'loopback'],
];

describe('webhook targets in production (server-side request forgery)', () => {
  const t = useTestApp({
    env: { NODE_ENV: 'production', WORKERS_ENABLED: 'false', WEBHOOK_TIMEOUT_MS: '1000' },
  });

  it('refuses every address that is not public unicast when the endpoint is saved, naming its range', async () => {
    const headers = await keyHeaders(t);
    for (const [url, host, range] of REFUSED) {
      const res = await create(t, headers, url);
      expect(res.statusCode, url).toBe(422);
      const msg = `Must target a public unicast address; ${host} is ${range}`;
      expect(res.json(), url).toEqual({
        error: { code: 'validation_error', message: `url: ${msg}`, param: 'url' },
        detail: [{ loc: ['body', 'url'], msg, type: 'url_host', input: url }],
      });
    }
  });

  it('refuses the same targets on PATCH', async () => {
    const headers = await keyHeaders(t);
    const ep = (await create(t, headers, 'https://93.184.215.14/hook')).json();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `${BASE}/endpoints/${ep.id}`,
      headers,
      payload: { url: 'https://[2002:7f00:1::]/hook' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'url_host' });
  });

  it('accepts public unicast addresses, an IPv4-mapped public address and names', async () => {
    const headers = await keyHeaders(t);
    for (const url of [
      'https://93.184.215.14/hook',
      'https://[2606:4700:4700::1111]/hook',
      'https://[::ffff:8.8.8.8]/hook',
      'https://hooks.example.com/envoy',
    ]) {
      const res = await create(t, headers, url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
    }
  });

  it('gives the scheme errors the same 422 with detail as every validation error', async () => {
    const headers = await keyHeaders(t);
    for (const [url, msg] of [
      ['gopher://example.com/', "Scheme 'gopher' is not allowed; use https"],
      ['file:///etc/passwd', "Scheme 'file' is not allowed; use https"],
      ['http://example.com/hook', 'Must use https'],
    ] as const) {
      const res = await create(t, headers, url);
      expect(res.statusCode, url).toBe(422);
      expect(res.json()).toEqual({
        error: { code: 'validation_error', message: `url: ${msg}`, param: 'url' },
        detail: [{ loc: ['body', 'url'], msg, type: 'url_scheme', input: url }],
      });
    }
    const notUrl = await create(t, headers, 'not a url');
    expect(notUrl.json().detail).toEqual([
      {
        loc: ['body', 'url'],
        msg: 'Must be an absolute http(s) URL',
        type: 'url_parsing',
        input: 'not a url',
      },
    ]);
  });

  it('refuses at delivery a stored target that is no longer public, literal or after DNS resolution', async () => {
    const headers = await keyHeaders(t);
    const worker = new WebhooksWorker(t.database.db, t.config, pino({ level: 'silent' }));
    const cases: [string, RegExp][] = [
      ['https://[2002:7f00:1::]/x', /^refused: private address 2002:7f00:1:: \(6to4\)$/],
      ['https://[64:ff9b::7f00:1]/x', /^refused: private address 64:ff9b::7f00:1 \(rfc6052\)$/],
      ['https://[::127.0.0.1]/x', /^refused: private address ::7f00:1 \(ipv4Compatible\)$/],
      // A name whose DNS answer is loopback (a record changed after registration).
      [
        'https://localhost:1/x',
        /^refused: localhost resolves to a private address \((127\.0\.0\.1|::1), loopback\)$/,
      ],
    ];
    for (const [target, error] of cases) {
      const ep = (await create(t, headers, 'https://93.184.215.14/hook')).json();
      // As if the address behind the endpoint changed after it was saved.
      await t.database.db.execute(sql`UPDATE webhook_endpoints SET url = ${target} WHERE id = ${ep.id}`);
      expect(
        (await t.app.inject({ method: 'POST', url: `${BASE}/endpoints/${ep.id}/test`, headers })).statusCode,
      ).toBe(202);
      await worker.drain();
      const attempts = (
        await t.app.inject({ method: 'GET', url: `${BASE}/endpoints/${ep.id}/attempts`, headers })
      ).json().data;
      expect(attempts, target).toHaveLength(1);
      expect(attempts[0], target).toMatchObject({ succeeded: false, status_code: null });
      expect(attempts[0].error, target).toMatch(error);
    }
  });
});
