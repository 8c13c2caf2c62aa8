import { systemScope } from '../src/domain/scope.js';
import { type PgBouncer, pgBouncerInstalled, startPgBouncer } from '../test/helpers/pgbouncer.js';
import {
  benchConfig,
  benchDatabase,
  listenApp,
  listenAppOn,
  type Measurement,
  measure,
  optionsFromEnv,
  printTable,
  sized,
} from './lib/harness.js';
import { ingest, minimalLoad } from './lib/load-payloads.js';
import { recordResults } from './lib/results.js';

/**
 * Reads through a transaction-mode pooler against reads straight from PostgreSQL, same run.
 *
 * LOADS loads (default 20,000; smoke 400) are ingested, then GET /loads/{id}, the list's first page
 * and a filtered page are measured (8 connections) on:
 * - one instance connected straight to PostgreSQL, with named prepared statements (the baseline);
 * - the same, with DB_POOLER=transaction (every statement unnamed: what the pooler mode costs
 *   PostgreSQL, planning each statement where it runs);
 * - one instance through PgBouncer (pool_mode=transaction, 8 server connections);
 * - four instances through the same PgBouncer, each given a quarter of the connections (in this
 *   process: they share its event loop, so this shows the pooler's cost, not four machines).
 * Then 50 clients of mixed reads and writes (create, read, patch, list, a keyed create, a carrier
 * created and listed) for MIXED_SECONDS (default 60; smoke 3) through the four pooled instances:
 * any 5xx fails the benchmark.
 * Needs Debian's pgbouncer (`.ci/run` installs it); without it the benchmark says so and ends.
 */
export async function run() {
  if (!pgBouncerInstalled) {
    console.log('pooler: PgBouncer is not installed (apt-get install pgbouncer); nothing measured');
    return;
  }
  const loads = sized('LOADS', 20_000, 400);
  const options = { connections: 8, durationSeconds: 5, rounds: 3, warmupSeconds: 1, ...optionsFromEnv() };
  const db = await benchDatabase();
  const config = benchConfig({ WORKERS_ENABLED: 'false' });
  const direct = await listenApp(db.database, config);
  const closers: (() => Promise<unknown>)[] = [() => direct.app.close()];
  let bouncer: PgBouncer | undefined;
  try {
    const org = await direct.services.auth.createOrganization('Pooler Bench');
    const { key } = await direct.services.apiKeys.create(systemScope(org.id), { name: 'bench' });
    const headers = { 'x-api-key': key };
    await ingest(`${direct.url}/api/v1`, headers, 'PB', 0, loads);
    const { rows } = await db.database.pool.query<{ id: string }>(
      `SELECT id FROM loads WHERE organization_id = $1 ORDER BY id LIMIT 1 OFFSET $2`,
      [org.id, Math.floor(loads / 2)],
    );
    const loadId = rows[0]?.id;
    if (!loadId) throw new Error('pooler: no load ingested');

    const instance = async (url: string, pooler: 'none' | 'transaction') => {
      const started = await listenAppOn(url, db.url, pooler, config);
      closers.push(() => started.close());
      return started.url;
    };
    bouncer = await startPgBouncer(db.url, { poolSize: 8 });
    const unnamed = await instance(db.url, 'transaction');
    const pooled = [];
    for (let i = 0; i < 4; i++) pooled.push(await instance(bouncer.pooled(db.url), 'transaction'));

    const paths = {
      'GET /loads/{id}': `/api/v1/loads/${loadId}`,
      'GET /loads': '/api/v1/loads',
      'GET /loads?equipment_type=REEFER': '/api/v1/loads?equipment_type=REEFER',
    };
    const setups: [string, string[]][] = [
      ['direct, named statements', [direct.url]],
      ['direct, unnamed (DB_POOLER=transaction)', [unnamed]],
      ['PgBouncer, 1 instance', [pooled[0] ?? '']],
      ['PgBouncer, 4 instances', pooled],
    ];
    const rowsOut: Measurement[] = [];
    for (const [path, suffix] of Object.entries(paths)) {
      for (const [setup, urls] of setups) {
        const parts = await Promise.all(
          urls.map((url) =>
            measure([{ name: setup, url: `${url}${suffix}`, headers }], {
              ...options,
              connections: Math.max(1, Math.round(options.connections / urls.length)),
            }),
          ),
        );
        const all = parts.flat();
        rowsOut.push({
          name: `${path}: ${setup}`,
          rps: all.reduce((sum, m) => sum + m.rps, 0),
          p50: Math.max(...all.map((m) => m.p50)),
          p99: Math.max(...all.map((m) => m.p99)),
          errors: all.reduce((sum, m) => sum + m.errors, 0),
          non2xx: all.reduce((sum, m) => sum + m.non2xx, 0),
        });
      }
    }
    for (const path of Object.keys(paths)) {
      printTable(
        `${path} at ${loads.toLocaleString('en-US')} loads (${options.connections} connections in all)`,
        rowsOut.filter((r) => r.name.startsWith(`${path}: `)),
        `${path}: direct, named statements`,
      );
    }
    const mixed = await mixedTraffic(pooled, headers, 50, sized('MIXED_SECONDS', 60, 3));
    await recordResults('pooler', [
      ...rowsOut.map((r) => ({ name: r.name, value: Math.round(r.rps), unit: 'req/s' })),
      {
        name: 'mixed reads and writes, 50 clients through PgBouncer (4 instances)',
        value: mixed,
        unit: 'req/s',
      },
    ]);
  } finally {
    for (const close of closers.reverse()) await close();
    await bouncer?.stop();
    await db.close();
  }
}

/** `clients` loops of mixed requests over the instances for `seconds`; throws on any 5xx. */
async function mixedTraffic(
  urls: string[],
  headers: Record<string, string>,
  clients: number,
  seconds: number,
): Promise<number> {
  const statuses = new Map<number, number>();
  const until = Date.now() + seconds * 1000;
  const call = async (
    base: string,
    method: string,
    path: string,
    body?: object,
    extra?: Record<string, string>,
  ) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { ...headers, ...extra, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    return { status: res.status, text };
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const base = urls[c % urls.length] ?? '';
      for (let r = 0; Date.now() < until; r++) {
        const tag = `MX-${c}-${r}`;
        const created = await call(base, 'POST', '/loads', minimalLoad(tag));
        // A 201 of POST /loads is its upsert result, whose load_id is a string.
        const id = created.status === 201 ? (JSON.parse(created.text) as { load_id: string }).load_id : null;
        if (id) {
          await call(base, 'GET', `/loads/${id}`);
          await call(base, 'PATCH', `/loads/${id}`, { notes: `round ${r}` });
        }
        await call(base, 'GET', '/loads?order_by=created_at&order_desc=true');
        await call(base, 'POST', '/loads', minimalLoad(`${tag}-k`), { 'idempotency-key': `key-${tag}` });
        await call(base, 'POST', '/carriers', { name: `Carrier ${tag}` });
        await call(base, 'GET', '/carriers');
      }
    }),
  );
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.log(
    `\nmixed reads and writes, ${clients} clients for ${seconds} s through PgBouncer (4 instances): ` +
      `${total} requests (${(total / seconds).toFixed(0)}/s); by status ${byStatus.join(', ')}`,
  );
  const failed = [...statuses].filter(([s]) => s >= 500);
  if (failed.length) throw new Error(`mixed traffic answered 5xx: ${JSON.stringify(failed)}`);
  return Math.round(total / seconds);
}
