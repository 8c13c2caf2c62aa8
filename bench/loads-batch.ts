import type pg from 'pg';
import { systemScope } from '../src/domain/scope.js';
import { AutovacuumStandIn } from './lib/autovacuum.js';
import { cpuSince, cpuTimes, perThousand } from './lib/cpu.js';
import { benchConfig, benchDatabase, listenApp, reusedBenchDatabase } from './lib/harness.js';
import { ingest, percentile } from './lib/load-payloads.js';
import { recordResults } from './lib/results.js';

/**
 * Ingestion through POST /loads/batch: LOADS new loads (default 100,000; 1000 a request with 2-3
 * stops each, two requests in flight) into an empty organization, then UPDATES requests re-sending
 * 1000 of them with a changed rate, then the same UPDATES requests again, unchanged (matched, not
 * written). Reports batch p50/p95/p99, loads per second, and the CPU time spent per 1000 loads by
 * this process and by the local PostgreSQL server (lib/cpu.ts).
 *
 * BENCH_SMOKE=1 ingests 3,000 (a few seconds); BENCH_DATABASE_URL uses a server of your own;
 * IN_FLIGHT sets how many requests of new loads are in flight at once (default 2).
 * BENCH_REUSE=<database name> (on BENCH_DATABASE_URL's server) adds the loads to the 'Bench
 * Brokerage' organization of a database `npm run bench -- loads` kept, under a prefix of their own:
 * ingestion measured at that table's size (a million loads) rather than into an empty one. The
 * database is kept, with the loads added.
 * Where the server runs with autovacuum off, the bench vacuums and analyzes as autovacuum would.
 */
export async function run() {
  const smoke = process.env.BENCH_SMOKE === '1';
  const total = Number(process.env.LOADS ?? (smoke ? 3_000 : 100_000));
  const updates = Number(process.env.UPDATES ?? (smoke ? 2 : 20));
  const reuse = process.env.BENCH_REUSE;
  const inFlight = Number(process.env.IN_FLIGHT ?? 2);
  const db = reuse ? await reusedBenchDatabase(reuse) : await benchDatabase();
  const { app, url, services } = await listenApp(db.database, benchConfig({ WORKERS_ENABLED: 'false' }));
  const autovacuum = new AutovacuumStandIn(db.database.pool);
  try {
    const org = reuse
      ? await benchBrokerage(db.database.pool)
      : await services.auth.createOrganization('Bench');
    // A reused database keeps earlier runs' keys and loads: each run's are named apart.
    const tag = reuse ? Date.now().toString(36).toUpperCase() : '';
    const { key } = await services.apiKeys.create(systemScope(org.id), {
      name: reuse ? `bench ${tag}` : 'bench',
    });
    const headers = { 'x-api-key': key };
    const api = `${url}/api/v1`;
    await autovacuum.start();
    // Warm-up outside the measured figures.
    await ingest(api, headers, `WARM${tag}`, 0, 2000);
    let cpu = cpuTimes();
    const created = await ingest(api, headers, `BB${tag}`, 0, total, { inFlight });
    const createdCpu = cpuSince(cpu);
    cpu = cpuTimes();
    const updated = await ingest(api, headers, `BB${tag}`, 0, Math.min(total, updates * 1000), {
      rateBump: () => 25,
    });
    const updatedCpu = cpuSince(cpu);
    // The same again: nothing changes, so nothing is written (a TMS full sync of unchanged loads).
    cpu = cpuTimes();
    const unchanged = await ingest(api, headers, `BB${tag}`, 0, Math.min(total, updates * 1000), {
      rateBump: () => 25,
    });
    const unchangedCpu = cpuSince(cpu);
    await autovacuum.stop();
    console.log(
      `\n### loads-batch (${total.toLocaleString('en-US')} new loads, then updates${reuse ? `, into ${reuse}` : ''})\n`,
    );
    console.log(
      `autovacuum stand-in: ${autovacuum.active ? `${autovacuum.log.length} runs` : 'off (server autovacuums)'}`,
    );
    console.log(
      'CPU per 1000 loads: this process (app and client) and every PostgreSQL process on the machine\n',
    );
    console.log(
      '| requests (1000 loads, 2-3 stops) | n | p50 ms | p95 ms | p99 ms | loads/s | node CPU ms | PostgreSQL CPU ms |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [name, t, c] of [
      ['new loads', created, createdCpu],
      ['the same loads re-sent, rate changed', updated, updatedCpu],
      ['the same loads re-sent unchanged', unchanged, unchangedCpu],
    ] as const) {
      console.log(
        `| ${name} | ${t.batchMs.length} | ${percentile(t.batchMs, 50).toFixed(0)} | ${percentile(t.batchMs, 95).toFixed(0)} | ${percentile(t.batchMs, 99).toFixed(0)} | ${Math.round(t.loads / t.seconds)} | ${perThousand(c.nodeMs, t.loads)} | ${perThousand(c.postgresMs, t.loads)} |`,
      );
    }
    await recordResults(
      'loads-batch',
      (
        [
          ['new loads', created, createdCpu],
          ['re-sent, rate changed', updated, updatedCpu],
          ['re-sent unchanged', unchanged, unchangedCpu],
        ] as const
      ).flatMap(([name, t, c]) => [
        { name: `${name}: throughput`, value: Math.round(t.loads / t.seconds), unit: 'loads/s' },
        {
          name: `${name}: node CPU per 1,000 loads`,
          value: Number(perThousand(c.nodeMs, t.loads)),
          unit: 'ms',
        },
        {
          name: `${name}: PostgreSQL CPU per 1,000 loads`,
          value: Number(perThousand(c.postgresMs, t.loads)),
          unit: 'ms',
        },
      ]),
    );
  } finally {
    await autovacuum.stop();
    await app.close();
    if (reuse) await db.database.close();
    else await db.close();
  }
}

async function benchBrokerage(pool: pg.Pool): Promise<{ id: string }> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM organizations WHERE name = 'Bench Brokerage'`,
  );
  if (!rows[0]) throw new Error('BENCH_REUSE: the database has no Bench Brokerage organization');
  return rows[0];
}
