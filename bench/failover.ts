import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { createDatabase } from '../src/db/client.js';
import { runMigrations } from '../src/db/migrate.js';
import { systemScope } from '../src/domain/scope.js';
import { benchConfig, listenApp, listenAppOn, sized } from './lib/harness.js';
import { minimalLoad, percentile } from './lib/load-payloads.js';
import { recordResults } from './lib/results.js';

const run_ = promisify(execFile);
const haEnv = { env: { ...process.env, HA_BASE_PORT: process.env.HA_BASE_PORT ?? '25400' } };
const script = fileURLToPath(new URL('../scripts/ha-topology.sh', import.meta.url));

/**
 * Failover on the documented topology (scripts/ha-topology.sh: etcd, Patroni managing a primary
 * and a synchronous standby, HAProxy, PgBouncer in transaction mode), with two Envoy instances on
 * it. Four clients write loads continuously, each write with an Idempotency-Key and retried with
 * the same key until it is answered 2xx; a few seconds in, the primary's node dies (its Patroni
 * and its PostgreSQL, SIGKILL). Reports per run the write-unavailability window (the kill to the
 * longest stretch with no write answered, from the kill on), the 503s the clients saw, and checks that every acknowledged
 * write is present once and none twice.
 *
 * RUNS (default 3; BENCH_SMOKE=1: 1). Needs Debian's PostgreSQL, and root or the packages installed
 * (the script installs patroni, etcd-server, haproxy and pgbouncer with apt-get); skipped, saying
 * so, where not.
 */
export async function run() {
  if (!(await usable())) {
    console.log(
      'failover: skipped (no root to install patroni, etcd-server, haproxy and pgbouncer, and not installed)',
    );
    return;
  }
  const runs = sized('RUNS', 3, 1);
  const windows: number[] = [];
  for (let i = 0; i < runs; i++) windows.push(await once(i + 1));
  const sorted = [...windows].sort((a, b) => a - b);
  console.log(
    `\nwrite-unavailability window over ${runs} run(s): ${sorted.map((w) => (w / 1000).toFixed(1)).join(' / ')} s` +
      ` (median ${(percentile(sorted, 50) / 1000).toFixed(1)} s)`,
  );
  await recordResults('failover', [
    {
      name: `write-unavailability window, median of ${runs} runs`,
      value: percentile(sorted, 50) / 1000,
      unit: 's',
    },
    {
      name: `write-unavailability window, longest of ${runs} runs`,
      value: (sorted.at(-1) ?? 0) / 1000,
      unit: 's',
    },
  ]);
}

async function usable(): Promise<boolean> {
  // Patroni runs the machine's own PostgreSQL (Debian's /usr/lib/postgresql/<version>/bin).
  if (!existsSync('/usr/lib/postgresql')) return false;
  if (os.userInfo().uid === 0) return true;
  try {
    await run_('sh', ['-c', 'command -v patroni && command -v etcd && command -v haproxy']);
    return true;
  } catch {
    return false;
  }
}

async function once(n: number): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'envoy-ha-'));
  const closers: (() => Promise<void>)[] = [];
  try {
    const { stdout } = await run_('bash', [script, 'up', dir], haEnv);
    const env = Object.fromEntries(
      stdout
        .split('\n')
        .filter((l) => /^[A-Z_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const [directUrl, pooledUrl] = [env.DATABASE_DIRECT_URL ?? '', env.DATABASE_URL ?? ''];
    // Its own connections, closed before the kill (an idle one would die with the primary).
    const migrating = new pg.Pool({ connectionString: directUrl });
    migrating.on('error', () => {});
    await runMigrations(migrating);
    await migrating.end();
    const config = benchConfig({ WORKERS_ENABLED: 'false', DB_POOLER: 'transaction' });
    const database = createDatabase(pooledUrl, {
      poolMax: 10,
      connectTimeoutMs: 3000,
      statementTimeoutMs: 30_000,
      pooler: 'transaction',
      directUrl,
    });
    const first = await listenApp(database, config);
    closers.push(async () => {
      await first.app.close();
      await database.close();
    });
    const second = await listenAppOn(pooledUrl, directUrl, 'transaction', config);
    closers.push(second.close);
    const org = await first.services.auth.createOrganization(`Failover ${n}`);
    const { key } = await first.services.apiKeys.create(systemScope(org.id), { name: 'failover' });
    const urls = [first.url, second.url];

    let stop = false;
    let killedAt = Number.POSITIVE_INFINITY;
    const acknowledged: string[] = [];
    const ackedAt: number[] = [];
    let unavailable = 0;
    const client = async (c: number) => {
      for (let seq = 0; !stop; seq++) {
        const number = `F${n}-${c}-${seq}`;
        for (;;) {
          const answered = await write(urls[c % urls.length] ?? '', key, number);
          if (answered >= 200 && answered < 300) break;
          // 503 while the primary changes, 409 while the key's first try still runs, 0 for no answer.
          if (![503, 409, 0].includes(answered)) throw new Error(`write ${number} answered ${answered}`);
          unavailable++;
          await new Promise((r) => setTimeout(r, 100));
        }
        const at = Date.now();
        ackedAt.push(at);
        acknowledged.push(number);
      }
    };
    const clients = [0, 1, 2, 3].map(client);
    await new Promise((r) => setTimeout(r, 3000));
    const before = acknowledged.length;
    const { stdout: primary } = await run_('bash', [script, 'primary', dir], haEnv);
    killedAt = Date.now();
    await run_('bash', [script, 'kill', dir, primary.trim()], haEnv);
    // Writes go on until they flow again (20 answered in the last 2 s, 3 s or more after the
    // kill), then 3 s more; or until a minute has gone by.
    const deadline = Date.now() + 60_000;
    const flowing = () =>
      Date.now() - killedAt > 3000 && ackedAt.filter((at) => at > Date.now() - 2000).length >= 20;
    while (Date.now() < deadline && !flowing()) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 3000));
    stop = true;
    await Promise.all(clients);
    // The longest stretch with no write answered, from the kill on (a write that had committed
    // before it may still be answered just after it).
    let window = 0;
    let last = killedAt;
    for (const at of [...ackedAt].sort((a, b) => a - b)) {
      if (at <= killedAt) continue;
      window = Math.max(window, at - last);
      last = at;
    }
    if (!flowing()) window = Number.POSITIVE_INFINITY;
    const admin = new pg.Client({ connectionString: directUrl });
    await admin.connect();
    const counts = await admin.query<{ load_number: string; n: number }>(
      `SELECT load_number, count(*)::int AS n FROM loads WHERE organization_id = $1 GROUP BY load_number`,
      [org.id],
    );
    await admin.end();
    const stored = new Map(counts.rows.map((r) => [r.load_number, r.n]));
    const missing = acknowledged.filter((a) => !stored.has(a));
    const twice = counts.rows.filter((r) => r.n > 1);
    const rate = (from: number, to: number) =>
      ackedAt.filter((at) => at > from && at <= to).length / ((to - from) / 1000);
    const resumed = killedAt + window;
    console.log(
      `run ${n}: writes/s before the kill ${rate(killedAt - 3000, killedAt).toFixed(0)}, ` +
        `in the 3 s after they resumed ${rate(resumed, resumed + 3000).toFixed(0)}`,
    );
    console.log(
      `run ${n}: killed ${primary.trim()} after ${before} writes; writes resumed after ${(window / 1000).toFixed(1)} s; ` +
        `${acknowledged.length} acknowledged, ${unavailable} answers 503 (or no answer) retried; ` +
        `missing ${missing.length}, applied twice ${twice.length}`,
    );
    if (!Number.isFinite(window)) throw new Error('writes did not resume within a minute');
    if (missing.length || twice.length)
      throw new Error(`lost ${missing.join(', ')}; twice ${JSON.stringify(twice)}`);
    return window;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => {});
    await run_('bash', [script, 'down', dir], haEnv).catch(() => {});
  }
}

/** One POST /loads with the load number as its Idempotency-Key: the status, or 0 for no answer. */
async function write(url: string, key: string, number: string): Promise<number> {
  try {
    const res = await fetch(`${url}/api/v1/loads`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'idempotency-key': number, 'content-type': 'application/json' },
      body: JSON.stringify(minimalLoad(number)),
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
