import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './client.js';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];
/** How often the listener checks that it hears its channel, and how long it waits for the echo. */
const PROBE_EVERY_MS = 30_000;
const PROBE_TIMEOUT_MS = 5_000;
/** A probe's payload; the listener keeps its own probes from the channel's readers. */
const PROBE_PREFIX = 'envoy-listener-probe:';

export interface ListenerEvents {
  /** A notification on the channel. */
  message(payload: string): void;
  /**
   * The connection was (re)established. Notifications sent while it was down are lost, so a cache
   * kept fresh by them must start over here.
   */
  connected(): void;
}

/**
 * One PostgreSQL connection of its own that LISTENs on a channel (pooled connections cannot: the
 * pool hands them to others), on the database's own address (Database.directUrl: through a
 * transaction-mode pooler a LISTEN lands on a server session the pooler then gives to others),
 * reconnecting with backoff when the database drops it. The sender's side is
 * `notify(db, channel, payload)` or pg_notify inside the changing transaction, so the message
 * leaves only if the change commits.
 *
 * A connection can also stay up and hear nothing (a pooler between, a server that lost the
 * LISTEN). Every PROBE_EVERY_MS the listener notifies its own channel through the pool and waits
 * for the echo; without it, it counts as not listening (the caches that trust it fall back to
 * their short window), says so in the log, and connects again.
 */
export class ChannelListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private readonly echoes = new Map<string, () => void>();

  constructor(
    private readonly database: Pick<Database, 'directUrl' | 'pool'>,
    readonly channel: string,
    private readonly events: ListenerEvents,
    private readonly log?: Pick<Logger, 'warn' | 'info'>,
  ) {
    if (!CHANNEL.test(channel)) throw new Error(`invalid channel name '${channel}'`);
  }

  /** Whether notifications are arriving now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async start(): Promise<void> {
    await this.connect();
    // The first check right away (not awaited): a listener behind a pooler shows within seconds.
    void this.probe();
    this.probeTimer = setInterval(() => void this.probe(), PROBE_EVERY_MS);
    this.probeTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.probeTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /**
   * Notifies the channel through the pool and waits for the echo: true when it came back. When it
   * does not, the connection is dropped and made again.
   */
  async probe(timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    const token = `${PROBE_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.echoes.set(token, () => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
    });
    try {
      await this.database.pool.query('SELECT pg_notify($1, $2)', [this.channel, token]);
    } catch {
      // The database cannot be reached through the pool: the listener is not the one to blame.
      this.echoes.delete(token);
      clearTimeout(timer);
      return this.client !== undefined;
    }
    const ok = await heard;
    this.echoes.delete(token);
    clearTimeout(timer);
    if (!ok && this.client === client && !this.stopped) {
      this.log?.warn(
        { channel: this.channel },
        'notification listener hears nothing on its channel (behind a transaction-mode pooler? set DATABASE_DIRECT_URL); reconnecting',
      );
      this.client = undefined;
      client.end().catch(() => {});
      this.retry();
    }
    return ok;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.database.directUrl,
      application_name: 'envoy-listener',
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      if (!this.stopped) {
        this.log?.warn(
          { err: err ? { message: err.message } : undefined, channel: this.channel },
          'notification listener lost its connection; reconnecting',
        );
        this.retry();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel !== this.channel) return;
      const payload = n.payload ?? '';
      if (payload.startsWith(PROBE_PREFIX)) this.echoes.get(payload)?.();
      else this.events.message(payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (err) {
      client.end().catch(() => {});
      // Once per streak of failures: the retries go on with backoff while the database is away.
      if (this.attempt === 0) {
        this.log?.warn(
          { err: { message: err instanceof Error ? err.message : String(err) }, channel: this.channel },
          'notification listener could not LISTEN; retrying',
        );
      }
      this.retry();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => {});
      return;
    }
    if (this.attempt > 0) this.log?.info({ channel: this.channel }, 'notification listener reconnected');
    this.attempt = 0;
    this.client = client;
    this.events.connected();
  }

  private retry() {
    if (this.stopped) return;
    const delay = RETRY_DELAYS_MS[Math.min(this.attempt, RETRY_DELAYS_MS.length - 1)] ?? 5000;
    this.attempt++;
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}
