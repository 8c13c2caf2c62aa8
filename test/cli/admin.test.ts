import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defined } from '../../src/lib/defined.js';
import { fileDatabaseUrl, useTestApp } from '../helpers/app.js';
import { login } from '../helpers/factories.js';

const run = promisify(execFile);

async function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
      env: {
        ...process.env,
        DATABASE_URL: await fileDatabaseUrl(),
        JWT_SECRET: 'x'.repeat(40),
        LOG_LEVEL: 'silent',
      },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    // execFile rejects with the exit code and the output the command wrote.
    return z.object({ code: z.number(), stdout: z.string(), stderr: z.string() }).parse(err);
  }
}

describe('npm run admin', () => {
  const t = useTestApp();

  it('creates an organization, an owner who can sign in, and a working API key', async () => {
    const org = await admin(['create-org', '--name', 'Acme Logistics']);
    expect(org.code, org.stderr).toBe(0);
    const { organization_id } = JSON.parse(org.stdout);
    expect(organization_id).toMatch(/^org_/);

    const user = await admin([
      'create-user',
      '--org',
      organization_id,
      '--email',
      'Owner@Acme.example',
      '--password',
      'correct horse battery',
      '--role',
      'OWNER',
      '--phone',
      '(415) 555-2671',
    ]);
    expect(user.code, user.stderr).toBe(0);
    expect(JSON.parse(user.stdout)).toEqual({ user_id: expect.stringMatching(/^usr_/), created: true });

    const token = await login(t, 'owner@acme.example', 'correct horse battery');
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.json().user).toMatchObject({ email: 'owner@acme.example', phone: '+14155552671' });
    expect(me.json().active_organization).toMatchObject({ id: organization_id, role: 'OWNER' });

    const key = await admin(['create-api-key', '--org', organization_id, '--name', 'TMS']);
    expect(key.code, key.stderr).toBe(0);
    const created = JSON.parse(key.stdout);
    expect(created).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^envoy_sk_/) });
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/api-keys',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.json().data.map((k: { id: string }) => k.id)).toEqual([created.id]);
  }, 60_000);

  it('exits 2 with a message naming the flag on bad usage', async () => {
    // Each run starts a Node process: run them side by side.
    const [missing, badRole, unknown, extra] = await Promise.all([
      admin(['create-user', '--org', 'org_x', '--email', 'a@b.co', '--role', 'OWNER']),
      admin(['create-user', '--org', 'o', '--email', 'a@b.co', '--password', 'longenough', '--role', 'KING']),
      admin(['drop-everything']),
      admin(['create-org', '--name', 'x', '--colour', 'blue']),
    ]);
    expect(defined(missing, 'missing').code).toBe(2);
    expect(
      JSON.parse(
        defined(defined(missing, 'missing').stderr.split('\n')[0], "missing.stderr.split('\\n')[0]"),
      ),
    ).toEqual({ error: '--password: required' });
    expect(defined(badRole, 'badRole').code).toBe(2);
    expect(defined(badRole, 'badRole').stderr).toMatch(/--role/);
    expect(defined(unknown, 'unknown').code).toBe(2);
    expect(defined(unknown, 'unknown').stderr).toMatch(/unknown command 'drop-everything'/);
    expect(defined(extra, 'extra').code).toBe(2);
  }, 60_000);

  it('prints the usage and exits 0 for help, --help, help <command> and <command> --help', async () => {
    // Each run starts a Node process: run them side by side.
    const [long, short, word, one, flag] = await Promise.all([
      admin(['--help']),
      admin(['-h']),
      admin(['help']),
      admin(['help', 'create-api-key']),
      admin(['create-user', '--help']),
    ]);
    for (const res of [long, short, word]) {
      expect(res.code, res.stderr).toBe(0);
      for (const command of ['create-org', 'create-user', 'create-api-key', 'seed-demo']) {
        expect(res.stdout).toContain(`  ${command}`);
      }
    }
    expect(defined(one, 'one').code).toBe(0);
    expect(defined(one, 'one').stdout).toMatch(
      /^usage: npm run admin -- create-api-key --org ORG_ID --name NAME/,
    );
    expect(defined(one, 'one').stdout).not.toContain('seed-demo');
    expect(defined(flag, 'flag').code).toBe(0);
    expect(defined(flag, 'flag').stdout).toMatch(/--role OWNER\|ADMIN\|MEMBER/);
  }, 60_000);

  it('exits 1 for an organization that does not exist', async () => {
    const res = await admin(['create-api-key', '--org', 'org_nope', '--name', 'k']);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr)).toMatchObject({ code: 'not_found' });
  }, 60_000);
});
