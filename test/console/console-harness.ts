import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import type { TestUser } from '../helpers/factories.js';

/** Debian's Chromium; .ci/run installs it. Without it (a laptop without Chromium) the tests are skipped. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** As root in a sandboxed machine with no outside network: no sandbox, no background traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * The console's scenarios, skipped without Chromium. A scenario's limit is a watchdog, not a
 * measure: each step has its own (8 s, see `openConsole`) and names its locator when it fails, and
 * twenty steps on a machine busy with a second test run and the benchmarks can pass 20 s in all
 * without any step being slow.
 */
export const describeInBrowser = (name: string, scenarios: () => void) =>
  describe.skipIf(!existsSync(CHROMIUM))(name, { timeout: 60_000 }, scenarios);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsoleRig {
  t: TestApp;
  /** The console's origin, e.g. http://127.0.0.1:40123. */
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/** One server (the real app on its own database, serving a fresh build of the console) and one browser. */
export async function startConsoleRig(env: Record<string, string> = {}): Promise<ConsoleRig> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'envoy-console-'));
  await buildConsole({ outDir });
  const t = await buildTestApp({ env: { WORKERS_ENABLED: 'false', CONSOLE_DIR: outDir, ...env } });
  const origin = (await t.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  return {
    t,
    origin,
    browser,
    async close() {
      await browser.close();
      await t.close();
      rmSync(outDir, { recursive: true, force: true });
    },
  };
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Errors the page logged or threw: a test ends with none. */
  errors: string[];
  close(): Promise<void>;
}

/** A fresh browser profile (no cookies) with one page that records console errors. */
export async function openConsole(
  rig: ConsoleRig,
  viewport = { width: 1280, height: 800 },
): Promise<ConsolePage> {
  const context = await rig.browser.newContext({ viewport, baseURL: rig.origin });
  const page = await context.newPage();
  // Well within the test's own time: a step that cannot happen fails naming its locator.
  page.setDefaultTimeout(8000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, context, errors, close: () => context.close() };
}

/** What the browser logged, less the answers of these statuses that the test itself provoked. */
export const besides = (errors: string[], ...statuses: number[]) =>
  errors.filter((e) => !statuses.some((s) => e.includes(`${s}`)));

export async function signIn(page: Page, user: Pick<TestUser, 'email' | 'password'>, at = '/loads') {
  await page.goto(at);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
}

/** axe-core on the page as it is: no serious or critical violation (what was found is named). */
export async function expectAccessible(page: Page, screen: string) {
  await page.evaluate(AXE);
  // Runs in the page: `axe.run()` checks the whole document.
  const result: AxeResult = await page.evaluate(() =>
    Reflect.get(globalThis, 'axe').run(Reflect.get(globalThis, 'document'), { resultTypes: ['violations'] }),
  );
  const grave = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  expect(grave, `axe on ${screen}`).toEqual([]);
}
