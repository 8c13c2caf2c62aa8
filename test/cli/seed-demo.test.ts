import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { fileDatabaseUrl, useTestApp } from '../helpers/app.js';
import { login } from '../helpers/factories.js';

const run = promisify(execFile);

describe('npm run admin -- seed-demo', () => {
  const t = useTestApp({ env: { WORKERS_ENABLED: 'false' } });

  it('creates a demo organization whose load list shows offers and outreaches through the tabs', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'envoy-seed-demo-'));
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli/admin.ts', 'seed-demo'],
      {
        env: {
          ...process.env,
          DATABASE_URL: await fileDatabaseUrl(),
          JWT_SECRET: 'x'.repeat(40),
          LOG_LEVEL: 'silent',
          DATA_DIR: dataDir,
        },
      },
    );
    const demo = JSON.parse(stdout);
    expect(demo).toMatchObject({
      organization_id: expect.stringMatching(/^org_/),
      owner: { email: expect.stringContaining('@'), password: expect.any(String) },
      api_key: { id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^envoy_sk_/) },
      counts: { loads: 200, carriers: 100 },
    });
    // Progress goes to stderr, one line a step with the time so far; stdout stays one JSON object.
    const steps = stderr.split('\n').filter((line) => line.startsWith('seed-demo: '));
    expect(steps.length).toBeGreaterThanOrEqual(6);
    expect(stderr).toMatch(/^seed-demo: 200 loads in every status \(\d+\.\d s\)$/m);
    expect(steps.at(-2)).toMatch(/calls ended/);
    expect(steps.at(-1)).toMatch(/^seed-demo: 100 open loads handed to the agent/);

    const token = await login(t, demo.owner.email, demo.owner.password);
    const bearer = { authorization: `Bearer ${token}` };
    const key = { 'x-api-key': demo.api_key.key };
    const get = async (url: string, headers: Record<string, string> = key) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };

    // The load list, with the tabs showing offers and outreaches.
    const all = await get('/loads?page_size=100', bearer);
    expect(all.pagination.total_count).toBe(200);
    const offersTab = await get('/loads?tab=active_offers&page_size=100');
    expect(offersTab.pagination.total_count).toBeGreaterThan(10);
    expect(offersTab.data.every((l: { offer_count: number }) => l.offer_count > 0)).toBe(true);
    const outreachTab = await get('/loads?tab=active_outreaches&page_size=100');
    expect(outreachTab.pagination.total_count).toBeGreaterThan(0);
    const loadWithOutreach = outreachTab.data[0].id;
    const itsOutreaches = await get(`/outreaches?load_id=${loadWithOutreach}`);
    expect(itsOutreaches.data.some((o: { status: string }) => ['pending', 'active'].includes(o.status))).toBe(
      true,
    );
    expect((await get('/loads?tab=all_calls')).pagination.total_count).toBeGreaterThan(0);

    const stats = await get('/loads/stats');
    for (const status of [
      'Created',
      'Unassigned',
      'Quotes Received',
      'Dispatched',
      'En Route',
      'Delivered',
      'Cancelled',
      'Exception',
    ]) {
      expect(stats.by_status[status], status).toBeGreaterThan(0);
    }

    // Offers in every state, with one accepted offer per booked load.
    for (const status of ['pending', 'accepted', 'rejected']) {
      expect((await get(`/offers?status=${status}`)).pagination.total_count, status).toBeGreaterThan(0);
    }
    const delivered = await get('/loads?status=Delivered&page_size=5');
    const deliveredOffers = await get(`/loads/${delivered.data[0].id}/offers`);
    expect(deliveredOffers.data.filter((o: { status: string }) => o.status === 'accepted')).toHaveLength(1);

    // Outreaches on every channel and in several states, e-mail bounces among them.
    for (const modality of ['call', 'email', 'whatsapp']) {
      expect(
        (await get(`/outreaches?modality=${modality}`)).pagination.total_count,
        modality,
      ).toBeGreaterThan(0);
    }
    expect((await get('/outreaches?status=no_response')).pagination.total_count).toBeGreaterThan(0);
    expect((await get('/outreaches?status=completed')).pagination.total_count).toBeGreaterThan(0);
    // The agent's waves add e-mails after the bounced ones: every page is read.
    const bouncedEmails: unknown[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const emails = await get(`/outreaches?modality=email&page_size=100&page=${page}`);
      pages = emails.pagination.total_pages;
      bouncedEmails.push(
        ...emails.data.filter((o: { delivery_failed_at: string | null }) => o.delivery_failed_at !== null),
      );
    }
    expect(bouncedEmails.length).toBeGreaterThan(0);

    // Carriers: tiers, BLOCKED by the registry, disabled, one stop-contact, lane preferences.
    expect((await get('/carriers?compliance_status=BLOCKED')).pagination.total_count).toBeGreaterThan(0);
    expect((await get('/carriers?compliance_status=PASSED')).pagination.total_count).toBeGreaterThan(50);
    expect((await get('/carriers?is_active=false')).pagination.total_count).toBeGreaterThan(0);
    expect((await get('/carriers?routing_guide_tier=1')).pagination.total_count).toBeGreaterThan(0);
    const carriers = await get('/carriers?page_size=100');
    // One asked not to be contacted; a simulated call may add another (carriers ask on calls now and then).
    expect(
      carriers.data.filter((c: { stop_contact_requested_at: string | null }) => c.stop_contact_requested_at)
        .length,
    ).toBeGreaterThanOrEqual(1);
    const withLanes = await get(`/carriers/${carriers.data[0].id}/lane-preferences`);
    expect(withLanes.pagination.total_count).toBeGreaterThan(0);

    // ELP tests, scored and not.
    const elp = await get('/elp/tests?page_size=100');
    const scoring = elp.data.map((e: { scoring_status: string }) => e.scoring_status);
    expect(scoring).toContain('SCORED');
    expect(scoring.some((s: string) => s !== 'SCORED')).toBe(true);

    // The open loads are handed to the agent; a server's agent works them (the README demo test
    // follows one on a simulated clock until it books).
    const [results] = (await get('/agent/results')).data;
    expect(results.loads_handed).toBeGreaterThan(50);
    const handed = await get('/loads?status=Unassigned&page_size=20');
    const activities = await Promise.all(
      handed.data.map((l: { id: string }) => get(`/loads/${l.id}/agent-activity`)),
    );
    expect(activities.every((a) => a.timeline.some((e: { kind: string }) => e.kind === 'handed'))).toBe(true);
    // The census went into the registry snapshot a server reads (DATA_DIR's by default).
    const registry = JSON.parse(readFileSync(path.join(dataDir, 'carrier-registry.json'), 'utf8'));
    expect(registry.length).toBeGreaterThanOrEqual(90);
    // A child process seeding 200 loads through the TypeScript loader: about a minute when the
    // machine's two cores also run the other test files.
  }, 180_000);
});
