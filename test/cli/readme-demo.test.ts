import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workUntilIdle } from '../../bench/lib/brokerage-manual.js';
import { defined } from '../../src/lib/defined.js';
import { buildTestApp, manualClockOf, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

/** The README's demo section. */
function demoSection(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## A demo organization');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

/** The shell blocks a reader pastes in the second terminal (the first runs `npm start`). */
function demoCommands(): string {
  return [...demoSection().matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .filter((block) => !block.includes('npm start'))
    .join('\n');
}

/** The server's settings the README starts it with. */
function serverSettings(): Record<string, string> {
  const line = /```sh\n(.*npm start)\n```/.exec(demoSection())?.[1] ?? '';
  return Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

/** The demo's commands need curl and jq, as a reader's shell does. */
const hasTools = ['curl', 'jq'].every((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`]);
    return true;
  } catch {
    return false;
  }
});

describe.skipIf(!hasTools)('the README demo, pasted as it is', () => {
  let t: TestApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    const settings = serverSettings();
    expect(settings).toMatchObject({ SIMULATION_SPEED: '60', SIMULATION_START: expect.stringMatching(/Z$/) });
    // The server as the README starts it, from its start, with its default simulated carriers, on
    // a manual clock the test moves (as the server's simulated one would move), and its workers run
    // by the test at each instant rather than on timers.
    const { SIMULATION_SPEED: _speed, ...rest } = settings;
    t = await buildTestApp({
      env: { ...rest, SIMULATION_PROFILE: 'realistic', WORKERS_ENABLED: 'false' },
      clock: new Date(defined(settings.SIMULATION_START, 'SIMULATION_START')),
    });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-readme-demo-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds, waits for the agent to book, shows a booking of its own, and books a load the reader picked', async () => {
    const commands = demoCommands().replaceAll('http://localhost:3000', base);
    expect(commands).toContain('npm run -s admin -- seed-demo > demo.json');
    // demo.json goes to a folder of the test's own; npm runs in the repository.
    const script = `set -euo pipefail\ncd ${JSON.stringify(process.cwd())}\n${commands.replaceAll(
      'demo.json',
      path.join(dir, 'demo.json'),
    )}\necho "LOAD_ID=$LOAD_ID OFFER_ID=$OFFER_ID BOOKED_ID=$BOOKED_ID"`;
    const pasted = run('bash', ['-c', script], {
      env: {
        ...process.env,
        DATABASE_URL: t.database.directUrl,
        JWT_SECRET: 'x'.repeat(40),
        LOG_LEVEL: 'silent',
        DATA_DIR: dir,
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    await timePasses(pasted);
    const { stdout } = await pasted;
    const ids = /LOAD_ID=(load_\S+) OFFER_ID=(ofr_\S+)/.exec(stdout);
    expect(ids, stdout.slice(-2000)).not.toBeNull();
    // Step 3 printed the booked offer.
    expect(stdout).toMatch(new RegExp(`"id": "${defined(ids, 'ids')[2]}",\\s*"status": "accepted"`));
    // Step 4 printed the load's booking on that offer, by a user (the API key's PATCH).
    expect(stdout).toMatch(new RegExp(`"booked_offer": \\{\\s*"offer_id": "${defined(ids, 'ids')[2]}"`));
    expect(stdout).toMatch(/"booked_by": "user"/);
    // Step 1 waited for ten bookings; step 2 printed a booked load's timeline of the agent's work.
    expect(stdout).toMatch(/"covered": (1\d|[2-9]\d|\d{3})/);
    expect(/BOOKED_ID=(load_\S+)/.exec(stdout)).not.toBeNull();
    for (const kind of ['handed', 'carrier_chosen', 'contact', 'offer']) {
      expect(stdout).toContain(`"kind": "${kind}"`);
    }
    // Step 6: the second accept of the same load is refused; step 7 signed the owner in.
    expect(stdout).toContain('"code": "offer_already_accepted"');
    expect(stdout).toMatch(/"token_type": "Bearer"/i);
    const demo = JSON.parse(readFileSync(path.join(dir, 'demo.json'), 'utf8'));
    const offer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/offers/${defined(ids, 'ids')[2]}`,
      headers: { 'x-api-key': demo.api_key.key },
    });
    expect(offer.json()).toMatchObject({ load_id: defined(ids, 'ids')[1], status: 'accepted' });
    // A shell running the seed (about 35 s) and the requests, the clock moved meanwhile.
  }, 240_000);

  /**
   * The server's time passing, as fast as its work: once the seed has written demo.json, the clock
   * moves a minute at a time, the server's workers running at each, until the agent has booked the
   * ten loads step 1 waits for (so the steps after it read a clock standing still).
   */
  async function timePasses(pasted: Promise<unknown>) {
    let done = false;
    void pasted.finally(() => {
      done = true;
    });
    const demoFile = path.join(dir, 'demo.json');
    let key: string | null = null;
    while (!key && !done) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      key = seededKey(demoFile);
    }
    const clock = manualClockOf(t);
    const covered = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/v1/agent/results',
          headers: { 'x-api-key': key ?? '' },
        })
      ).json<{ data: { covered: number }[] }>().data[0]?.covered ?? 0;
    for (let minutes = 0; key && !done && (await covered()) < 10; minutes++) {
      expect(minutes, 'minutes of the demo before ten bookings').toBeLessThan(24 * 60);
      await clock.advanceTo(clock.ms() + 60_000);
      await workUntilIdle(t.services, clock);
    }
  }
});

/** The API key in demo.json once the seed has written it whole; null before. */
function seededKey(file: string): string | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).api_key.key;
  } catch {
    return null;
  }
}
