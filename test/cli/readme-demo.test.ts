import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defined } from '../../src/lib/defined.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

/** The shell blocks of the README's demo section, as a reader pastes them. */
function demoCommands(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## A demo organization');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n');
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
    t = await buildTestApp({ env: { WORKERS_ENABLED: 'false' } });
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-readme-demo-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('seeds, captures KEY, LOAD_ID and OFFER_ID with jq, and books the load it picked', async () => {
    const commands = demoCommands().replaceAll('http://localhost:3000', base);
    expect(commands).toContain('npm run -s admin -- seed-demo > demo.json');
    // demo.json goes to a folder of the test's own; npm runs in the repository.
    const script = `set -euo pipefail\ncd ${JSON.stringify(process.cwd())}\n${commands.replaceAll(
      'demo.json',
      path.join(dir, 'demo.json'),
    )}\necho "LOAD_ID=$LOAD_ID OFFER_ID=$OFFER_ID"`;
    const { stdout } = await run('bash', ['-c', script], {
      env: { ...process.env, DATABASE_URL: t.database.url, JWT_SECRET: 'x'.repeat(40), LOG_LEVEL: 'silent' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const ids = /LOAD_ID=(load_\S+) OFFER_ID=(ofr_\S+)/.exec(stdout);
    expect(ids, stdout.slice(-2000)).not.toBeNull();
    // Step 3 printed the booked offer.
    expect(stdout).toMatch(new RegExp(`"id": "${defined(ids, 'ids')[2]}",\\s*"status": "accepted"`));
    // Step 4 printed the load's booking on that offer, by a user (the API key's PATCH).
    expect(stdout).toMatch(new RegExp(`"booked_offer": \\{\\s*"offer_id": "${defined(ids, 'ids')[2]}"`));
    expect(stdout).toMatch(/"booked_by": "user"/);
    const demo = JSON.parse(readFileSync(path.join(dir, 'demo.json'), 'utf8'));
    const offer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/offers/${defined(ids, 'ids')[2]}`,
      headers: { 'x-api-key': demo.api_key.key },
    });
    expect(offer.json()).toMatchObject({ load_id: defined(ids, 'ids')[1], status: 'accepted' });
    // A shell running the seed and several requests through the CLI: over 100 s seen on a loaded machine.
  }, 240_000);
});
