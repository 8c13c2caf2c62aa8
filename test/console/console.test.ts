import { mkdirSync } from 'node:fs';
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import {
  agentEnv,
  agentLoad,
  agentRound,
  carrierEmail,
  laneCarrier,
  outreachesOf,
  reply,
  tenant,
} from '../helpers/agent-factories.js';
import { createCarrier } from '../helpers/carrier-factories.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import {
  besides,
  type ConsoleRig,
  describeInBrowser,
  expectAccessible,
  openConsole,
  signIn,
  startConsoleRig,
} from './console-harness.js';

const unique = () => Math.random().toString(36).slice(2, 8).toUpperCase();

describeInBrowser("the broker's console in a real browser", () => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await startConsoleRig(agentEnv);
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
  });

  /** A tenant with an OWNER, an API key and loads on two lanes. */
  async function brokerage(role: 'OWNER' | 'MEMBER' = 'OWNER') {
    const { user, orgId } = await createTenant(rig.t);
    const key = await createApiKey(rig.t, user.headers);
    const tag = unique();
    const chicago = await createLoad(rig.t, key.headers, {
      load_number: `CHI-${tag}`,
      tms_status: 'Open',
      posted_rate: 2000,
      max_buy_rate: 2400,
      customer_rate: 2900,
      margin: 500,
    });
    const denver = await createLoad(rig.t, key.headers, {
      load_number: `DEN-${tag}`,
      equipment_type: 'REEFER',
      stops: [
        stopPayload('Pickup', { city: 'Denver', state: 'CO' }),
        stopPayload('Dropoff', { city: 'Phoenix', state: 'AZ' }),
      ],
    });
    const member = role === 'MEMBER' ? await createUser(rig.t, orgId, 'MEMBER') : null;
    return { user: member ?? user, owner: user, key, tag, chicago, denver, orgId };
  }

  const offerOn = async (h: Record<string, string>, loadId: string, amount: number, name: string) => {
    const carrier = await createCarrier(rig.t, h, { name });
    const res = await rig.t.app.inject({
      method: 'POST',
      url: '/api/v1/offers',
      headers: h,
      payload: { load_id: loadId, offer_amount: amount, carrier_id: carrier.id },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ id: string }>().id;
  };

  it('signs in, filters and searches the board, and each screen passes axe at 1280x800 and 390 px', async () => {
    const b = await brokerage();
    const { page, errors, close } = await openConsole(rig);
    await page.goto('/');
    await expectAccessible(page, 'sign-in');
    await signIn(page, b.user);
    await page.getByRole('heading', { level: 1, name: 'Loads' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Loads', 'Review', 'Carriers', 'Calls', 'Results', 'Settings']) {
      await expect(nav.getByRole('link', { name, exact: true }).count()).resolves.toBe(1);
    }
    await page.getByRole('link', { name: `CHI-${b.tag}` }).waitFor();
    await expect(page.locator('tbody tr').count()).resolves.toBe(2);
    await page.getByRole('tab', { name: 'All 2', exact: true }).waitFor();
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync('docs/images', { recursive: true });
      await page.screenshot({ path: 'docs/images/console-board.png' });
    }
    await expectAccessible(page, 'board');

    await page.getByLabel('Search').fill(`DEN-${b.tag}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/search=DEN-/);
    await page.getByRole('link', { name: `CHI-${b.tag}` }).waitFor({ state: 'detached' });
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);

    await page.getByLabel('Search').fill('');
    await page.getByLabel('Equipment').selectOption('REEFER');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/equipment_type=REEFER/);
    await page.getByRole('link', { name: `DEN-${b.tag}` }).waitFor();
    await expect(page.locator('tbody tr').count()).resolves.toBe(1);

    for (const [link, heading] of [
      ['Review', 'Review'],
      ['Carriers', 'Carriers'],
      ['Calls', 'Calls'],
      ['Results', 'Results'],
      ['Settings', 'Settings'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await expectAccessible(page, heading);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Loads', exact: true }).click();
    await page.locator('tbody tr').first().waitFor();
    await expectAccessible(page, 'board on a phone');
    expect(errors).toEqual([]);
    await close();
  });

  it('opens a load, reads its timeline, accepts an offer and sees a second accept refused with the reason', async () => {
    const b = await brokerage();
    await offerOn(b.key.headers, b.chicago, 2100, `Alpha Haulers ${b.tag}`);
    await offerOn(b.key.headers, b.chicago, 2200, `Beta Freight ${b.tag}`);
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, b.user, `/loads/${b.chicago}`);
    await page.getByRole('heading', { level: 1, name: `CHI-${b.tag}` }).waitFor();
    for (const name of ['Stops', 'Offers', 'Agent activity', 'Calls', 'Messages']) {
      await page.getByRole('heading', { level: 2, name }).waitFor();
    }
    await expect(page.getByText('Margin', { exact: true }).count()).resolves.toBe(1);
    const timeline = page.locator('ol.timeline li');
    await timeline.first().waitFor();
    await expect(timeline.count()).resolves.toBe(2);
    await expectAccessible(page, 'load page');

    const alpha = page.locator('li.card', { hasText: `Alpha Haulers ${b.tag}` });
    await alpha.getByRole('button', { name: 'Accept' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.textContent()).resolves.toContain(`Alpha Haulers ${b.tag}`);
    await expect(dialog.textContent()).resolves.toContain('$2,100');
    await expectAccessible(page, 'confirmation dialog');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText(`Booked with Alpha Haulers ${b.tag}`).waitFor();

    const beta = page.locator('li.card', { hasText: `Beta Freight ${b.tag}` });
    await beta.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'offer_already_accepted' });
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain('already booked');
    // The 409 is the server's answer, shown; the browser logs the failed request, nothing else.
    expect(errors.filter((e) => !e.includes('409'))).toEqual([]);
    await close();
  });

  it('hands a load to the agent and starts a call', async () => {
    const b = await brokerage();
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, b.user, `/loads/${b.denver}`);
    await page.getByRole('button', { name: 'Hand to the agent' }).click();
    await page.getByText('The agent works this load.').waitFor();
    await page.getByRole('button', { name: 'Take back from the agent' }).waitFor();
    // A number the API refuses: its message on the field, and what was typed stays.
    await page.getByLabel('Phone number').fill('555 2671');
    await page.getByRole('button', { name: 'Start call' }).click();
    await page.getByText('Must be an E.164 phone number').waitFor();
    await expect(page.getByLabel('Phone number').inputValue()).resolves.toBe('555 2671');
    await page.getByLabel('Phone number').fill('+14155552671');
    await page.getByRole('button', { name: 'Start call' }).click();
    await page
      .locator('section', { has: page.getByRole('heading', { name: 'Calls' }) })
      .locator('li.card')
      .first()
      .waitFor();
    await page.locator('li.card', { hasText: 'To +14155552671' }).waitFor();
    expect(errors.filter((e) => !e.includes('422'))).toEqual([]);
    await close();
  });

  it('counters and declines from the review queue, the API’s refusal shown on the amount', async () => {
    const { h, user } = await tenant(rig.t);
    const loadId = await agentLoad(rig.t, h, { load_number: `REV-${unique()}` });
    const first = await laneCarrier(rig.t, h, { name: `Gamma Lines ${unique()}` });
    const second = await laneCarrier(rig.t, h, { name: `Delta Trucking ${unique()}` });
    await agentRound(rig.t);
    const outreaches = await outreachesOf(rig.t, h, loadId);
    for (const carrierId of [first, second]) {
      const o = defined(
        outreaches.find((x) => x.carrier_id === carrierId),
        'outreach',
      );
      const answered = await reply(rig.t, o, await carrierEmail(rig.t, h, carrierId), '1950 works for us');
      expect(answered.json().reason).toBe('review');
    }
    await agentRound(rig.t);
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/review');
    await page.getByRole('heading', { level: 1, name: 'Review' }).waitFor();
    const cards = page.locator('li.card');
    await cards.nth(1).waitFor();
    await expectAccessible(page, 'review queue');

    const gamma = cards.filter({ hasText: 'Gamma Lines' });
    await gamma.getByRole('button', { name: 'Counter' }).click();
    await gamma.getByLabel('Counter amount').fill('5000');
    await gamma.getByRole('button', { name: 'Send counter' }).click();
    await gamma.getByText("over the load's max_buy_rate").waitFor();
    await expect(gamma.getByLabel('Counter amount').inputValue()).resolves.toBe('5000');
    await gamma.getByLabel('Counter amount').fill('1900');
    await gamma.getByRole('button', { name: 'Send counter' }).click();
    await gamma.waitFor({ state: 'detached' });

    const delta = cards.filter({ hasText: 'Delta Trucking' });
    await delta.getByRole('button', { name: 'Decline' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await delta.waitFor({ state: 'detached' });
    await page.getByText('Nothing waits for a decision.').waitFor();
    expect(errors.filter((e) => !e.includes('422'))).toEqual([]);
    await close();
  });

  it('updates a row live when another client creates an offer, and announces it', async () => {
    const b = await brokerage();
    const { page, errors, close } = await openConsole(rig);
    const streamed = page.waitForResponse((r) => r.url().includes('/api/v1/events/stream?'));
    await signIn(page, b.user);
    const row = page.locator('tbody tr', { hasText: `CHI-${b.tag}` });
    await row.waitFor();
    await expect(row.locator('td').nth(6).textContent()).resolves.toBe('0');
    await streamed;
    await offerOn(b.key.headers, b.chicago, 1875, `Live Carrier ${b.tag}`);
    await row.getByText('1 · best $1,875').waitFor({ timeout: 15_000 });
    await page.getByRole('status').filter({ hasText: 'New offer' }).waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('says so when the connection drops, and after it catches up with what happened meanwhile', async () => {
    const b = await brokerage();
    const { page, context, errors, close } = await openConsole(rig);
    const streamed = page.waitForResponse((r) => r.url().includes('/api/v1/events/stream?'));
    await signIn(page, b.user);
    const row = page.locator('tbody tr', { hasText: `CHI-${b.tag}` });
    await row.waitFor();
    await streamed;
    await offerOn(b.key.headers, b.chicago, 2050, `Early Carrier ${b.tag}`);
    await row.getByText('1 · best $2,050').waitFor({ timeout: 15_000 });
    // The network goes, and with it the open stream (the server's side of it is cut too).
    await context.setOffline(true);
    rig.t.app.server.closeAllConnections();
    await page.getByRole('alert').filter({ hasText: 'Connection lost' }).waitFor();
    // Written while the browser is away: it comes with the replay once the stream is open again.
    await offerOn(b.key.headers, b.chicago, 1990, `Away Carrier ${b.tag}`);
    const reopened = page.waitForResponse((r) => r.url().includes('last_event_id='));
    await context.setOffline(false);
    await reopened;
    await row.getByText('2 · best $1,990').waitFor({ timeout: 15_000 });
    await page.getByRole('alert').filter({ hasText: 'Connection lost' }).waitFor({ state: 'detached' });
    // What the browser itself logs about the cut stream and the requests that failed while offline.
    expect(
      // A request cut by the drop may also end with an empty response, depending on when it was cut.
      errors.filter(
        (e) => !/ERR_INTERNET_DISCONNECTED|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_EMPTY_RESPONSE/.test(e),
      ),
    ).toEqual([]);
    await close();
  });

  it('signs out: the session ends, and its refresh cookie no longer works', async () => {
    const b = await brokerage();
    const { page, context, errors, close } = await openConsole(rig);
    await signIn(page, b.user);
    // A sign-out the server cannot complete: the session goes on, and the page says why.
    await page.route('**/api/v1/auth/logout', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'service_unavailable', message: 'Try again shortly.' } }),
      }),
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').filter({ hasText: 'Still signed in. Try again shortly.' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.unroute('**/api/v1/auth/logout');
    // The board's list request after the reload is held in the browser until sign-out is over.
    const held: Route[] = [];
    const boardList = (url: URL) => url.pathname === '/api/v1/loads';
    await page.route(boardList, (route) => void held.push(route));
    await page.reload();
    // A reload signs in again with the refresh cookie alone: no token in web storage.
    await page.getByRole('heading', { level: 1, name: 'Loads' }).waitFor();
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await expect(page.evaluate(() => Reflect.get(globalThis, 'localStorage').length)).resolves.toBe(0);
    await expect(page.evaluate(() => Reflect.get(globalThis, 'sessionStorage').length)).resolves.toBe(0);
    const cookie = defined(
      (await context.cookies()).find((c) => c.name === 'envoy_refresh'),
      'refresh cookie',
    );
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth/refresh' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    // Sign-out aborted the held request: let go now, it never reaches the server with the ended session.
    await page.unroute(boardList);
    const late = await Promise.all(
      held.map(async (route) => {
        await route.continue().catch(() => undefined);
        return (await route.request().response())?.status() ?? 'aborted';
      }),
    );
    expect(late).toEqual(held.map(() => 'aborted'));
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const refused = await rig.t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      headers: {
        origin: rig.origin,
        host: new URL(rig.origin).host,
        cookie: `envoy_refresh=${cookie.value}`,
      },
    });
    expect(refused.statusCode).toBe(401);
    expect(besides(errors, 503)).toEqual([]);
    await close();
  });

  it('shows a MEMBER no customer rate and no margin, and switches to another organization of the user', async () => {
    const b = await brokerage('MEMBER');
    // The same person is the OWNER of a second brokerage.
    const second = await brokerage();
    await rig.t.services.auth.createUser({
      organizationId: second.orgId,
      email: b.user.email,
      password: b.user.password,
      role: 'OWNER',
    });
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, b.user, `/loads/${b.chicago}`);
    await page.getByRole('heading', { level: 1, name: `CHI-${b.tag}` }).waitFor();
    await page.getByText('Max buy rate').waitFor();
    await expect(page.getByText('Margin', { exact: true }).count()).resolves.toBe(0);
    await expect(page.getByText('Customer rate', { exact: true }).count()).resolves.toBe(0);
    await expect(page.getByText('MEMBER', { exact: true }).count()).resolves.toBe(1);

    await page.getByRole('link', { name: 'Loads', exact: true }).click();
    const org = page.getByLabel('Organization');
    await org.selectOption({ index: 1 });
    await page.getByRole('link', { name: `CHI-${second.tag}` }).click();
    await page.getByRole('heading', { level: 1, name: `CHI-${second.tag}` }).waitFor();
    await page.getByText('Margin', { exact: true }).waitFor();
    await expect(page.getByText('OWNER', { exact: true }).count()).resolves.toBe(1);
    expect(errors).toEqual([]);
    await close();
  });
});
