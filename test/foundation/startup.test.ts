import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { realClock } from '../../src/lib/clock.js';
import { defined } from '../../src/lib/defined.js';
import { isJsonObject } from '../../src/lib/json-object.js';
import { prettyLogs } from '../../src/logger.js';
import { describeStartup } from '../../src/startup.js';
import { buildTestApp, fileDatabaseUrl, TEST_JWT_SECRET, testConfig } from '../helpers/app.js';

/** Starts `npm start`'s entry point and resolves with its parsed log lines once it is ready. */
function startServer(env: Record<string, string>): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    let errors = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no startup line within 90 s:\n${buffered}${errors}`));
    }, 90_000);
    child.stderr.on('data', (chunk) => {
      errors += String(chunk);
    });
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) {
        if (!part.startsWith('{')) continue;
        const line: unknown = JSON.parse(part);
        if (!isJsonObject(line)) continue;
        lines.push(line);
        if (String(line.msg).startsWith('Envoy ready')) {
          clearTimeout(timer);
          child.kill('SIGTERM');
          child.on('exit', () => resolve(lines));
        }
      }
    });
    child.on('error', reject);
  });
}

describe('the first hour', () => {
  it('logs one line naming the database host (no credentials), each provider and the running workers', async () => {
    const url = await fileDatabaseUrl();
    const lines = await startServer({
      DATABASE_URL: url,
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
      AGENT_ENABLED: 'false',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_API_KEY: 'sk-test-never-logged',
      LLM_MODEL: 'demo-model',
    });
    const ready = defined(
      lines.find((l) => String(l.msg).startsWith('Envoy ready')),
      "lines.find((l) => String(l.msg).startsWith('Envoy ready'))",
    );
    const { hostname, port, pathname, username, password } = new URL(url);
    expect(ready.msg).toContain(`database PostgreSQL at ${hostname}:${port}${pathname}`);
    expect(ready.msg).toContain('voice simulated');
    expect(ready.msg).toContain('e-mail simulated');
    expect(ready.msg).toContain('WhatsApp simulated');
    // A fresh data directory has no registry snapshot: the line says so, and one warning says how to get one.
    expect(ready.msg).toMatch(
      /compliance registry \(.+carrier-registry\.json: no snapshot, every check answers no_data\)/,
    );
    // ... and what that means for quotes under strict mode, and the three ways out.
    expect(ready.msg).toContain('no carrier can pass vetting (no registry snapshot, no FMCSA key)');
    expect(ready.msg).toContain('every quote is held for a rep');
    const warning = lines.find((l) =>
      /^No carrier registry snapshot at .+carrier-registry\.json/.test(String(l.msg)),
    );
    expect(warning?.msg).toContain('docs/carrier-vetting.md');
    expect(lines.filter((l) => /^No carrier registry snapshot/.test(String(l.msg)))).toHaveLength(1);
    expect(ready.msg).toContain('chat model demo-model (127.0.0.1:9/v1)');
    expect(ready.msg).toContain(
      'workers agent-outbox, compliance, compliance-monitor, escalations, event-stream-purge, idempotency-purge, inbound-receipts-purge, outreach-sweeper, scheduled-calls, sessions-purge, webhooks',
    );
    expect(ready.startup).toMatchObject({
      clock: 'real (the machine’s)',
      voice: 'simulated (realistic carriers)',
      workers: expect.stringContaining('webhooks'),
    });
    // Not a TTY: JSON lines, and no credential anywhere in them.
    const text = JSON.stringify(lines);
    expect(text).not.toContain('sk-test-never-logged');
    if (password) expect(text).not.toContain(`${username}:${password}`);
    // A cold start of the server's whole module tree through the TypeScript loader, beside the
    // other test files: seconds alone, tens of seconds on a loaded two-core machine.
  }, 120_000);

  it('names the embedded database by its data directory and the real providers by host only', () => {
    const config = testConfig({
      VOICE_PROVIDER: 'vapi',
      VAPI_API_KEY: 'vapi-secret',
      VAPI_PHONE_NUMBER_ID: 'pn_1',
      PUBLIC_BASE_URL: 'https://api.brokerage.example',
      VAPI_WEBHOOK_SECRET: 'x'.repeat(20),
      VAPI_SERVER_CREDENTIAL_ID: 'cred_startup',
      EMAIL_TRANSPORT: 'smtp',
      SMTP_URL: 'smtps://mailer:smtp-password@smtp.example.net:465',
      WHATSAPP_PROVIDER: 'cloud_api',
      WHATSAPP_ACCESS_TOKEN: 'wa-token',
      WHATSAPP_PHONE_NUMBER_ID: '123',
      WHATSAPP_APP_SECRET: 'wa-secret',
      WHATSAPP_VERIFY_TOKEN: 'wa-verify',
      COMPLIANCE_PROVIDER: 'fmcsa',
      FMCSA_WEB_KEY: 'fmcsa-key',
      REDIS_URL: 'redis://:redis-password@cache.internal:6379',
    });
    const { message, facts } = describeStartup(
      config,
      { embedded: { dataDir: '/srv/envoy/.data/pg', port: 54329 } },
      [],
      realClock,
    );
    expect(facts.database).toBe('embedded PostgreSQL in /srv/envoy/.data/pg (port 54329)');
    expect(message).toContain('voice vapi (api.vapi.ai)');
    expect(message).toContain('e-mail smtp (smtp.example.net:465)');
    expect(message).toContain('WhatsApp cloud_api (graph.facebook.com/v21.0)');
    expect(message).toContain('compliance fmcsa (mobile.fmcsa.dot.gov/qc/services)');
    expect(message).toContain('rate limits Redis at cache.internal:6379');
    expect(message).toContain('workers none (WORKERS_ENABLED=false)');
    for (const secret of [
      'vapi-secret',
      'smtp-password',
      'mailer',
      'wa-token',
      'fmcsa-key',
      'redis-password',
    ]) {
      expect(message).not.toContain(secret);
      expect(JSON.stringify(facts)).not.toContain(secret);
    }
  });

  it('reports the workers an app actually started, and forgets them when it closes', async () => {
    const t = await buildTestApp();
    try {
      expect(t.app.workers.names()).toEqual([
        'agent',
        'agent-outbox',
        'compliance',
        'compliance-monitor',
        'escalations',
        'event-stream-purge',
        'idempotency-purge',
        'inbound-receipts-purge',
        'outreach-sweeper',
        'scheduled-calls',
        'sessions-purge',
        'webhooks',
      ]);
    } finally {
      await t.close();
    }
    expect(t.app.workers.names()).toEqual([]);
  });

  it('writes pretty logs only to a terminal outside production', () => {
    expect(prettyLogs('development', true)).toBe(true);
    expect(prettyLogs('test', true)).toBe(true);
    expect(prettyLogs('production', true)).toBe(false);
    expect(prettyLogs('development', false)).toBe(false);
  });
});
