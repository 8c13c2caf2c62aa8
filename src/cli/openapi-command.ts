import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import pino from 'pino';
import { API_PREFIX, buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import { createDatabase } from '../db/client.js';
import { buildServices } from '../services.js';

const USAGE = `usage: npm run openapi -- <command>

  write FILE   writes the OpenAPI document the server would serve at ${API_PREFIX}/openapi.json
  lint         writes it to a temporary file and checks it with the OpenAPI 3.1 schema validator,
               Spectral (.spectral.yaml: spectral:oas + OWASP) and Redocly (redocly.yaml: recommended);
               exits 1 on any error or warning

The document is built from the app without a database or a listening server. Servers come from
PUBLIC_BASE_URL, PRODUCTION_BASE_URL and STAGING_BASE_URL as in production.`;

/**
 * The document, built from the real app: routes are registered but nothing connects (the pool is
 * lazy and the workers are off), so this runs anywhere `npm ci` has.
 */
export async function buildDocument(env: Record<string, string | undefined> = process.env): Promise<unknown> {
  const config = loadConfig(
    {
      ...env,
      JWT_SECRET: env.JWT_SECRET ?? 'openapi-document-only-secret-never-used-to-sign',
      WORKERS_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    },
    () => {},
  );
  const database = createDatabase('postgres://openapi@127.0.0.1:1/none', config.db);
  const logger = pino({ level: 'silent' });
  const services = buildServices({ config, database, log: logger });
  const app = await buildApp({ config, database, services }, { logger });
  try {
    await app.ready();
    const res = await app.inject({ method: 'GET', url: `${API_PREFIX}/openapi.json` });
    if (res.statusCode !== 200) throw new Error(`${API_PREFIX}/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
    await database.close();
  }
}

const bin = (name: string) => path.resolve('node_modules', '.bin', name);

function run(label: string, command: string, args: string[]) {
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // No update checks or usage reports from the linters: CI has no outside network.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const stdout = result.stdout ?? '';
  const output = `${stdout}${result.stderr ?? ''}`;
  if (result.error) return { ok: false, stdout, output: `${label}: ${result.error.message}` };
  return { ok: result.status === 0, stdout, output };
}

async function lint(): Promise<boolean> {
  const dir = mkdtempSync(path.join(tmpdir(), 'envoy-openapi-'));
  const file = path.join(dir, 'openapi.json');
  try {
    writeFileSync(file, JSON.stringify(await buildDocument(), null, 2));
    let ok = true;

    const validation = await new Validator().validate(file);
    console.log(`== OpenAPI 3.1 schema validator: ${validation.valid ? 'valid' : 'INVALID'}`);
    if (!validation.valid) {
      ok = false;
      console.log(JSON.stringify(validation.errors, null, 2));
    }

    // --fail-severity=warn: a warning kept on purpose is switched off in .spectral.yaml with its reason.
    const spectral = run('spectral', bin('spectral'), [
      'lint',
      file,
      '--ruleset',
      '.spectral.yaml',
      '--fail-severity',
      'warn',
      '--display-only-failures',
    ]);
    console.log(`== Spectral (spectral:oas + OWASP): ${spectral.ok ? 'no problems' : 'FAILED'}`);
    if (!spectral.ok) console.log(spectral.output);
    ok &&= spectral.ok;

    const redocly = run('redocly', bin('redocly'), [
      'lint',
      file,
      '--config',
      'redocly.yaml',
      '--format',
      'json',
    ]);
    let problems: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
    try {
      problems = JSON.parse(redocly.stdout).problems;
    } catch {
      console.log(`== Redocly: could not read its output\n${redocly.output}`);
      return false;
    }
    // Redocly fails only on errors; a warning kept on purpose is switched off in redocly.yaml.
    console.log(`== Redocly (recommended): ${problems.length === 0 ? 'no problems' : 'FAILED'}`);
    for (const p of problems) {
      console.log(`  ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
    }
    ok &&= problems.length === 0;
    return ok;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const [command, arg] = process.argv.slice(2);
  if (command === 'write' && arg) {
    mkdirSync(path.dirname(path.resolve(arg)), { recursive: true });
    writeFileSync(arg, `${JSON.stringify(await buildDocument(), null, 2)}\n`);
    return;
  }
  if (command === 'lint') {
    const ok = await lint();
    console.log(ok ? 'openapi: all checks passed' : 'openapi: checks failed');
    process.exit(ok ? 0 : 1);
  }
  const help = command === 'help' || command === '--help' || command === '-h';
  (help ? console.log : console.error)(USAGE);
  process.exit(help ? 0 : 2);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
