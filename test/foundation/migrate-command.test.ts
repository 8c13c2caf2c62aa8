import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config.js';
import { readMigrationJournal } from '../../src/db/migrate.js';
import { defined } from '../../src/lib/defined.js';
import { TEST_JWT_SECRET } from '../helpers/app.js';
import { useEmptyDatabases } from '../helpers/database.js';

const run = promisify(execFile);
const tags = readMigrationJournal().entries.map((e) => e.tag);

const emptyDatabase = useEmptyDatabases();

const env = (url: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  DATABASE_URL: url,
  JWT_SECRET: TEST_JWT_SECRET,
  LOG_LEVEL: 'info',
  NODE_ENV: 'development',
  AGENT_ENABLED: 'false',
  WORKERS_ENABLED: 'false',
  ...extra,
});

async function migrate(url: string): Promise<{ applied: string[] }> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'migrate'], {
    env: env(url),
  });
  return JSON.parse(stdout);
}

/** Runs the server until it is ready (then stops it) or exits on its own: its exit code and log lines. */
function serve(
  url: string,
  extra: Record<string, string>,
): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: env(url, { PORT: '0', ...extra }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`neither ready nor exited within 90 s:\n${lines.join('\n')}`));
    }, 90_000);
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.includes('Envoy ready')) child.kill('SIGTERM');
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, lines });
    });
    child.on('error', reject);
  });
}

describe('migrating before a rollout', () => {
  it('`admin migrate` applies every pending migration once, and names them', async () => {
    const url = await emptyDatabase();
    expect((await migrate(url)).applied).toEqual(tags);
    expect((await migrate(url)).applied).toEqual([]);
  }, 120_000);

  it('with MIGRATE_ON_START=false the server refuses a database with pending migrations, and serves a migrated one', async () => {
    const url = await emptyDatabase();
    const refused = await serve(url, { MIGRATE_ON_START: 'false' });
    expect(refused.code).toBe(1);
    const line = z
      .object({ msg: z.string(), pending: z.array(z.string()).optional() })
      .parse(JSON.parse(defined(refused.lines.at(-1), 'the last line logged')));
    expect(line.msg).toContain('MIGRATE_ON_START=false');
    expect(line.pending).toEqual(tags);
    // Nothing was applied: the migration command still finds every migration pending.
    expect((await migrate(url)).applied).toEqual(tags);

    const served = await serve(url, { MIGRATE_ON_START: 'false' });
    expect(served.code).toBe(0);
    expect(served.lines.some((l) => l.includes('Envoy ready'))).toBe(true);
  }, 180_000);
});

describe('where the server listens', () => {
  it('binds the loopback interface unless HOST says otherwise', () => {
    expect(loadConfig({ JWT_SECRET: TEST_JWT_SECRET }, () => {}).host).toBe('127.0.0.1');
    expect(loadConfig({ JWT_SECRET: TEST_JWT_SECRET, HOST: '0.0.0.0' }, () => {}).host).toBe('0.0.0.0');
  });
});
