import { afterAll, beforeAll, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { drainWorker, simulatedEmail } from '../helpers/app.js';
import { createApiKey, createTenant, createUser } from '../helpers/factories.js';
import { createLoad, stopPayload } from '../helpers/load-factories.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
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

describeInBrowser("the broker's console, part 2, in a real browser", () => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await startConsoleRig();
  }, 120_000);
  afterAll(async () => {
    await rig?.close();
  });

  const inject = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    headers: Record<string, string>,
    payload?: Record<string, unknown>,
  ) =>
    rig.t.app.inject({
      method,
      url: `/api/v1${url}`,
      headers,
      ...(payload === undefined ? {} : { payload }),
    });

  /** A brokerage with handed loads on two lanes, two of them booked: the history the results read. */
  async function history() {
    const { user, orgId } = await createTenant(rig.t);
    const key = await createApiKey(rig.t, user.headers);
    const tag = unique();
    const handed = {
      tms_status: 'Open',
      assigned_to_ai_agent: true,
      posted_rate: 2000,
      max_buy_rate: 2400,
      customer_rate: 2800,
    };
    const loads: string[] = [];
    for (let i = 0; i < 3; i++)
      loads.push(await createLoad(rig.t, key.headers, { load_number: `IL-${tag}-${i}`, ...handed }));
    for (let i = 0; i < 2; i++) {
      loads.push(
        await createLoad(rig.t, key.headers, {
          load_number: `CO-${tag}-${i}`,
          ...handed,
          stops: [
            stopPayload('Pickup', { city: 'Denver', state: 'CO' }),
            stopPayload('Dropoff', { city: 'Phoenix', state: 'AZ' }),
          ],
        }),
      );
    }
    for (const [i, loadId] of [loads[0], loads[3]].entries()) {
      const carrier = await inject('POST', '/carriers', key.headers, { name: `Booked ${tag} ${i}` });
      const offer = await inject('POST', '/offers', key.headers, {
        load_id: loadId,
        offer_amount: 1900 + i * 300,
        carrier_id: carrier.json().id,
      });
      expect(offer.statusCode, offer.body).toBe(201);
      const accepted = await inject('PATCH', `/offers/${offer.json().id}`, user.headers, {
        status: 'accepted',
      });
      expect(accepted.statusCode, accepted.body).toBe(200);
    }
    return { user, key, orgId, tag };
  }

  it('reads the results of a seeded history as the API gives them, charts them, exports the CSV; a MEMBER sees no margin', async () => {
    const h = await history();
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, h.user, '/results?group_by=lane');
    await page.getByRole('heading', { level: 1, name: 'Results' }).waitFor();
    const table = page.locator('table.figures');
    await table.locator('tbody tr').nth(1).waitFor();
    await page.locator('.chart canvas').first().waitFor();
    await expectAccessible(page, 'results');

    // The API's figures for the same range and grouping, row by row.
    const from = new URL(page.url()).searchParams.get('from');
    const day = new Date().toISOString().slice(0, 10);
    const api = await inject(
      'GET',
      `/agent/results?from=${from ?? day}T00:00:00Z&to=${new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString()}&group_by=lane`,
      h.user.headers,
    );
    expect(api.statusCode, api.body).toBe(200);
    const rows: {
      group: string;
      loads_handed: number;
      covered: number;
      coverage_rate: number;
      margin_count: number | null;
    }[] = api.json().data;
    expect(rows.map((r) => r.loads_handed).sort()).toEqual([2, 3]);
    for (const r of rows) {
      const row = table.locator('tbody tr', {
        has: page.getByRole('rowheader', { name: r.group, exact: true }),
      });
      const cells = await row.locator('td').allTextContents();
      expect(cells[0]).toBe(String(r.loads_handed));
      expect(cells[1]).toBe(`${(r.coverage_rate * 100).toFixed(1)}% ${r.covered}/${r.loads_handed}`);
    }
    await expect(page.getByRole('columnheader', { name: 'Margin (median)' }).count()).resolves.toBe(1);

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    expect((await download).suggestedFilename()).toMatch(/^agent-results-.*-lane\.csv$/);

    // The same range by week, then refused: a range the API will not take is explained on its field.
    await page.getByLabel('From').fill('2020-01-01');
    await page.getByRole('button', { name: 'Show results' }).click();
    await page.locator('.field-error').first().waitFor();
    await expect(page.getByLabel('From').inputValue()).resolves.toBe('2020-01-01');
    expect(besides(errors, 422)).toEqual([]);
    await close();

    const member = await createUser(rig.t, h.orgId, 'MEMBER');
    const m = await openConsole(rig);
    await signIn(m.page, member, '/results?group_by=lane');
    await m.page.locator('table.figures tbody tr').nth(1).waitFor();
    await expect(m.page.getByRole('columnheader', { name: 'Margin (median)' }).count()).resolves.toBe(0);
    await m.page.getByLabel('Figure', { exact: true }).waitFor();
    await expect(
      m.page.getByLabel('Figure', { exact: true }).locator('option', { hasText: 'Margin' }).count(),
    ).resolves.toBe(0);
    expect(m.errors).toEqual([]);
    await m.close();
  });

  it('disables a carrier with a reason and reads the audit entry, restricts a lane, checks it now; a MEMBER sees no such action', async () => {
    const { user, orgId } = await createTenant(rig.t);
    const tag = unique();
    const made = await inject('POST', '/carriers/batch', user.headers, {
      carriers: [
        {
          carrier: {
            name: `Redwood Lines ${tag}`,
            mc_number: String(700000 + Math.floor(Math.random() * 99999)),
          },
          lanes: [
            {
              origin: { state: 'IL' },
              destination: { state: 'TX' },
              equipment_type: 'VAN',
              routing_guide_tier: 1,
            },
          ],
        },
      ],
    });
    expect(made.statusCode, made.body).toBe(200);
    const carrierId: string = made.json().data[0].id;
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/carriers');
    await page.getByRole('heading', { level: 1, name: 'Carriers' }).waitFor();
    await page.getByLabel('Search').fill(`Redwood Lines ${tag}`);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: `Redwood Lines ${tag}` }).click();
    await page.getByRole('heading', { level: 1, name: `Redwood Lines ${tag}` }).waitFor();
    for (const name of [
      'Vetting',
      'Compliance checks',
      'Contacts',
      'Lanes',
      'Offers',
      'Outreaches',
      'Audit log',
    ]) {
      await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
    }
    await expectAccessible(page, 'carrier page');

    await page.getByRole('button', { name: 'Disable carrier' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').selectOption('other');
    await expectAccessible(page, 'disable dialog');
    await dialog.getByRole('button', { name: 'Disable' }).click();
    // `other` without a note: the API's refusal on the note, the reason chosen kept.
    await dialog.locator('.field-error').waitFor();
    await expect(dialog.getByLabel('Reason').inputValue()).resolves.toBe('other');
    await dialog.getByLabel('Note').fill('Double-brokered a load');
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable carrier' }).waitFor();
    const audit = page.locator('section', { has: page.getByRole('heading', { name: 'Audit log' }) });
    await audit.getByText('Double-brokered a load').waitFor();
    await expect(audit.textContent()).resolves.toContain('reason other');

    await page.getByRole('button', { name: 'Restrict on IL to TX' }).click();
    await page.getByRole('dialog').getByLabel('Reason').selectOption('service_quality');
    await page.getByRole('dialog').getByRole('button', { name: 'Restrict' }).click();
    await page.getByRole('button', { name: 'Lift restriction on IL to TX' }).waitFor();
    await page.getByText(/Restricted \(service_quality\)/).waitFor();

    await page.getByRole('button', { name: 'Run compliance check' }).click();
    await page.getByRole('status').filter({ hasText: 'Compliance check done' }).waitFor();
    const checks = await inject('GET', `/carriers/${carrierId}/compliance-checks`, user.headers);
    expect(checks.json().data.length).toBeGreaterThan(0);
    expect(besides(errors, 422)).toEqual([]);
    await close();

    const member = await createUser(rig.t, orgId, 'MEMBER');
    const m = await openConsole(rig);
    await signIn(m.page, member, `/carriers/${carrierId}`);
    await m.page.getByRole('heading', { level: 2, name: 'Lanes' }).waitFor();
    await m.page.getByText(/Restricted \(service_quality\)/).waitFor();
    for (const name of ['Enable carrier', 'Run compliance check', 'Lift restriction on IL to TX']) {
      await expect(m.page.getByRole('button', { name }).count()).resolves.toBe(0);
    }
    // The server refuses the action all the same.
    const refused = await inject('POST', `/carriers/${carrierId}/enable`, member.headers, {
      reason: 'service_quality',
    });
    expect(refused.statusCode).toBe(403);
    expect(m.errors).toEqual([]);
    await m.close();
  });

  it('uploads a carrier CSV with good and bad rows and shows each row’s outcome', async () => {
    const { user } = await createTenant(rig.t);
    const tag = unique();
    const mc = String(800000 + Math.floor(Math.random() * 99999));
    const csv = [
      'name,mc_number,email,equipment_types',
      `Good One ${tag},${mc},dispatch-${tag.toLowerCase()}@one.example,VAN;REEFER`,
      `Good Twin ${tag},${mc},twin@one.example,VAN`,
      `Bad Mail ${tag},,not-an-address,VAN`,
      `Good Two ${tag},,,FLATBED`,
    ].join('\n');
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/carriers');
    await page.getByRole('heading', { level: 2, name: 'Add carriers' }).waitFor();
    await page
      .getByLabel('Carrier CSV file')
      .setInputFiles({ name: 'carriers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Upload CSV' }).click();
    const outcomes = page.locator('table.outcomes tbody tr');
    await outcomes.nth(3).waitFor();
    const texts = await outcomes.allTextContents();
    expect(texts[0]).toMatch(/^2Created/);
    expect(texts[1]).toMatch(/^3Skipped.*duplicate_in_batch/);
    expect(texts[2]).toMatch(/^4Failed.*e-mail/);
    expect(texts[3]).toMatch(/^5Created/);
    await page.getByText('4 rows: 2 created, 0 updated, 1 skipped, 1 failed.').waitFor();
    await expectAccessible(page, 'upload outcomes');

    // One carrier by the form: the API's refusal on its field, what was typed kept.
    await page.getByLabel('Name', { exact: true }).fill(`Formed ${tag}`);
    await page.getByLabel('E-mail', { exact: true }).fill('nope');
    await page.getByRole('button', { name: 'Create carrier' }).click();
    await page
      .locator('form', { has: page.getByRole('heading', { name: 'Create a carrier' }) })
      .locator('.field-error')
      .waitFor();
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe(`Formed ${tag}`);
    await page.getByLabel('E-mail', { exact: true }).fill(`formed-${tag.toLowerCase()}@carrier.example`);
    await page.getByRole('button', { name: 'Create carrier' }).click();
    await page
      .getByRole('link', { name: `Formed ${tag}` })
      .first()
      .waitFor();
    expect(besides(errors, 422)).toEqual([]);
    await close();
  });

  it('changes a negotiation setting, explains a refused value on its field, and keeps the last OWNER', async () => {
    const { user } = await createTenant(rig.t);
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/settings/agent');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const ask = page.getByLabel('Opening ask (% of the target)');
    await ask.waitFor();
    await expectAccessible(page, 'settings: agent');
    await ask.fill('500');
    await page.getByRole('button', { name: 'Save agent settings' }).click();
    const refusal = page.locator('.field-invalid', { has: ask }).locator('.field-error');
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toMatch(/100/);
    await expect(ask.inputValue()).resolves.toBe('500');
    await ask.fill('97');
    await page.getByRole('button', { name: 'Save agent settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Agent settings saved' }).waitFor();
    const saved = await inject('GET', '/agent/settings', user.headers);
    expect(saved.json().negotiation.opening_ask_pct).toBe(97);

    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByLabel(`Role of ${user.email}`).selectOption('MEMBER');
    await page.getByRole('button', { name: 'Change role' }).click();
    await page.getByText('An organization always keeps one OWNER').waitFor();
    expect(besides(errors, 422, 409)).toEqual([]);
    await close();
  });

  it('invites a member who accepts the invitation and signs in', async () => {
    const { user } = await createTenant(rig.t);
    const invitee = `invitee-${unique().toLowerCase()}@brokerage.example`;
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/settings/team');
    await page.getByLabel('Invitee e-mail').fill(invitee);
    await page.getByLabel('Invitee role').selectOption('ADMIN');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('rowheader', { name: invitee }).waitFor();
    await expectAccessible(page, 'settings: members');
    const mail = defined(
      simulatedEmail(rig.t).sent.findLast((m) => m.to === invitee),
      'the invitation e-mail',
    );
    const token = defined(/envoy_inv_[0-9A-Za-z]{40}/.exec(mail.text), 'the token')[0];
    expect(errors).toEqual([]);
    await close();

    const joining = await openConsole(rig);
    await joining.page.goto(`/accept-invitation?token=${token}`);
    await joining.page.getByRole('heading', { level: 1, name: 'Join your team on Envoy' }).waitFor();
    await expectAccessible(joining.page, 'accept invitation');
    await joining.page.getByLabel('Email').fill(invitee);
    await joining.page.getByLabel('Your name').fill('Ivy Invitee');
    await joining.page.getByLabel('Password').fill('a-long-enough-passphrase');
    await joining.page.getByRole('button', { name: 'Join' }).click();
    await joining.page.getByRole('heading', { level: 1, name: 'Loads' }).waitFor();
    await joining.page.getByText('ADMIN', { exact: true }).waitFor();
    expect(joining.errors).toEqual([]);
    await joining.close();
  });

  it('creates an API key that works, and a webhook endpoint that receives a ping, shows the delivery and replays it', async () => {
    const { user } = await createTenant(rig.t);
    const receiver = await startReceiver();
    const { page, errors, close } = await openConsole(rig);
    try {
      await signIn(page, user, '/settings/api-keys');
      await page.getByLabel('Key name').fill('TMS sync');
      await page.getByRole('button', { name: 'Create API key' }).click();
      const secret = page.getByRole('region', { name: 'New API key' });
      const key = (await secret.locator('code').textContent()) ?? '';
      expect(key).toMatch(/^envoy_sk_/);
      await expectAccessible(page, 'settings: API keys');
      const used = await inject('GET', '/loads', { 'x-api-key': key });
      expect(used.statusCode).toBe(200);
      await secret.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('rowheader', { name: 'TMS sync' }).waitFor();

      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('region', { name: 'Signing secret' }).locator('code').waitFor();
      await expectAccessible(page, 'settings: webhooks');
      const card = page.getByRole('listitem', { name: `Endpoint ${receiver.url}` });
      await card.getByRole('button', { name: 'Send test ping' }).click();
      await page.getByRole('status').filter({ hasText: 'Test ping queued' }).waitFor();
      await drainWorker(rig.t, 'webhooks');
      expect(receiver.received.map((r) => r.json.type)).toEqual(['ping']);
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      const delivery = page.locator('table tbody tr', { hasText: 'ping' });
      await delivery.getByText('succeeded').waitFor();
      await delivery.getByRole('button', { name: `Replay ping to ${receiver.url}` }).click();
      await page.getByRole('status').filter({ hasText: 'ping replayed' }).waitFor();
      await drainWorker(rig.t, 'webhooks');
      expect(receiver.received.map((r) => r.json.id)).toEqual([
        defined(receiver.received[0], 'first ping').json.id,
        defined(receiver.received[0], 'first ping').json.id,
      ]);
      await card.getByText('Attempts').click();
      await card.locator('ol.timeline li').nth(1).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await close();
      await receiver.close();
    }
  });

  it('lists calls and ELP tests, opens a call’s page, and passes axe on the other settings sections', async () => {
    const { user } = await createTenant(rig.t);
    const call = await inject('POST', '/calls', user.headers, {
      phone_number: '+14155550199',
      call_type: 'LOAD_BOOKING',
    });
    expect([201, 202]).toContain(call.statusCode);
    const { page, errors, close } = await openConsole(rig);
    await signIn(page, user, '/calls');
    await page.getByRole('heading', { level: 1, name: 'Calls' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'ELP tests' }).waitFor();
    await page.locator('table tbody tr').first().waitFor();
    await expectAccessible(page, 'calls');
    await page.locator('table tbody tr th a').first().click();
    await page.getByRole('heading', { level: 1, name: 'Call to +14155550199' }).waitFor();
    for (const name of ['Status history', 'Analysis', 'Cost and recording', 'Transcript']) {
      await page.getByRole('heading', { level: 2, name }).waitFor();
    }
    await expectAccessible(page, 'call page');
    for (const section of ['voice', 'loads']) {
      await page.goto(`/settings/${section}`);
      await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
      await page.locator('main h2').first().waitFor();
      await expectAccessible(page, `settings: ${section}`);
    }
    expect(errors).toEqual([]);
    await close();
  });
});
