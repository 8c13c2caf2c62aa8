import Fastify from 'fastify';
import { benchDatabase, listen, listenApp, measure, optionsFromEnv, printTable } from './lib/harness.js';
import { measuredFigures, recordResults } from './lib/results.js';

/** The app's /readyz (one SELECT 1 through the full stack) against a bare Fastify route doing the same. */
export async function run() {
  const db = await benchDatabase();
  const { app, url } = await listenApp(db.database);
  const bare = Fastify();
  bare.get('/ping', async () => {
    await db.database.pool.query('SELECT 1');
    return { status: 'ok' };
  });
  const bareUrl = await listen(bare);
  try {
    const rows = await measure(
      [
        { name: 'bare Fastify + SELECT 1', url: `${bareUrl}/ping` },
        { name: 'GET /readyz (full app)', url: `${url}/readyz` },
      ],
      optionsFromEnv(),
    );
    printTable('baseline', rows, 'bare Fastify + SELECT 1');
    await recordResults('baseline', measuredFigures(rows));
  } finally {
    await app.close();
    await bare.close();
    await db.close();
  }
}
