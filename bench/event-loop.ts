import { monitorEventLoopDelay } from 'node:perf_hooks';
import { systemScope } from '../src/domain/scope.js';
import { benchConfig, benchDatabase, listenApp, sized } from './lib/harness.js';
import { loadPayload, percentile } from './lib/load-payloads.js';

/**
 * Whether large requests stall the small ones. Small requests (GET /healthz and a one-row carrier
 * list, one at a time, back to back) are timed while large ones arrive: ROUNDS rounds (default 3)
 * of two 1,000-load batches, a 16 MiB carrier CSV and a 16 MiB CSV whose last field opens a quote
 * and never closes it, all four at once. Reports the small requests' p50/p99/max, idle and under
 * load, and the event loop's longest delay as Node measured it.
 *
 * BENCH_SMOKE=1: one round of a 100-load batch and 1 MiB CSVs.
 */
export async function run() {
  const rounds = sized('ROUNDS', 3, 1);
  const batchLoads = sized('BATCH_LOADS', 1000, 100);
  const csvBytes = sized('CSV_BYTES', 16 * 1024 * 1024 - 4096, 1024 * 1024);
  const db = await benchDatabase();
  const { app, url, services } = await listenApp(
    db.database,
    benchConfig({ WORKERS_ENABLED: 'false', RATE_LIMIT_UPLOADS_PER_MINUTE: '100000000' }),
  );
  try {
    const org = await services.auth.createOrganization('Bench');
    const { key } = await services.apiKeys.create(systemScope(org.id), { name: 'bench' });
    const headers = { 'x-api-key': key };
    const api = `${url}/api/v1`;

    const small = smallRequests(api, headers);
    await small.measure(sized('IDLE_MS', 2000, 300));
    const idle = small.take();

    const loop = monitorEventLoopDelay({ resolution: 5 });
    small.start();
    loop.enable();
    let bodies = 0;
    const sizes = { batch: 0, csv: 0 };
    for (let r = 0; r < rounds; r++) {
      const batch = JSON.stringify({
        loads: Array.from({ length: batchLoads }, (_, i) => loadPayload(`EL${r}`, i)),
      });
      const csv = carriersCsv(csvBytes, r);
      const open = `name\n"${'x'.repeat(csvBytes - 7)}`;
      sizes.batch = batch.length;
      sizes.csv = csv.length;
      const sent = await Promise.all([
        post(`${api}/loads/batch`, headers, 'application/json', batch),
        post(`${api}/loads/batch`, headers, 'application/json', batch.replaceAll(`EL${r}-`, `EM${r}-`)),
        post(`${api}/carriers/batch`, headers, 'text/csv', csv),
        post(`${api}/carriers/batch`, headers, 'text/csv', open),
      ]);
      bodies += sent.length;
      for (const status of sent) if (status >= 500) throw new Error(`a large request answered ${status}`);
    }
    loop.disable();
    await small.stop();
    const busy = small.take();

    console.log(
      `\n### event-loop (${rounds} rounds of 2 x ${batchLoads}-load batches of ${mib(sizes.batch)}, a ${mib(sizes.csv)} carrier CSV and a ${mib(csvBytes)} unterminated quoted field; ${bodies} large requests)\n`,
    );
    console.log('| small requests | n | p50 ms | p99 ms | max ms |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const [name, ms] of [
      ['idle', idle],
      ['while the large requests arrive', busy],
    ] as const) {
      console.log(
        `| ${name} | ${ms.length} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 99).toFixed(1)} | ${Math.max(...ms).toFixed(1)} |`,
      );
    }
    console.log(
      `\nevent loop delay while they arrive: p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
    );
  } finally {
    await app.close();
    await db.close();
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function post(url: string, headers: Record<string, string>, type: string, body: string) {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': type }, body });
  await res.arrayBuffer();
  return res.status;
}

/** A carrier CSV of about `bytes`: 1,000 rows whose notes-like column pads them out. */
function carriersCsv(bytes: number, round: number): string {
  const rows = 1000;
  const pad = Math.max(0, Math.floor(bytes / rows) - 40);
  const lines = ['name,mc_number,legal_name'];
  for (let i = 0; i < rows; i++)
    lines.push(`Carrier ${round}-${i},${700000 + round * 1000 + i},"${'y'.repeat(pad)}"`);
  return lines.join('\n');
}

/** Small requests one after another, each timed, until stopped. */
function smallRequests(api: string, headers: Record<string, string>) {
  let times: number[] = [];
  let running: Promise<void> | null = null;
  let stop = false;
  const loop = async () => {
    for (let i = 0; !stop; i++) {
      const started = performance.now();
      const res = await fetch(i % 2 ? `${api}/carriers?limit=1` : `${api.replace('/api/v1', '')}/healthz`, {
        headers,
      });
      await res.arrayBuffer();
      times.push(performance.now() - started);
    }
  };
  return {
    start() {
      stop = false;
      running = loop();
    },
    async stop() {
      stop = true;
      await running;
    },
    async measure(ms: number) {
      this.start();
      await new Promise((r) => setTimeout(r, ms));
      await this.stop();
    },
    take() {
      const taken = times;
      times = [];
      return taken;
    },
  };
}
