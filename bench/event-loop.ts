import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { systemScope } from '../src/domain/scope.js';
import type { ClientMessage, ClientOptions, ClientResult } from './lib/event-loop-client.js';
import { benchConfig, benchDatabase, listenApp, sized } from './lib/harness.js';
import { percentile } from './lib/load-payloads.js';
import { type Figure, recordResults } from './lib/results.js';
import { StallTracer } from './lib/stall-tracer.js';

/**
 * Whether large requests stall the small ones. Small requests (GET /healthz and a one-row carrier
 * list, one at a time, back to back) are timed while large ones arrive: ROUNDS rounds (default 3)
 * of two 1,000-load batches of full TMS records (about 5.8 MiB each), a 16 MiB carrier CSV and a
 * 16 MiB CSV whose last field opens a quote and never closes it, all four at once. Reports the
 * small requests' p50/p99/max, idle and under load, the server's event-loop delay (p99, max)
 * as Node measured it, idle and under load, and the server thread's garbage-collection pauses
 * while the large requests arrive (count, total, longest and how many over 50 ms, by kind).
 *
 * The server runs on the main thread; the client (bodies built beforehand, large and small
 * requests) in a worker thread, so only the server's work shows in the main thread's loop delay.
 * Run twice, same process: large bodies read on the main thread (BODY_WORKER_THREADS=0, the
 * baseline), then in body workers (the default count).
 *
 * BENCH_SMOKE=1: one round of a 100-load batch and 1 MiB CSVs. STALLS=1: also lists each stall of
 * the main thread over 50 ms while the large requests arrive, with the functions its profiler
 * samples fell in (bench/lib/stall-tracer.ts).
 */
export async function run() {
  const db = await benchDatabase();
  const figures: Figure[] = [];
  try {
    // The same requests with their bodies read on the main thread (the baseline), then in body workers.
    for (const threads of [0, benchConfig().bodyWorkers.threads]) {
      const { app, url, services } = await listenApp(
        db.database,
        benchConfig({
          WORKERS_ENABLED: 'false',
          RATE_LIMIT_UPLOADS_PER_MINUTE: '100000000',
          BODY_WORKER_THREADS: String(threads),
        }),
      );
      try {
        const org = await services.auth.createOrganization(`Bench ${threads}`);
        const { key } = await services.apiKeys.create(systemScope(org.id), { name: 'bench' });
        const options: ClientOptions = {
          api: `${url}/api/v1`,
          headers: { 'x-api-key': key },
          rounds: sized('ROUNDS', 3, 1),
          batchLoads: sized('BATCH_LOADS', 1000, 100),
          csvBytes: sized('CSV_BYTES', 16 * 1024 * 1024 - 4096, 1024 * 1024),
          idleMs: sized('IDLE_MS', 3000, 300),
        };
        const stalls = process.env.STALLS === '1' ? new StallTracer() : undefined;
        const { result, idleLoop, busyLoop, gc } = await runClient(options, stalls);
        const where =
          threads === 0 ? 'bodies read on the main thread' : `bodies read in ${threads} body worker(s)`;
        report(options, result, idleLoop, busyLoop, where);
        figures.push(...headline(result, busyLoop, threads === 0 ? 'main thread' : 'body workers'));
        console.log(`main-thread GC pauses while they arrive: ${gc.summary()}`);
        if (stalls) console.log(`\nstalls over 50 ms:\n${(await stalls.stop()).join('\n')}`);
      } finally {
        await app.close();
      }
    }
  } finally {
    await db.close();
  }
  await recordResults('event-loop', figures);
}

/** While the large requests arrive: what the small requests and the loop saw, and the large ones took. */
function headline(result: ClientResult, busyLoop: Loop, where: string): Figure[] {
  const byName = new Map<string, number[]>();
  for (const l of result.large) byName.set(l.name, [...(byName.get(l.name) ?? []), l.ms]);
  return [
    { name: `${where}: small requests served`, value: result.busy.length, unit: '' },
    { name: `${where}: small requests p99`, value: percentile(result.busy, 99), unit: 'ms' },
    { name: `${where}: longest event-loop delay`, value: busyLoop.max / 1e6, unit: 'ms' },
    ...[...byName].map(([n, t]) => ({
      name: `${where}: ${n}, median`,
      value: percentile(t, 50),
      unit: 'ms',
    })),
  ];
}

type Loop = ReturnType<typeof monitorEventLoopDelay>;

/** The main thread's garbage-collection pauses while the large requests arrive, by kind. */
class GcPauses {
  readonly byKind = new Map<string, number[]>();
  private readonly observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail: unknown = Reflect.get(entry, 'detail');
      const code = detail && typeof detail === 'object' && 'kind' in detail ? detail.kind : null;
      const kind = (typeof code === 'number' && GC_KINDS.get(code)) || 'other';
      this.byKind.set(kind, [...(this.byKind.get(kind) ?? []), entry.duration]);
    }
  });
  start() {
    this.observer.observe({ entryTypes: ['gc'] });
  }
  stop() {
    this.observer.disconnect();
  }
  summary(): string {
    return [...this.byKind]
      .map(([kind, t]) => {
        const total = t.reduce((a, b) => a + b, 0);
        return `${kind} ${t.length} (total ${total.toFixed(0)} ms, max ${Math.max(...t).toFixed(0)} ms, over 50 ms ${t.filter((d) => d > 50).length})`;
      })
      .join('; ');
  }
}

const GC_KINDS = new Map<number, string>([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'scavenge'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'mark-compact'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental marking'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);

/** Runs the client worker, measuring this thread's event loop while it is idle and while it is busy. */
function runClient(
  options: ClientOptions,
  stalls: StallTracer | undefined,
): Promise<{ result: ClientResult; idleLoop: Loop; busyLoop: Loop; gc: GcPauses }> {
  const gc = new GcPauses();
  const idleLoop = monitorEventLoopDelay({ resolution: 5 });
  const busyLoop = monitorEventLoopDelay({ resolution: 5 });
  // The worker loads the client's TypeScript through tsx, as the main thread does.
  const client = new URL('./lib/event-loop-client.ts', import.meta.url).href;
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(client)}, ${JSON.stringify(client)}))`,
    { eval: true, workerData: options },
  );
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: ClientMessage) => {
      if (m.phase === 'idle') idleLoop.enable();
      if (m.phase === 'busy') {
        idleLoop.disable();
        busyLoop.enable();
        gc.start();
        void stalls?.start();
      }
      if (m.phase === 'done') {
        busyLoop.disable();
        gc.stop();
        void worker.terminate();
        resolve({ result: m.result, idleLoop, busyLoop, gc });
      }
    });
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const ms = (ns: number) => (ns / 1e6).toFixed(0);

function report(o: ClientOptions, result: ClientResult, idleLoop: Loop, busyLoop: Loop, where: string) {
  const failed = result.large.filter((l) => l.status >= 500);
  if (failed.length) throw new Error(`large requests answered ${failed.map((f) => f.status).join(', ')}`);
  console.log(
    `\n### event-loop, ${where} (${o.rounds} rounds of 2 x ${o.batchLoads}-load batches of ${mib(result.sizes.batch)}, a ${mib(result.sizes.csv)} carrier CSV and a ${mib(o.csvBytes)} unterminated quoted field; ${result.large.length} large requests)\n`,
  );
  console.log('| small requests | n | p50 ms | p99 ms | max ms | loop delay p99 ms | loop delay max ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, times, loop] of [
    ['idle', result.idle, idleLoop],
    ['while the large requests arrive', result.busy, busyLoop],
  ] as const) {
    console.log(
      `| ${name} | ${times.length} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${Math.max(...times).toFixed(1)} | ${ms(loop.percentile(99))} | ${ms(loop.max)} |`,
    );
  }
  const byName = new Map<string, number[]>();
  for (const l of result.large) byName.set(l.name, [...(byName.get(l.name) ?? []), l.ms]);
  console.log(
    `\nlarge requests (median ms): ${[...byName].map(([n, t]) => `${n} ${percentile(t, 50).toFixed(0)}`).join(', ')}`,
  );
}
