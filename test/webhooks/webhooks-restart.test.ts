import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/webhooks/event-emitting.js';
import { buildTestApp, fileDatabaseUrl } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const env = { WORKER_POLL_MS: '20', WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_MS: '2000' };

// This test is about the loops themselves (a runner stopped mid-queue, another one taking over), so
// both instances run theirs and the test waits on what the receiver gets.
describe('webhook delivery across a restart', () => {
  // A receiver that takes a few milliseconds over each answer, so the first instance is still
  // working through the queue when it is stopped.
  const rx = startReceiver(async (_r, res) => {
    await new Promise((r) => setTimeout(r, 5));
    res.writeHead(200).end();
  });
  afterAll(async () => (await rx).close());

  it('stops mid-queue and a second instance delivers the rest: nothing lost, duplicates only by webhook-id', async () => {
    const receiver = await rx;
    const url = await fileDatabaseUrl();
    const first = await buildTestApp({ databaseUrl: url, env });
    const { orgId, user } = await createTenant(first);
    const key = await createApiKey(first, user.headers);
    const created = await first.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      headers: key.headers,
      payload: { url: receiver.url, event_types: ['ping'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const secret = created.json<{ signing_secret: string }>().signing_secret;

    const N = 400;
    const ids = await first.database.db.transaction((tx) =>
      emitEvents(
        tx,
        orgId,
        Array.from({ length: N }, (_, i) => ({
          type: 'ping',
          data: { endpoint_id: created.json().id, message: `#${i}` },
        })),
      ),
    );
    expect(ids).toHaveLength(N);
    await waitFor(
      async () => receiver.received.length,
      (n) => n >= 20,
      10_000,
    );
    await first.close();
    const before = receiver.received.length;
    expect(before).toBeLessThan(N);

    const second = await buildTestApp({ databaseUrl: url, env });
    try {
      await waitFor(
        async () => new Set(receiver.received.map((r) => r.headers['webhook-id'])).size,
        (delivered) => delivered === N,
        20_000,
      );
    } finally {
      await second.close();
    }
    const wh = new Webhook(secret);
    for (const r of receiver.received) {
      expect(r.headers['webhook-id']).toBe(r.json.id);
      wh.verify(r.body, r.headers);
    }
    expect(new Set(receiver.received.map((r) => r.json.id))).toEqual(new Set(ids));
  }, 60_000);
});
