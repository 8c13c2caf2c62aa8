import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildConsole } from '../scripts/build-console.mjs';
import { systemScope } from '../src/domain/scope.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/console/console-harness.js';
import { benchConfig, benchDatabase, listenApp, reusedBenchDatabase, sized, smoke } from './lib/harness.js';
import { ingest, percentile } from './lib/load-payloads.js';
import { recordResults } from './lib/results.js';

/**
 * The console in a real browser over a large organization: the time from navigation to the first
 * row of the load board, over BENCH_PAGE_LOADS (default 20) loads of the page by a signed-in rep,
 * with LOADS loads in the organization (default 1,000,000; BENCH_SMOKE=1: 200), ingested through
 * POST /loads/batch as bench/loads.ts does. Each load of the page is a whole visit: the page and
 * its assets from the server (the browser's cache off), a refresh by cookie, GET /auth/me, the
 * board's list and tab counts, the saved views and the event stream. Prints the bundle's
 * compressed size and the p50 and p95.
 *
 * BENCH_DATABASE_URL uses a server of your own (else an embedded PostgreSQL); BENCH_KEEP=1 keeps
 * the database and BENCH_REUSE=<database name> measures again on a kept one (no ingestion).
 * Without Chromium (CHROMIUM_PATH, default /usr/bin/chromium) it says so and measures nothing.
 */
export async function run() {
  const built = await buildConsole({ outDir: mkdtempSync(path.join(os.tmpdir(), 'envoy-console-bench-')) });
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `console bundle, initial download (page, script, stylesheet): ${kib(built.initial.raw)} raw, ` +
      `${kib(built.initial.gzip)} gzip, ${kib(built.initial.brotli)} brotli (the server sends brotli when accepted)`,
  );
  const download = [
    {
      name: 'initial download (page, script, stylesheet), gzip',
      value: built.initial.gzip / 1024,
      unit: 'KiB',
    },
    { name: 'initial download, brotli (as sent)', value: built.initial.brotli / 1024, unit: 'KiB' },
  ];
  if (!existsSync(CHROMIUM)) {
    await recordResults('console', download);
    console.log(`no Chromium at ${CHROMIUM}: the browser measurement is skipped`);
    rmSync(built.outDir, { recursive: true, force: true });
    return;
  }
  const reuse = process.env.BENCH_REUSE;
  const db = reuse ? await reusedBenchDatabase(reuse) : await benchDatabase();
  const { app, url, services } = await listenApp(
    db.database,
    benchConfig({
      WORKERS_ENABLED: 'false',
      CONSOLE_DIR: built.outDir,
      // Each visit opens the stream anew; the closed ones are let go at their next heartbeat.
      EVENT_STREAM_MAX_PER_ORGANIZATION: '1000',
    }),
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const rep = await organization(services, db.database.pool, url, reuse !== undefined);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: url });
    const page = await context.newPage();
    // The moment the first row exists, noted by the page itself (an init script, which the page's CSP does not govern).
    await context.addInitScript({ content: FIRST_ROW_PROBE });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto('/loads');
    await page.getByLabel('Email').fill(rep.email);
    await page.getByLabel('Password').fill(rep.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });

    const visits = sized('BENCH_PAGE_LOADS', 20, 5);
    const times: number[] = [];
    const phases: Record<string, number[]> = {};
    for (let i = 0; i < visits; i++) {
      await page.goto('/loads');
      await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });
      times.push(await page.evaluate(() => Number(Reflect.get(globalThis, '__firstRow'))));
      const ended: Record<string, number> = await page.evaluate(PHASES);
      for (const [name, at] of Object.entries(ended)) phases[name] = [...(phases[name] ?? []), at];
    }
    const ms = (n: number) => `${Math.round(n)} ms`;
    console.log(
      `first board row after navigation, ${rep.loads.toLocaleString('en-US')} loads, ${visits} visits: ` +
        `p50 ${ms(percentile(times, 50))}, p95 ${ms(percentile(times, 95))}, max ${ms(Math.max(...times))}` +
        (smoke ? ' (smoke size: the figures mean nothing)' : ''),
    );
    console.log(`  each: ${times.map((t) => Math.round(t)).join(', ')}`);
    console.log(
      `  p50 of when each step ended: ${Object.entries(phases)
        .map(([name, at]) => `${name} ${ms(percentile(at, 50))}`)
        .join(', ')}`,
    );
    const row = `first board row, ${rep.loads.toLocaleString('en-US')} loads, ${visits} visits`;
    await recordResults('console', [
      ...download,
      { name: `${row}: p50`, value: percentile(times, 50), unit: 'ms' },
      { name: `${row}: p95`, value: percentile(times, 95), unit: 'ms', target: '< 1000' },
      { name: `${row}: max`, value: Math.max(...times), unit: 'ms' },
    ]);
  } finally {
    await browser.close();
    await app.close();
    rmSync(built.outDir, { recursive: true, force: true });
    if (process.env.BENCH_KEEP === '1' || reuse) {
      console.log(`kept database: ${db.url}`);
      await db.database.close();
    } else {
      await db.close();
    }
  }
}

/** Runs in each new document before the page's own scripts: notes when the board's first row appears. */
const FIRST_ROW_PROBE = `(() => {
  const observer = new MutationObserver(() => {
    if (document.querySelector('tbody tr')) {
      globalThis.__firstRow = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

/** When the visit's steps ended, from the page's resource timing (ms since navigation). */
const PHASES = `(() => {
  const ends = {};
  const nav = performance.getEntriesByType('navigation')[0];
  ends.page = nav ? nav.responseEnd : NaN;
  for (const r of performance.getEntriesByType('resource')) {
    const u = new URL(r.name);
    const name = u.pathname.startsWith('/assets/') ? (u.pathname.endsWith('.js') ? 'script' : 'stylesheet')
      : u.pathname === '/api/v1/auth/refresh' ? 'refresh'
      : u.pathname === '/api/v1/loads' ? 'list'
      : u.pathname === '/api/v1/loads/stats' ? 'counts' : null;
    if (name && ends[name] === undefined) ends[name] = r.responseEnd;
  }
  return ends;
})()`;

const REP = { email: 'rep@console-bench.example', password: 'console-bench-password-1' };

/** The organization and its rep: made and filled with LOADS loads, or found again (BENCH_REUSE). */
async function organization(
  services: Awaited<ReturnType<typeof listenApp>>['services'],
  pool: import('pg').Pool,
  url: string,
  reused: boolean,
) {
  if (reused) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM loads WHERE organization_id =
         (SELECT id FROM organizations WHERE name = 'Console Bench Brokerage' LIMIT 1)`,
    );
    return { ...REP, loads: rows[0]?.n ?? 0 };
  }
  const count = sized('LOADS', 1_000_000, 200);
  const org = await services.auth.createOrganization('Console Bench Brokerage');
  await services.auth.createUser({ organizationId: org.id, ...REP, role: 'OWNER' });
  const key = (await services.apiKeys.create(systemScope(org.id), { name: 'bench' })).key;
  let done = 0;
  const ingested = await ingest(`${url}/api/v1`, { 'x-api-key': key }, 'CB', 0, count, {
    onBatch: () => {
      done += 1000;
      if (done % 100_000 === 0) console.log(`  ingested ${done.toLocaleString('en-US')}`);
    },
  });
  console.log(`ingested ${count.toLocaleString('en-US')} loads in ${ingested.seconds.toFixed(0)} s`);
  return { ...REP, loads: count };
}
