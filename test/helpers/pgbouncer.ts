import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

/** Where Debian's package puts PgBouncer (`.ci/run` installs it when missing). */
const BINARY = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p));

export const pgBouncerInstalled = BINARY !== undefined;

/** `databaseUrl` (its user, password, database and parameters) at the host and port of `at`. */
export function atAddressOf(databaseUrl: string, at: string): string {
  const url = new URL(databaseUrl);
  const address = new URL(at);
  url.hostname = address.hostname;
  url.port = address.port;
  return url.toString();
}

export interface PgBouncer {
  /** `databaseUrl` with its host and port replaced by the pooler's. */
  pooled(databaseUrl: string): string;
  stop(): Promise<void>;
}

async function answering(port: number, deadline: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`PgBouncer did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * PgBouncer in transaction mode in front of `serverUrl`'s server, every database name passed
 * through (`*`), with fewer server connections than clients so sessions are shared. Run as the
 * `postgres` user when started as root (PgBouncer refuses root).
 */
export async function startPgBouncer(
  serverUrl: string,
  options: { poolSize?: number; ignoreStartupParameters?: string[] } = {},
): Promise<PgBouncer> {
  if (!BINARY) throw new Error('PgBouncer is not installed');
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envoy-pgbouncer-'));
  chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'users.txt');
  writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      '[databases]',
      // The server's own credentials, when its URL has a password (the embedded cluster's).
      `* = host=${server.hostname} port=${server.port || 5432}${server.password ? ` user=${user} password=${decodeURIComponent(server.password)}` : ''}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 8}`,
      'max_client_conn = 500',
      // TCP only, no pid file: nothing for the (dropped) user to write.
      'unix_socket_dir =',
      ...(options.ignoreStartupParameters
        ? [`ignore_startup_parameters = ${options.ignoreStartupParameters.join(',')}`]
        : []),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(BINARY, asRoot ? ['-u', 'postgres', ini] : [ini], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  try {
    await answering(port, Date.now() + 10_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${String(err)}: ${stderr.slice(-2000)}`);
  }
  return {
    pooled: (databaseUrl) => atAddressOf(databaseUrl, `postgres://127.0.0.1:${port}`),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // SIGTERM: PgBouncer closes at once (SIGINT would wait for its clients).
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
