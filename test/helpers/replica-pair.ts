import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.js';

const run = promisify(execFile);

/**
 * A PostgreSQL primary and a streaming standby of it (`pg_basebackup -R`), each a server of its own
 * on a free port in a temporary folder, made with the machine's PostgreSQL binaries (Debian's
 * `/usr/lib/postgresql/<version>/bin`): the replica tests need a real standby, and the machine's
 * own server does not accept replication connections. As root, the servers run as `postgres`.
 */
export interface ReplicaPair {
  primaryUrl: string;
  standbyUrl: string;
  /** Stops the standby's replay (it stays up, serving what it has), and starts it again. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the standby has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stopStandby(): Promise<void>;
  startStandby(): Promise<void>;
  close(): Promise<void>;
}

/** The newest PostgreSQL's binaries on the machine, or null. */
export function postgresBinaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'pg_basebackup')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

const asRoot = userInfo().uid === 0;

export async function startReplicaPair(bin: string): Promise<ReplicaPair> {
  const dir = await mkdtemp(path.join(tmpdir(), 'envoy-replicas-'));
  await chmod(dir, 0o777);
  const tool = (name: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args])
      : run(path.join(bin, name), args);
  if (asRoot) await chown(dir, ...(await postgresIds()));
  const primary = path.join(dir, 'primary');
  const standby = path.join(dir, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  await tool('initdb', ['-D', primary, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  await appendFile(
    path.join(primary, 'postgresql.conf'),
    [
      `port = ${primaryPort}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'wal_level = replica',
      'max_wal_senders = 4',
      'fsync = off',
      'synchronous_commit = on',
      '',
    ].join('\n'),
  );
  const start = (data: string) => tool('pg_ctl', ['-D', data, '-l', `${data}.log`, '-w', 'start']);
  await start(primary);
  await tool('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    standby,
    '-R',
  ]);
  await appendFile(path.join(standby, 'postgresql.auto.conf'), `port = ${standbyPort}\nhot_standby = on\n`);
  await start(standby);
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const standbyUrl = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  const sql = async (url: string, text: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    primaryUrl,
    standbyUrl,
    async pauseReplay() {
      await sql(standbyUrl, 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await sql(standbyUrl, 'SELECT pg_wal_replay_resume()');
    },
    async caughtUp() {
      const [row] = await sql(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
      for (;;) {
        const [replayed] = await sql(
          standbyUrl,
          `SELECT pg_last_wal_replay_lsn() >= '${row?.lsn}'::pg_lsn AS done`,
        );
        if (replayed?.done) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stopStandby() {
      await tool('pg_ctl', ['-D', standby, '-m', 'immediate', '-w', 'stop']);
    },
    async startStandby() {
      await start(standby);
    },
    async close() {
      for (const data of [standby, primary]) {
        await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run('id', ['postgres']);
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  return [uid, gid];
}
