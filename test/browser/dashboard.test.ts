import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../console/console-harness.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createOrg, createUser } from '../helpers/factories.js';
import { portOf } from '../helpers/listening.js';
import { createLoad } from '../helpers/load-factories.js';

const PAGE = readFileSync(new URL('./dashboard-page.html', import.meta.url), 'utf8');

/** A web server for the dashboard page: another origin than the API's. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${portOf(server)}` };
}

/** What the page leaves in `globalThis.outcome` when it is done. */
const outcomeSchema = z.object({
  steps: z.array(z.array(z.unknown())),
  refreshToken: z.boolean().optional(),
  loadIds: z.array(z.string()).optional(),
  events: z
    .array(
      z.object({
        lastEventId: z.string(),
        id: z.string(),
        type: z.string(),
        data: z.object({ id: z.string(), status: z.string() }),
      }),
    )
    .optional(),
  done: z.boolean().optional(),
  error: z.string().optional(),
});
type Outcome = z.infer<typeof outcomeSchema>;

describe.skipIf(!existsSync(CHROMIUM))('a dashboard in a real browser on another origin', () => {
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  let t: TestApp;
  let api: string;
  let browser: Browser;

  beforeAll(async () => {
    allowed = await pageServer();
    other = await pageServer();
    t = await buildTestApp({ env: { CORS_ORIGINS: allowed.origin, WORKERS_ENABLED: 'false' } });
    api = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    allowed?.server.close();
    other?.server.close();
  });

  /** A tenant with a load and a pending offer, and the dashboard page opened on `origin`. */
  async function openDashboard(origin: string): Promise<Outcome & { offerId: string; loadId: string }> {
    const user = await createUser(t, await createOrg(t), 'ADMIN');
    const key = await createApiKey(t, user.headers);
    const loadId = await createLoad(t, key.headers);
    const offer = await t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: key.headers,
      payload: { load_id: loadId, offer_amount: 2150 },
    });
    expect(offer.statusCode, offer.body).toBe(201);
    const offerId = offer.json<{ id: string }>().id;
    const query = new URLSearchParams({ api, email: user.email, password: user.password, offer: offerId });
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/dashboard.html?${query}`);
      const outcome = await page.waitForFunction(() => Reflect.get(globalThis, 'outcome'), null, {
        timeout: 15_000,
      });
      return { ...outcomeSchema.parse(await outcome.jsonValue()), offerId, loadId };
    } finally {
      await page.close();
    }
  }

  it('signs in, lists loads, accepts an offer and receives its event through EventSource with a ticket', async () => {
    const outcome = await openDashboard(allowed.origin);
    expect(outcome.error).toBeUndefined();
    expect(outcome.done).toBe(true);
    expect(outcome.steps).toEqual([
      // The script could read X-Request-ID and the rate-limit headers: they are exposed.
      ['login', 200, true],
      ['loads', 200, true],
      ['ticket', 201],
      ['stream', 'open'],
      ['accept', 200, 'accepted'],
    ]);
    expect(outcome.refreshToken).toBe(true);
    expect(outcome.loadIds).toEqual([outcome.loadId]);
    expect(outcome.events).toHaveLength(1);
    const [event] = defined(outcome.events, 'outcome.events');
    expect(defined(event, 'event').type).toBe('offer.status_changed');
    expect(defined(event, 'event').lastEventId).toBe(defined(event, 'event').id);
    expect(defined(event, 'event').data).toMatchObject({ id: outcome.offerId, status: 'accepted' });
  });

  it('is blocked by the browser on an origin the API does not allow', async () => {
    const outcome = await openDashboard(other.origin);
    expect(outcome.done).toBeUndefined();
    expect(outcome.error).toMatch(/Failed to fetch/);
    expect(outcome.steps).toEqual([]);
  });
});
