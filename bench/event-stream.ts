import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { z } from 'zod';
import { systemScope } from '../src/domain/scope.js';
import { defined } from '../src/lib/defined.js';
import { type PgBouncer, pgBouncerInstalled, startPgBouncer } from '../test/helpers/pgbouncer.js';
import { benchConfig, benchDatabase, listenApp, listenAppOn, sized } from './lib/harness.js';
import { type Figure, recordResults } from './lib/results.js';

const EVENTS = sized('BENCH_EVENTS', 1000, 20);
const CONCURRENCY = sized('BENCH_WRITERS', 8, 2);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return defined(
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)],
    'sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]',
  );
};

/** A stream held open on `url`, calling `onEvent` with each message's id and data as it arrives. */
function openStream(url: string, headers: Record<string, string>, onEvent: (data: string) => void) {
  return new Promise<http.ClientRequest>((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
      const parser = createParser({ onEvent: (m) => m.id && onEvent(m.data) });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      resolve(request);
    });
    request.on('error', reject);
  });
}

/**
 * Delivery latency of the live event stream across instances: two instances on one database, a
 * stream held on the second, loads written through the first (POST /loads, one transaction and
 * one load.created event each). For each event, the time from sending the write to the event's
 * arrival on the stream, beside the write's own round trip (the baseline the stream adds to).
 * Sequential writes first, then CONCURRENCY writers at once. Measured with both instances
 * straight on PostgreSQL, then (when PgBouncer is installed) both behind PgBouncer in
 * transaction mode with DB_POOLER=transaction, their listeners on the database's own address.
 */
export async function run() {
  const db = await benchDatabase();
  const config = benchConfig({ WORKERS_ENABLED: 'false' });
  const direct = [await listenApp(db.database, config), await listenApp(db.database, config)] as const;
  const org = await direct[0].services.auth.createOrganization('Bench streams');
  const { key } = await direct[0].services.apiKeys.create(systemScope(org.id), { name: 'bench' });
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const closers: (() => Promise<unknown>)[] = [];
  let bouncer: PgBouncer | undefined;
  const figures: Figure[] = [];
  try {
    console.log(`\n### Event stream: write on instance 1, stream on instance 2 (${EVENTS} events each)\n`);
    console.log(
      '| instances | writes | events | write p50 ms | write p99 ms | delivered p50 ms | delivered p99 ms | max ms |',
    );
    console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    figures.push(
      ...(await measureStreams('straight to PostgreSQL', direct[0].url, direct[1].url, headers, 0)),
    );
    if (pgBouncerInstalled) {
      bouncer = await startPgBouncer(db.url, { poolSize: 8 });
      const pooled = async () => {
        const started = await listenAppOn(bouncer?.pooled(db.url) ?? db.url, db.url, 'transaction', config);
        closers.push(() => started.close());
        return started.url;
      };
      figures.push(
        ...(await measureStreams('behind PgBouncer', await pooled(), await pooled(), headers, 10 * EVENTS)),
      );
    } else {
      console.log('\n(PgBouncer is not installed: the pooled rows are left out)');
    }
  } finally {
    for (const close of closers.reverse()) await close();
    await bouncer?.stop();
    for (const app of direct) await app.app.close();
    await db.close();
  }
  await recordResults('event-stream', figures);
}

/** One table's rows for a writer and a reader instance; load numbers start at `from`. */
async function measureStreams(
  label: string,
  writerUrl: string,
  readerUrl: string,
  headers: Record<string, string>,
  from: number,
): Promise<Figure[]> {
  const figures: Figure[] = [];
  const sentAt = new Map<string, number>();
  const arrivals: number[] = [];
  let waiting: (() => void) | null = null;
  const stream = await openStream(`${readerUrl}/api/v1/events/stream?types=load.created`, headers, (data) => {
    const event = z.object({ data: z.object({ load_number: z.string() }) }).parse(JSON.parse(data));
    const sent = sentAt.get(event.data.load_number);
    if (sent !== undefined) arrivals.push(performance.now() - sent);
    waiting?.();
  });
  const write = async (n: number) => {
    const loadNumber = `BENCH-${from + n}`;
    const body = JSON.stringify({
      load_number: loadNumber,
      equipment_type: 'VAN',
      stops: [
        { type: 'Pickup', location: { city: 'Chicago', state: 'IL' }, expected_date: '2026-12-01T14:00:00Z' },
        { type: 'Dropoff', location: { city: 'Dallas', state: 'TX' }, expected_date: '2026-12-03T18:00:00Z' },
      ],
    });
    const started = performance.now();
    sentAt.set(loadNumber, started);
    const res = await fetch(`${writerUrl}/api/v1/loads`, { method: 'POST', headers, body });
    if (res.status !== 201) throw new Error(`write answered ${res.status}: ${await res.text()}`);
    return performance.now() - started;
  };
  const allArrived = async (count: number) => {
    const deadline = performance.now() + 10_000;
    while (arrivals.length < count) {
      if (performance.now() > deadline) throw new Error(`${count - arrivals.length} events never arrived`);
      await new Promise<void>((resolve) => {
        waiting = resolve;
        setTimeout(resolve, 50);
      });
    }
  };
  const report = (title: string, writes: number[], delivered: number[]) => {
    console.log(
      `| ${label} | ${title} | ${delivered.length} | ${percentile(writes, 50).toFixed(1)} | ${percentile(writes, 99).toFixed(1)} | ` +
        `${percentile(delivered, 50).toFixed(1)} | ${percentile(delivered, 99).toFixed(1)} | ${Math.max(...delivered).toFixed(1)} |`,
    );
    const name = `${label}, ${title}`;
    figures.push(
      { name: `${name}: write p50`, value: percentile(writes, 50), unit: 'ms' },
      { name: `${name}: write p99`, value: percentile(writes, 99), unit: 'ms' },
      { name: `${name}: delivered p50`, value: percentile(delivered, 50), unit: 'ms' },
      { name: `${name}: delivered p99`, value: percentile(delivered, 99), unit: 'ms' },
    );
  };
  try {
    for (let i = 0; i < 20; i++) await write(-1 - i); // warm-up: plans, connections
    await allArrived(20);
    arrivals.length = 0;
    const sequential: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      sequential.push(await write(i));
      await allArrived(i + 1);
    }
    report('one at a time', sequential, arrivals.splice(0));

    const concurrent: number[] = [];
    let next = EVENTS;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < 2 * EVENTS) concurrent.push(await write(next++));
      }),
    );
    await allArrived(EVENTS);
    report(`${CONCURRENCY} writers at once`, concurrent, arrivals.splice(0));
  } finally {
    stream.destroy();
  }
  return figures;
}
