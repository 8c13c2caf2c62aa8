import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { envSchema } from '../../src/config/env-schema.js';
import { defined } from '../../src/lib/defined.js';
import { fileDatabaseUrl } from '../helpers/app.js';

const run = promisify(execFile);

/** `# NAME=value` lines of .env.example (a trailing `# ...` after the value is a comment). */
function exampleValues(): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of readFileSync('.env.example', 'utf8').split('\n')) {
    const match = /^#\s?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match)
      values.set(
        defined(match[1], 'match[1]'),
        defined(match[2], 'match[2]')
          .replace(/\s+#\s.*$/, '')
          .trim(),
      );
  }
  return values;
}

describe('.env.example', () => {
  const shape = envSchema.shape;

  it('lists every variable the service reads', () => {
    const listed = exampleValues();
    const missing = Object.keys(shape).filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
    const unknown = [...listed.keys()].filter((name) => !(name in shape));
    expect(unknown).toEqual([]);
  });

  it('shows each default as the default it is', () => {
    const listed = exampleValues();
    for (const [name, field] of Object.entries(shape)) {
      const fallback = field.safeParse(undefined);
      if (!fallback.success || fallback.data === undefined) continue;
      const shown = listed.get(name);
      expect(shown, `${name} has a default: the example shows it`).not.toBe('');
      expect(field.parse(shown), `${name}=${shown} in .env.example`).toEqual(fallback.data);
    }
  });
});

describe('a .env file', () => {
  it('is read at start by the admin CLI, the environment winning over the file', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-dotenv-'));
    try {
      // A bad value in the file is reported as a configuration error naming it: the file was read.
      writeFileSync(path.join(dir, '.env'), 'NODE_ENV=development\nDB_POOL_MAX=zero\n');
      const cli = path.resolve('src/cli/admin.ts');
      const tsx = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;
      const failed = await run(process.execPath, ['--import', tsx, cli, 'create-org', '--name', 'X'], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: undefined, DB_POOL_MAX: undefined },
      }).catch((err: { stderr: string; code: number }) => err);
      // A configuration error: exit code 2.
      expect('code' in failed && failed.code).toBe(2);
      expect(failed.stderr).toMatch(/DB_POOL_MAX/);
      // The same variable set in the environment wins, and the command runs.
      const { stdout } = await run(process.execPath, ['--import', tsx, cli, 'create-org', '--name', 'X'], {
        cwd: dir,
        env: { ...process.env, DATABASE_URL: await fileDatabaseUrl(), DB_POOL_MAX: '3' },
      });
      expect(JSON.parse(stdout).organization_id).toMatch(/^org_/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two cold starts of the CLI through the TypeScript loader: over 20 s when the machine is loaded.
  }, 120_000);
});
