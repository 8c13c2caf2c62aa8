import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/webhooks/events.js';
import { buildTestApp, fileDatabaseUrl } from '../helpers/app.js';
import { createApiKey, createTenant } from '../helpers/factories.js';
import { startReceiver, waitUntil } from '../helpers/webhook-receiver.js';

const env = { WORKER_POLL_MS: '20', WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_MS: '2000' };

describe('webhook delivery across a restart', () => {
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
    const secret = created.json().signing_secret as string;

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
    await waitUntil(() => receiver.received.length >= 20, 10_000, 'the first deliveries');
    await first.close();
    const before = receiver.received.length;
    expect(before).toBeLessThan(N);

    const second = await buildTestApp({ databaseUrl: url, env });
    try {
      await waitUntil(
        () => new Set(receiver.received.map((r) => r.headers['webhook-id'])).size === N,
        20_000,
        'every event',
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
