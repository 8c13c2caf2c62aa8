import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/client.js';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { runMigrations } from '../../src/db/migrate.js';
import { errorMessage } from '../../src/lib/error-text.js';
import { databaseUrl, dropDatabase } from './pg-admin.js';
import { startPgBouncer } from './pgbouncer.js';
import { freePort } from './ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    templateDatabase: string;
    runId: string;
    /**
     * With TEST_POOLER=pgbouncer: a URL of PgBouncer (transaction mode) in front of the server;
     * the apps of the tests then reach their databases through it (test/helpers/app.ts).
     */
    poolerUrl: string | null;
  }
}

interface Server {
  url: string;
  kind: string;
  stop(): Promise<void>;
}

/**
 * Finds a PostgreSQL for the run (TEST_DATABASE_URL, else Testcontainers when a Docker engine
 * answers, else embedded), migrates one template database, and hands both to the test files;
 * each file then clones the template into a fresh database of its own.
 */
export default async function setup(project: TestProject) {
  const server = await startServer();
  const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const templateDatabase = `envoy_tpl_${runId}`;
  await adminQuery(server.url, `CREATE DATABASE "${templateDatabase}"`);
  const template = createDatabase(databaseUrl(server.url, templateDatabase), {
    poolMax: 1,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 60_000,
  });
  try {
    await runMigrations(template.pool);
  } finally {
    await template.close();
  }
  const pooler =
    process.env.TEST_POOLER === 'pgbouncer' ? await startPgBouncer(server.url, { poolSize: 10 }) : null;
  console.log(
    `test database: ${server.kind}${pooler ? ', the apps behind PgBouncer in transaction mode' : ''}`,
  );
  project.provide('adminUrl', server.url);
  project.provide('poolerUrl', pooler ? pooler.pooled(server.url) : null);
  project.provide('templateDatabase', templateDatabase);
  project.provide('runId', runId);

  return async () => {
    await pooler?.stop();
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
        [`envoy_t_${runId}_%`, templateDatabase],
      );
      for (const { datname } of rows) await dropDatabase(admin, datname);
    } finally {
      await admin.end();
    }
    await server.stop();
  };
}

async function startServer(): Promise<Server> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) return { url: given, kind: 'TEST_DATABASE_URL', stop: async () => {} };
  const container = await tryTestcontainers();
  if (container) return container;
  const port = await freePort();
  const beforeExit = process.listeners('beforeExit');
  const onExit = process.listeners('exit');
  const embedded = await startEmbeddedPostgres({
    dataDir: path.join(os.tmpdir(), `envoy-test-pg-${process.pid}-${port}`),
    port,
    persistent: false,
  });
  // The package's exit hook (async-exit-hook) ends the process with code 0 on 'beforeExit', which
  // turns a failed run into a passed one, and throws on 'exit' when that did not run first. The
  // teardown below stops the server itself: both are taken off.
  for (const listener of process.listeners('beforeExit')) {
    if (!beforeExit.includes(listener)) process.removeListener('beforeExit', listener);
  }
  for (const listener of process.listeners('exit')) {
    if (!onExit.includes(listener)) process.removeListener('exit', listener);
  }
  return { url: embedded.url, kind: `embedded PostgreSQL on port ${port}`, stop: () => embedded.stop() };
}

async function tryTestcontainers(): Promise<Server | null> {
  if (!process.env.DOCKER_HOST && !existsSync('/var/run/docker.sock')) return null;
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').start();
    return {
      url: container.getConnectionUri(),
      kind: 'Testcontainers postgres:16',
      stop: async () => void (await container.stop()),
    };
  } catch (err) {
    console.warn(`Docker did not answer (${errorMessage(err)}); using embedded PostgreSQL`);
    return null;
  }
}

async function adminQuery(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
