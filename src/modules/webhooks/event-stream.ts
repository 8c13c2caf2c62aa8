import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { ChannelListener } from '../../db/notifications.js';
import { AppError } from '../../domain/errors.js';
import { errorMessage } from '../../lib/error-text.js';
import { EVENT_NOTIFICATIONS, eventEnvelope } from './event-emitting.js';
import {
  closeStream,
  cursorAfter,
  cursorNow,
  eventsAfter,
  insertTicket,
  openStream,
  purgeStreamRecords,
  retainEvents,
  type StoredEvent,
  type StreamCursor,
  type TicketGrant,
  touchStreams,
  useTicket,
} from './event-stream-repository.js';

export type { TicketGrant };

/** Who holds a stream: checked again at every heartbeat, so a revoked credential loses its stream. */
export type StreamOwner = TicketGrant;

export interface OpenStreamRequest {
  readonly owner: StreamOwner;
  /** Only these event types; null: every type. */
  readonly types: ReadonlySet<string> | null;
  /** The last event the client received (`Last-Event-ID`), to resume after it. */
  readonly lastEventId: string | null;
}

/** A ticket opens one stream, within a minute of being issued. */
export const TICKET_TTL_SECONDS = 60;
const TICKET_FORMAT = /^envoy_st_[A-Za-z0-9_-]{43}$/;
const hashTicket = (ticket: string) => createHash('sha256').update(ticket).digest('hex');

/** Events read per query; a stream further behind catches up in several. */
const BATCH = 500;
/** A client this far behind in reading is cut off; it resumes from its last event when it returns. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How soon to look again when an older transaction still runs (see eventsAfter). */
const HELD_RETRY_MS = 50;
/** How long a client waits before reconnecting, sent as the stream's `retry:`. */
const CLIENT_RETRY_MS = 3000;

class LiveStream {
  closed = false;
  fetching = false;
  again = false;
  retry: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly owner: StreamOwner,
    readonly types: ReadonlySet<string> | null,
    public cursor: StreamCursor,
    readonly out: PassThrough,
  ) {}

  get organizationId() {
    return this.owner.organizationId;
  }

  /** Writes one SSE block; false when the client reads too slowly to keep (it is then cut off). */
  write(block: string): boolean {
    if (this.closed) return false;
    this.out.write(block);
    if (this.out.writableLength > MAX_BUFFERED_BYTES) {
      this.out.destroy();
      return false;
    }
    return true;
  }
}

const frame = (organizationId: string, e: StoredEvent) =>
  `id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(eventEnvelope({ ...e, organization_id: organizationId }))}\n\n`;

/** A message of the stream itself (never an event of the catalogue): no `id`, so resuming skips it. */
const notice = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The live event streams of this instance. Each stream reads its organization's stored events in
 * order after its cursor. A NOTIFY sent by the writing transaction (on any instance) wakes the
 * streams of that organization; a heartbeat keeps proxies from closing idle connections, keeps the
 * organization's events stored for resuming, re-checks each stream's credential, and reads once
 * more in case a notification was lost.
 */
export class EventStreamHub {
  private readonly streams = new Map<string, LiveStream>();
  /** The LISTEN that wakes this instance's streams (readiness reports whether it hears). */
  readonly listener: ChannelListener;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  /** This process among the instances sharing the database. */
  readonly instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly database: Database,
    private readonly settings: Config['eventStream'],
    /** Whether a stream's owner may still read: its key active, its membership and session alive. */
    private readonly stillAllowed: (owner: StreamOwner) => Promise<boolean>,
    private readonly log: Pick<FastifyBaseLogger, 'warn' | 'info' | 'debug'>,
  ) {
    this.listener = new ChannelListener(
      database,
      EVENT_NOTIFICATIONS,
      {
        message: (organizationId) => this.wake(organizationId),
        // Notifications sent while the connection was down are lost: every stream looks again.
        connected: () => {
          for (const s of this.streams.values()) void this.pump(s);
        },
      },
      log,
    );
  }

  /** Rows a stream counts as open for: a few heartbeats without one and it no longer counts. */
  private get staleMs() {
    return this.settings.heartbeatMs * 3;
  }

  /** Events are kept this long past a heartbeat: the replay window from any moment a stream was open. */
  private get retainSeconds() {
    return Math.ceil(this.settings.replaySeconds + (this.settings.heartbeatMs * 2) / 1000);
  }

  async start(): Promise<void> {
    await this.listener.start();
    this.heartbeat = setInterval(() => void this.beat(), this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Ends every stream (their clients reconnect elsewhere and resume) and stops listening. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    const open = [...this.streams.values()];
    for (const s of open) this.end(s, notice('stream.closed', { reason: 'server_shutdown' }));
    await Promise.all(open.map((s) => this.forget(s)));
    await this.listener.stop();
  }

  /** How many streams this instance holds. */
  get size(): number {
    return this.streams.size;
  }

  /**
   * Opens a stream: 429 `stream_limit_reached` when the organization already holds its cap on all
   * instances together. The returned body is what the response sends until either side closes.
   */
  async open(request: OpenStreamRequest): Promise<PassThrough> {
    if (this.stopped) throw new AppError(503, 'service_unavailable', 'The server is shutting down');
    const { owner } = request;
    const { organizationId } = owner;
    const resumed = request.lastEventId
      ? await cursorAfter(this.database.db, organizationId, request.lastEventId, this.settings.replaySeconds)
      : null;
    const cursor = resumed ?? (await cursorNow(this.database.db));
    const id = await openStream(
      this.database.db,
      organizationId,
      this.instanceId,
      this.settings.maxPerOrganization,
      this.staleMs,
    );
    if (!id) {
      const seconds = Math.ceil(this.settings.heartbeatMs / 1000);
      throw new AppError(
        429,
        'stream_limit_reached',
        `This organization already has ${this.settings.maxPerOrganization} open event streams; close one or retry in ${seconds} seconds`,
        null,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    try {
      await retainEvents(this.database.db, [organizationId], this.retainSeconds);
    } catch (err) {
      // The stream never opens: its place under the cap is given back at once, not at staleness.
      await closeStream(this.database.db, id).catch(() => {});
      throw err;
    }
    const out = new PassThrough();
    const stream = new LiveStream(id, owner, request.types, cursor, out);
    this.streams.set(id, stream);
    out.on('close', () => void this.forget(stream));
    stream.write(`retry: ${CLIENT_RETRY_MS}\n: connected\n\n`);
    if (request.lastEventId && !resumed) {
      // Past the replay window or unknown: what happened since cannot be replayed in full.
      stream.write(
        notice('stream.resync', {
          reason: 'last_event_id_not_resumable',
          last_event_id: request.lastEventId,
          message: 'Events since that one are no longer kept: reload the data, then follow the stream',
        }),
      );
    }
    void this.pump(stream);
    return out;
  }

  /** New events for an organization: its streams read them. */
  private wake(organizationId: string) {
    for (const s of this.streams.values()) if (s.organizationId === organizationId) void this.pump(s);
  }

  /** Reads a stream's events after its cursor and writes them, until none are left. */
  private async pump(s: LiveStream): Promise<void> {
    if (s.closed) return;
    if (s.fetching) {
      s.again = true;
      return;
    }
    s.fetching = true;
    try {
      do {
        s.again = false;
        const rows = await eventsAfter(this.database.db, s.organizationId, s.cursor, BATCH);
        let held = false;
        for (const row of rows) {
          if (row.held) {
            held = true;
            break;
          }
          s.cursor = { txid: row.txid, seq: row.seq };
          if (!s.types || s.types.has(row.type)) {
            if (!s.write(frame(s.organizationId, row))) return;
          }
        }
        if (held) this.lookAgain(s, HELD_RETRY_MS);
        else if (rows.length === BATCH) s.again = true;
        if (s.out.writableNeedDrain) await drained(s.out);
      } while (s.again && !s.closed);
    } catch (err) {
      this.log.warn({ err: { message: errorMessage(err) }, stream: s.id }, 'event stream read failed');
      this.lookAgain(s, this.settings.heartbeatMs);
    } finally {
      s.fetching = false;
    }
  }

  private lookAgain(s: LiveStream, ms: number) {
    if (s.retry || s.closed) return;
    s.retry = setTimeout(() => {
      s.retry = undefined;
      void this.pump(s);
    }, ms);
    s.retry.unref();
  }

  /** Ends a stream from our side, with a last message saying why. */
  private end(s: LiveStream, last: string) {
    if (s.closed) return;
    s.write(last);
    s.closed = true;
    s.out.end();
  }

  /** The client or we closed the stream: it stops counting toward the cap at once. */
  private async forget(s: LiveStream) {
    if (!this.streams.delete(s.id)) return;
    s.closed = true;
    clearTimeout(s.retry);
    try {
      await closeStream(this.database.db, s.id);
      await retainEvents(this.database.db, [s.organizationId], this.retainSeconds);
    } catch (err) {
      // The row stops counting once its heartbeat is stale.
      this.log.warn({ err: { message: errorMessage(err) }, stream: s.id }, 'event stream close not recorded');
    }
  }

  /** One heartbeat of every stream of this instance. */
  private async beat() {
    const open = [...this.streams.values()];
    if (open.length === 0) return;
    for (const s of open) s.write(': keepalive\n\n');
    try {
      await touchStreams(
        this.database.db,
        open.map((s) => s.id),
      );
      await retainEvents(
        this.database.db,
        [...new Set(open.map((s) => s.organizationId))],
        this.retainSeconds,
      );
      for (const s of open) {
        if (s.closed) continue;
        if (!(await this.stillAllowed(s.owner))) {
          this.end(s, notice('stream.closed', { reason: 'credential_revoked' }));
          continue;
        }
        void this.pump(s);
      }
    } catch (err) {
      this.log.warn({ err: { message: errorMessage(err) } }, 'event stream heartbeat failed');
    }
  }

  /**
   * A one-use ticket for a browser's EventSource (which cannot send headers): the credential stays
   * in the caller's headers, and only this short-lived secret goes in the stream's URL.
   */
  async issueTicket(grant: TicketGrant): Promise<{ ticket: string; expires_at: Date }> {
    const ticket = `envoy_st_${randomBytes(32).toString('base64url')}`;
    const { expires_at } = await insertTicket(
      this.database.db,
      grant,
      hashTicket(ticket),
      TICKET_TTL_SECONDS,
    );
    return { ticket, expires_at };
  }

  /** The grant of an unused, unexpired ticket, which is used up by this call; else null. */
  async redeemTicket(ticket: string): Promise<TicketGrant | null> {
    if (!TICKET_FORMAT.test(ticket)) return null;
    return useTicket(this.database.db, hashTicket(ticket));
  }

  /** One round of clean-up (tickets, streams of stopped instances, events past the replay window). */
  purge(): Promise<number> {
    return purgeStreamRecords(this.database.db, this.settings.replaySeconds, this.staleMs);
  }
}

function drained(out: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}
