import pg from 'pg';
import type { Logger } from 'pino';

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
const RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

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
 * pool hands them to others), reconnecting with backoff when the database drops it. The sender's
 * side is `notify(db, channel, payload)` or pg_notify inside the changing transaction, so the
 * message leaves only if the change commits.
 */
export class ChannelListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly channel: string,
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
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'envoy-listener' });
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
      if (n.channel === this.channel) this.events.message(n.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch {
      client.end().catch(() => {});
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
