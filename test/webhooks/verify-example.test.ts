import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { drainWorker, useTestApp } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';

const root = path.resolve(import.meta.dirname, '../..');

/** The Node block between the verify-example markers of the API guide (docs/api-guide.md). */
function guideExample(): string {
  const guide = readFileSync(path.join(root, 'docs/api-guide.md'), 'utf8');
  const section = /<!-- verify-example -->\s*```js\n([\s\S]*?)```\s*<!-- \/verify-example -->/.exec(guide);
  if (!section) throw new Error('docs/api-guide.md has no verify-example block');
  return defined(section[1], 'section[1]');
}

describe('API guide: verifying a delivery', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });
  const file = path.join(root, 'test/webhooks', `.verify-example-${randomBytes(4).toString('hex')}.mjs`);
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill();
    rmSync(file, { force: true });
  });

  it('runs the API guide receiver against a real delivery, and it refuses a forged one', async () => {
    const { user } = await createTenant(t);
    const { headers } = await createApiKey(t, user.headers);
    const port = await freePort();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers,
      payload: { url: `http://127.0.0.1:${port}/webhooks/envoy`, event_types: ['ping'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    writeFileSync(file, guideExample());
    let out = '';
    child = spawn(process.execPath, [file], {
      env: { ...process.env, ENVOY_WEBHOOK_SECRET: created.json().signing_secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    defined(child.stdout, 'child.stdout').on('data', (c) => (out += c));
    defined(child.stderr, 'child.stderr').on('data', (c) => (out += c));
    // The child process listens when it is ready.
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
          () => true,
          () => false,
        ),
      (listening) => listening,
      10_000,
    );

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: {
        'webhook-id': 'evt_x',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: '{"type":"ping"}',
    });
    expect(forged.status).toBe(400);

    const ping = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/endpoints/${created.json().id}/test`,
      headers,
    });
    // One round of the webhook worker delivers it, and records the receiver's answer.
    await drainWorker(t, 'webhooks');
    const attempts = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/endpoints/${created.json().id}/attempts`,
        headers,
      })
    ).json().data;
    expect(attempts).toMatchObject([{ succeeded: true, status_code: 204 }]);
    // The child's log line comes through its stdout pipe, in its own time.
    await waitFor(
      async () => out,
      (o) => o.includes(`verified ping ${ping.json().event_id}`),
      10_000,
    );
  });
});
