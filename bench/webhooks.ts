import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { systemScope } from '../src/domain/scope.js';
import { eventCatalogue } from '../src/event-catalogue.js';
import { webhookSecretBox } from '../src/modules/webhooks/delivery.js';
import { emitEvents } from '../src/modules/webhooks/event-emitting.js';
import { WebhooksService } from '../src/modules/webhooks/webhooks-service.js';
import { WebhooksWorker } from '../src/workers/webhooks-worker.js';
import { portOf } from '../test/helpers/listening.js';
import { benchConfig, benchDatabase, listenApp, sized } from './lib/harness.js';
import { recordResults } from './lib/results.js';

const EVENTS = sized('BENCH_EVENTS', 2000, 50);
const ENDPOINTS = 10;

/**
 * EVENTS events (default 2000) emitted to 10 endpoints on one local receiver that answers 200 at
 * once: EVENTS x 10 signed deliveries. Reports deliveries and events delivered (to all 10) per
 * second, measured from the first claim to the last recorded attempt, with one worker instance.
 */
export async function run() {
  const db = await benchDatabase();
  const config = benchConfig({ WORKERS_ENABLED: 'false' });
  const { app, services } = await listenApp(db.database, config);
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${portOf(receiver)}/hook`;
  try {
    const org = await services.auth.createOrganization('Bench');
    const service = new WebhooksService(
      db.database.db,
      false,
      webhookSecretBox(config.secretsEncryptionKey),
      eventCatalogue,
    );
    for (let i = 0; i < ENDPOINTS; i++) {
      await service.create(systemScope(org.id), { url: `${url}?n=${i}`, event_types: ['load.updated'] });
    }
    for (let done = 0; done < EVENTS; done += 500) {
      await db.database.db.transaction((tx) =>
        emitEvents(
          tx,
          org.id,
          Array.from({ length: Math.min(500, EVENTS - done) }, (_, i) => ({
            type: 'load.updated',
            data: { load_id: `load_${done + i}`, load_status: 'Dispatched' },
          })),
        ),
      );
    }
    const worker = new WebhooksWorker(db.database.db, config, pino({ level: 'silent' }));
    const started = performance.now();
    await worker.drain();
    const seconds = (performance.now() - started) / 1000;
    const [left] = (
      await db.database.db.execute<{ n: string }>(
        sql`SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'succeeded'`,
      )
    ).rows;
    console.log(
      `webhooks: ${EVENTS} events x ${ENDPOINTS} endpoints = ${received} deliveries in ${seconds.toFixed(1)} s: ` +
        `${Math.round(received / seconds)} deliveries/s, ${Math.round(EVENTS / seconds)} events/s ` +
        `(to all ${ENDPOINTS} endpoints); not succeeded: ${left?.n}`,
    );
    await recordResults('webhooks', [
      {
        name: `${EVENTS} events to ${ENDPOINTS} endpoints: deliveries`,
        value: Math.round(received / seconds),
        unit: 'deliveries/s',
      },
      {
        name: `${EVENTS} events to ${ENDPOINTS} endpoints: events delivered to all`,
        value: Math.round(EVENTS / seconds),
        unit: 'events/s',
      },
    ]);
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await app.close();
    await db.close();
  }
}
