import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Logger } from 'pino';
import type { OrgScope, Principal } from '../domain/scope.js';
import { translatePgError } from './pg-errors.js';

/**
 * Read replicas (DATABASE_READ_URLS): the reads that tolerate a little lag go to a streaming
 * standby, when one is up, not lagging past the bound, and has replayed past the reader's own last
 * write; else they run on the primary. A read that fails on a replica for want of a connection is
 * run again on the primary, so a replica going down costs its reads a retry, not a 5xx.
 *
 * Lag is measured against the primary's own write position: each probe records the primary's
 * current WAL position with the time, and a replica that has replayed up to a recorded position
 * holds everything the primary held at that time. Its lag is the age of the newest such record;
 * a reader who wrote at time w may read there once that record is younger than w.
 */

type Db = NodePgDatabase;

export interface ReplicaOptions {
  urls: readonly string[];
  /** A replica whose data is older than this is skipped. */
  maxLagMs: number;
  /** How often the primary's position and each replica's replay are probed. */
  probeMs: number;
  poolMax: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  /** Milliseconds on the clock lag is measured by (a test sets its own). */
  now?: () => number;
}

interface Replica {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly db: Db;
  up: boolean;
  /** The newest time at which the primary held nothing this replica has not replayed. */
  caughtUpAt: number;
}

/** A primary's WAL position at a time. */
interface Sample {
  at: number;
  lsn: bigint;
}

/** PostgreSQL's `X/Y` LSN text as a number. */
export function lsnOf(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Whose read it is, for reading one's own writes: a credential, or null for the service's own. */
export type ReaderKey = string | null;

/** Reads that tolerate a little lag, run where ReadReplicas sends them (a service's view of it). */
export interface LaggedReads {
  read<T>(scope: OrgScope, work: (db: Db) => Promise<T>): Promise<T>;
}

/** Every read on the given database (no replicas; services built outside the server). */
export const onPrimary = (db: Db): LaggedReads => ({ read: (_scope, work) => work(db) });

/** The reader of a principal: an API key, or a user (in every session of theirs). */
export function readerOf(p: Principal): ReaderKey {
  if (p.kind === 'api_key') return `key:${p.apiKeyId}`;
  if (p.kind === 'bearer') return `user:${p.userId}`;
  return null;
}

export class ReadReplicas implements LaggedReads {
  private readonly replicas: Replica[];
  private samples: Sample[] = [];
  private readonly lastWriteAt = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private readonly now: () => number;

  constructor(
    private readonly primary: { pool: pg.Pool; db: Db },
    private readonly options: ReplicaOptions,
    private readonly logger?: Logger,
  ) {
    this.now = options.now ?? (() => Date.now());
    this.replicas = options.urls.map((url) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: options.poolMax,
        connectionTimeoutMillis: options.connectTimeoutMs,
        idleTimeoutMillis: 30_000,
        statement_timeout: options.statementTimeoutMs,
        options: '-c jit=off',
        application_name: 'envoy-read',
      });
      // A replica's connection that dies is reported by the read that used it, then retried.
      pool.on('error', () => {});
      pool.on('connect', (client) => client.on('error', () => {}));
      return { url, pool, db: drizzle({ client: pool }), up: false, caughtUpAt: Number.NEGATIVE_INFINITY };
    });
  }

  get configured(): boolean {
    return this.replicas.length > 0;
  }

  start(): void {
    if (!this.configured || this.timer) return;
    void this.probe();
    this.timer = setInterval(() => void this.probe(), this.options.probeMs);
    this.timer.unref();
  }

  /** The principal wrote: its reads stay on the primary until a replica has replayed past now. */
  noteWrite(principal: Principal): void {
    const reader = readerOf(principal);
    if (reader && this.configured) this.lastWriteAt.set(reader, this.now());
  }

  /**
   * Runs a read that tolerates lag on a replica fit for this reader, else on the primary; a read
   * that finds its replica unreachable runs again on the primary.
   */
  async read<T>(scope: OrgScope, work: (db: Db) => Promise<T>): Promise<T> {
    const replica = this.pick(readerOf(scope.principal));
    if (!replica) return work(this.primary.db);
    try {
      return await work(replica.db);
    } catch (err) {
      if (translatePgError(err)?.statusCode !== 503) throw err;
      replica.up = false;
      this.logger?.warn(
        { replica: redact(replica.url) },
        'read replica unreachable: its reads go to the primary',
      );
      return work(this.primary.db);
    }
  }

  /** Each replica's state: up, and how old its data is (ms). */
  status(): { replica: string; up: boolean; lag_ms: number | null }[] {
    const now = this.now();
    return this.replicas.map((r) => ({
      replica: redact(r.url),
      up: r.up,
      lag_ms: r.up && Number.isFinite(r.caughtUpAt) ? Math.max(0, Math.round(now - r.caughtUpAt)) : null,
    }));
  }

  /** A replica fit for the reader, taken in turn among those that are. */
  private pick(reader: ReaderKey): Replica | null {
    const now = this.now();
    const wrote = reader ? this.lastWriteAt.get(reader) : undefined;
    const fit = this.replicas.filter(
      (r) =>
        r.up && now - r.caughtUpAt <= this.options.maxLagMs && (wrote === undefined || r.caughtUpAt > wrote),
    );
    if (fit.length === 0) return null;
    this.next = (this.next + 1) % fit.length;
    return fit[this.next] ?? null;
  }

  /** One round: the primary's position now, then how far each replica has replayed. */
  async probe(): Promise<void> {
    const at = this.now();
    let lsn: bigint;
    try {
      const { rows } = await this.primary.pool.query<{ lsn: string }>(
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      lsn = lsnOf(rows[0]?.lsn ?? '0/0');
    } catch {
      return;
    }
    this.samples.push({ at, lsn });
    // A write older than the lag bound is on every replica fit to read: it need not be remembered.
    for (const [reader, wrote] of this.lastWriteAt)
      if (wrote < at - this.options.maxLagMs) this.lastWriteAt.delete(reader);
    // Samples older than the lag bound can no longer make a replica fit.
    const horizon = at - this.options.maxLagMs - this.options.probeMs;
    while (this.samples.length > 1 && (this.samples[0]?.at ?? at) < horizon) this.samples.shift();
    await Promise.all(this.replicas.map((r) => this.probeReplica(r)));
  }

  private async probeReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ lsn: string | null; recovery: boolean }>(
        'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS recovery',
      );
      const row = rows[0];
      // Not a standby (promoted, or a primary given as a replica): its data is its own, not the primary's.
      if (!row?.recovery || !row.lsn) {
        if (replica.up) this.logger?.warn({ replica: redact(replica.url) }, 'read replica is not a standby');
        replica.up = false;
        return;
      }
      const replayed = lsnOf(row.lsn);
      let caughtUpAt = Number.NEGATIVE_INFINITY;
      for (const s of this.samples) if (s.lsn <= replayed) caughtUpAt = Math.max(caughtUpAt, s.at);
      replica.caughtUpAt = Math.max(replica.caughtUpAt, caughtUpAt);
      if (!replica.up) this.logger?.info({ replica: redact(replica.url) }, 'read replica up');
      replica.up = true;
    } catch {
      if (replica.up) this.logger?.warn({ replica: redact(replica.url) }, 'read replica unreachable');
      replica.up = false;
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.replicas.map((r) => r.pool.end()));
  }
}

/** A URL without its password, for logs and readiness. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'replica';
  }
}
