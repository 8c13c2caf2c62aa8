// The live stream's reads and writes: the events after a cursor, open streams across instances,
// the organizations whose events are kept for their streams, and one-use stream tickets.

import { and, count, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { firstRow } from '../../db/rows.js';
import { newId } from '../../domain/ids.js';
import { defined } from '../../lib/defined.js';
import {
  eventRetention,
  eventStreams,
  eventStreamTickets,
  events,
  webhookDeliveries,
} from './webhooks-tables.js';

/** A place in an organization's events: everything at or before it has been read. */
export interface StreamCursor {
  /** The writing transaction (xid8, as decimal text). */
  readonly txid: string;
  readonly seq: number;
}

export interface StoredEvent {
  id: string;
  type: string;
  data: unknown;
  created_at: Date;
  txid: string;
  seq: number;
  /** Written by a transaction that may still have older ones running: not readable yet. */
  held: boolean;
}

/**
 * Where a stream that starts now begins: at the oldest transaction still running, since every
 * older one has finished and any later one may still commit events the stream must not miss.
 */
export async function cursorNow(db: Db): Promise<StreamCursor> {
  const rows = await db.execute<{ txid: string }>(
    sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS txid`,
  );
  return { txid: defined(rows.rows[0], 'rows.rows[0]').txid, seq: 0 };
}

/**
 * The cursor just after one of the organization's events, when a stream may resume from it: the
 * event is stored, younger than the replay window (older ones may have lost neighbours to the
 * purge), and from this database's transaction history (not from before a restore).
 */
export async function cursorAfter(
  db: Db,
  organizationId: string,
  eventId: string,
  replaySeconds: number,
): Promise<StreamCursor | null> {
  const rows = await db.execute<{ txid: string; seq: string; resumable: boolean }>(sql`
    SELECT txid::text AS txid, seq::text AS seq,
      created_at > envoy_now() - make_interval(secs => ${replaySeconds})
        AND txid < pg_snapshot_xmax(pg_current_snapshot()) AS resumable
    FROM ${events}
    WHERE ${events.organization_id} = ${organizationId} AND ${events.id} = ${eventId}`);
  const row = rows.rows[0];
  return row?.resumable ? { txid: row.txid, seq: Number(row.seq) } : null;
}

/**
 * The organization's events after `cursor`, in the order the stream delivers them. Rows of
 * transactions newer than the oldest one still running come back `held`: an older transaction
 * may yet commit events that go before them.
 */
export async function eventsAfter(
  db: Db,
  organizationId: string,
  cursor: StreamCursor,
  limit: number,
): Promise<StoredEvent[]> {
  const rows = await db.execute<Omit<StoredEvent, 'seq'> & { seq: string }>(sql`
    SELECT e.id, e.type, e.data, e.created_at, e.txid::text AS txid, e.seq::text AS seq,
      e.txid >= pg_snapshot_xmin(pg_current_snapshot()) AS held
    FROM ${events} e
    WHERE e.organization_id = ${organizationId}
      AND (e.organization_id, e.txid, e.seq) > (${organizationId}, ${cursor.txid}::xid8, ${cursor.seq})
    ORDER BY e.txid, e.seq
    LIMIT ${limit}`);
  return rows.rows.map((r) => ({ ...r, created_at: new Date(r.created_at), seq: Number(r.seq) }));
}

/**
 * Opens a stream when the organization has fewer than `max` open on every instance together:
 * counted under a per-organization lock so two simultaneous connects cannot both take the last
 * place. Rows of instances that stopped without closing them stop counting once `staleMs` passes.
 */
export async function openStream(
  db: Db,
  organizationId: string,
  instanceId: string,
  max: number,
  staleMs: number,
): Promise<string | null> {
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(hashtextextended(${`event_streams:${organizationId}`}, 0))`,
    );
    const [open] = await tx
      .select({ n: count() })
      .from(eventStreams)
      .where(
        and(
          eq(eventStreams.organization_id, organizationId),
          gt(eventStreams.last_seen_at, sql`now() - make_interval(secs => ${staleMs / 1000})`),
        ),
      );
    if ((open?.n ?? 0) >= max) return null;
    const id = newId('eventStream');
    await tx.insert(eventStreams).values({ id, organization_id: organizationId, instance_id: instanceId });
    return id;
  });
}

export async function closeStream(db: Db, id: string): Promise<void> {
  await db.delete(eventStreams).where(eq(eventStreams.id, id));
}

/** A heartbeat of this instance's open streams: they keep counting toward the cap. */
export async function touchStreams(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(eventStreams)
    .set({ last_seen_at: sql`now()` })
    .where(inArray(eventStreams.id, [...ids]));
}

/** Keeps every event of these organizations for at least `seconds` from now. */
export async function retainEvents(
  db: Db,
  organizationIds: readonly string[],
  seconds: number,
): Promise<void> {
  if (organizationIds.length === 0) return;
  const until = sql`now() + make_interval(secs => ${seconds})`;
  await db
    .insert(eventRetention)
    .values(organizationIds.map((id) => ({ organization_id: id, retain_until: until })))
    .onConflictDoUpdate({
      target: eventRetention.organization_id,
      set: { retain_until: sql`greatest(${eventRetention.retain_until}, excluded.retain_until)` },
    });
}

export interface TicketGrant {
  organizationId: string;
  kind: 'api_key' | 'bearer';
  userId: string | null;
  apiKeyId: string | null;
  sessionId: string | null;
}

export async function insertTicket(
  db: Db,
  grant: TicketGrant,
  ticketHash: string,
  ttlSeconds: number,
): Promise<{ id: string; expires_at: Date }> {
  return firstRow(
    await db
      .insert(eventStreamTickets)
      .values({
        id: newId('eventStreamTicket'),
        organization_id: grant.organizationId,
        ticket_hash: ticketHash,
        principal_kind: grant.kind,
        user_id: grant.userId,
        api_key_id: grant.apiKeyId,
        session_id: grant.sessionId,
        expires_at: sql`now() + make_interval(secs => ${ttlSeconds})`,
      })
      .returning({ id: eventStreamTickets.id, expires_at: eventStreamTickets.expires_at }),
    'insertTicket',
  );
}

/** Uses a ticket: at most once, and only before it expires (one statement, so two uses race safely). */
export async function useTicket(db: Db, ticketHash: string): Promise<TicketGrant | null> {
  const [row] = await db
    .update(eventStreamTickets)
    .set({ used_at: sql`now()` })
    .where(
      and(
        eq(eventStreamTickets.ticket_hash, ticketHash),
        sql`${eventStreamTickets.used_at} IS NULL`,
        gt(eventStreamTickets.expires_at, sql`now()`),
      ),
    )
    .returning();
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    kind: row.principal_kind,
    userId: row.user_id,
    apiKeyId: row.api_key_id,
    sessionId: row.session_id,
  };
}

/**
 * Removes what the stream no longer needs: used or expired tickets, rows of streams whose
 * instance stopped, and events kept only for streams once older than the replay window (events a
 * webhook delivery refers to stay with their deliveries). Returns how many rows went.
 */
export async function purgeStreamRecords(db: Db, replaySeconds: number, staleMs: number): Promise<number> {
  const tickets = await db
    .delete(eventStreamTickets)
    .where(lt(eventStreamTickets.expires_at, sql`now() - interval '1 minute'`))
    .returning({ id: eventStreamTickets.id });
  const streams = await db
    .delete(eventStreams)
    .where(lt(eventStreams.last_seen_at, sql`now() - make_interval(secs => ${staleMs / 1000})`))
    .returning({ id: eventStreams.id });
  // Per organization that ever kept events for streams, through its (organization, created_at) index.
  const purged = await db.execute(sql`
    WITH doomed AS (
      SELECT e.id FROM ${eventRetention} r
      CROSS JOIN LATERAL (
        SELECT e.id FROM ${events} e
        WHERE e.organization_id = r.organization_id
          AND e.created_at < envoy_now() - make_interval(secs => ${replaySeconds}) - interval '5 minutes'
          AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = e.id)
        LIMIT 5000
      ) e
    )
    DELETE FROM ${events} WHERE id IN (SELECT id FROM doomed)`);
  return tickets.length + streams.length + (purged.rowCount ?? 0);
}
