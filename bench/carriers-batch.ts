import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { systemScope } from '../src/domain/scope.js';
import { defined } from '../src/lib/defined.js';
import { benchConfig, benchDatabase, listenApp, sized } from './lib/harness.js';
import { recordResults } from './lib/results.js';

const ITEMS = 1000;
const REQUESTS = sized('BENCH_REQUESTS', 20, 2);

function percentile(values: number[], p: number) {
  const sorted = [...values].sort((a, b) => a - b);
  return defined(
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)],
    'sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]',
  );
}

/** 1000 carriers with two contacts each, phones and e-mails (the fraud rule runs on them). */
function carriers(round: number, tmsStatus: string) {
  return Array.from({ length: ITEMS }, (_, i) => {
    const n = round * ITEMS + i;
    const phone = `+1312${String(2000000 + n).padStart(7, '0')}`;
    return {
      carrier: {
        name: `Bench Carrier ${n}`,
        tms_carrier_id: `TMS-${n}`,
        mc_number: String(1_000_000 + n),
        dot_number: String(3_000_000 + n),
        phone,
        email: `dispatch${n}@carrier.example`,
        equipment_types: ['VAN', 'REEFER'],
        on_time_pickup_pct: 90 + (n % 10),
        tms_status: tmsStatus,
        contacts: [
          { contact_type: 'DISPATCHER', name: `Dispatcher ${n}`, phone },
          { contact_type: 'DRIVER', name: `Driver ${n}`, email: `driver${n}@carrier.example` },
        ],
      },
    };
  });
}

/**
 * 1000 new carriers per request, then the same 1000 again as updates, 20 requests each, on the
 * embedded database unless BENCH_DATABASE_URL is set. Compliance checks run in the background in
 * production; the worker is off here so the figures are the request's own.
 */
export async function run() {
  const db = await benchDatabase();
  const { app, url, services } = await listenApp(db.database, benchConfig({ WORKERS_ENABLED: 'false' }));
  try {
    const auth = services.auth;
    const org = await auth.createOrganization('Bench');
    const key = await services.apiKeys.create(systemScope(org.id), {
      name: 'bench',
    });
    const post = async (body: unknown) => {
      const started = performance.now();
      const res = await fetch(`${url}/api/v1/carriers/batch`, {
        method: 'POST',
        headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer: unknown = await res.json();
      const ms = performance.now() - started;
      if (res.status !== 200)
        throw new Error(`batch answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      return { ms, json: z.object({ created: z.number(), updated: z.number() }).parse(answer) };
    };
    // Warm-up: one create and one update batch outside the measured rounds.
    await post({ carriers: carriers(REQUESTS, 'warm') });
    await post({ carriers: carriers(REQUESTS, 'warm-again') });

    const created: number[] = [];
    const updated: number[] = [];
    for (let round = 0; round < REQUESTS; round++) {
      const c = await post({ carriers: carriers(round, 'ACTIVE') });
      if (c.json.created !== ITEMS) throw new Error('expected every carrier to be created');
      created.push(c.ms);
      const u = await post({ carriers: carriers(round, 'UPDATED') });
      if (u.json.updated !== ITEMS) throw new Error('expected every carrier to be updated');
      updated.push(u.ms);
    }
    console.log(`\n### carriers-batch (${ITEMS} carriers a request, ${REQUESTS} requests each)\n`);
    console.log('| request | p50 ms | p95 ms | min ms | max ms |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const [name, values] of [
      ['1000 new carriers', created],
      ['the same 1000 as updates', updated],
    ] as const) {
      console.log(
        `| ${name} | ${percentile(values, 50).toFixed(0)} | ${percentile(values, 95).toFixed(0)} | ${Math.min(...values).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`,
      );
    }
    await recordResults('carriers-batch', [
      { name: '1000 new carriers: p50', value: percentile(created, 50), unit: 'ms', target: '≤ 150' },
      { name: '1000 new carriers: p95', value: percentile(created, 95), unit: 'ms' },
      { name: 'the same 1000 as updates: p50', value: percentile(updated, 50), unit: 'ms', target: '≤ 150' },
      { name: 'the same 1000 as updates: p95', value: percentile(updated, 95), unit: 'ms' },
    ]);
  } finally {
    await app.close();
    await db.close();
  }
}
