// Outreach reads, writes and SQL fragments other modules use; the outreaches table stays this module's.

import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import type { CallStatus } from '../../domain/calls.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import { emitEvent, emitEvents, outreachEventData } from './outreaches-events.js';
import { outreaches } from './outreaches-tables.js';

export type OutreachRow = typeof outreaches.$inferSelect;
export type NewOutreach = typeof outreaches.$inferInsert;

export async function findOutreach(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select()
    .from(outreaches)
    .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
    .limit(1);
  return row ?? null;
}

/**
 * Withdraws queued automated outreaches before they go out (load covered or no longer worked,
 * carrier asked to stop): `failed` with the reason and `cancelled_at`, since the spec's statuses
 * have no "cancelled". Emits outreach.status_changed in the caller's transaction.
 */
export async function cancelAutomatedOutreaches(
  tx: DbOrTx,
  which: { ids: string[] } | { loadId: string } | { carrierId: string; organizationId: string },
  reason: string,
): Promise<OutreachRow[]> {
  const where =
    'ids' in which
      ? inArray(outreaches.id, which.ids)
      : 'loadId' in which
        ? eq(outreaches.load_id, which.loadId)
        : and(
            eq(outreaches.organization_id, which.organizationId),
            eq(outreaches.carrier_id, which.carrierId),
          );
  const rows = await tx
    .update(outreaches)
    .set({ status: 'failed', error_reason: reason, cancelled_at: productNow, updated_at: productNow })
    .where(and(where, eq(outreaches.is_automated, true), eq(outreaches.status, 'pending')))
    .returning();
  await emitMoved(tx, rows, 'pending');
  return rows;
}

/** The carrier answered an e-mail or WhatsApp outreach: it is completed and the carrier engaged. */
export async function recordReply(db: DbOrTx, scope: OrgScope, id: string) {
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: outreaches.status })
      .from(outreaches)
      .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
      .for('update');
    if (!before) return;
    const rows = await tx
      .update(outreaches)
      .set({ status: 'completed', carrier_engaged: true, updated_at: productNow })
      .where(and(eq(outreaches.organization_id, scope.organizationId), eq(outreaches.id, id)))
      .returning();
    if (before.status !== 'completed') await emitMoved(tx, rows, new Map([[id, before.status]]));
  });
}

export interface OutreachEventRow {
  [key: string]: unknown;
  id: string;
  organization_id: string;
  carrier_id: string | null;
  load_id: string | null;
  modality: string | null;
  status: string;
}

/** outreach.status_changed for moved rows, grouped by organization, in the caller's transaction. */
export async function emitMoved(
  tx: DbOrTx,
  rows: OutreachEventRow[],
  previous: string | Map<string, string>,
) {
  const byOrg = new Map<string, OutreachEventRow[]>();
  for (const r of rows) byOrg.set(r.organization_id, [...(byOrg.get(r.organization_id) ?? []), r]);
  for (const [org, list] of byOrg) {
    await emitEvents(
      tx,
      org,
      list.map((r) => ({
        type: 'outreach.status_changed',
        data: outreachEventData(r, typeof previous === 'string' ? previous : (previous.get(r.id) ?? null)),
      })),
    );
  }
}

/**
 * EXISTS of a pending or active outreach on the load whose organization and id the caller's query
 * names (`organizationId`, `loadId`: its columns or aliases).
 */
export const loadHasActiveOutreach = (organizationId: SQL, loadId: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM ${outreaches} x WHERE x.organization_id = ${organizationId} AND x.load_id = ${loadId} AND x.status IN ('pending', 'active'))`;

/** How many of the organization's loads have a pending or active outreach (one row, `n`). */
export const countLoadsWithActiveOutreach = (organizationId: string): SQL =>
  sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${outreaches} WHERE organization_id = ${organizationId} AND status IN ('pending', 'active')) d`;

/** The outreach of a call follows it: active when answered, then completed, no_response or failed. */
export async function followCallOutreach(db: DbOrTx, callId: string, status: CallStatus) {
  const next =
    status === 'IN_PROGRESS'
      ? 'active'
      : status === 'COMPLETED' || status === 'TRANSFERRED'
        ? 'completed'
        : status === 'VOICEMAIL' || status === 'NO_RESPONSE'
          ? 'no_response'
          : status === 'FAILED' || status === 'CANCELLED'
            ? 'failed'
            : null;
  if (!next) return;
  const before = await db
    .select({ id: outreaches.id, status: outreaches.status })
    .from(outreaches)
    .where(and(eq(outreaches.call_id, callId), inArray(outreaches.status, ['pending', 'active'])))
    .for('update');
  if (before.length === 0) return;
  const moved = await db
    .update(outreaches)
    .set({
      status: next,
      carrier_engaged:
        status === 'COMPLETED' || status === 'TRANSFERRED' ? true : sql`${outreaches.carrier_engaged}`,
      error_reason: next === 'failed' ? `call ${status.toLowerCase()}` : sql`${outreaches.error_reason}`,
      updated_at: productNow,
    })
    .where(and(eq(outreaches.call_id, callId), inArray(outreaches.status, ['pending', 'active'])))
    .returning();
  const previous = new Map(before.map((o) => [o.id, o.status]));
  if (moved.length) {
    await emitEvents(
      db,
      defined(moved[0], 'moved[0]').organization_id,
      moved.map((o) => ({
        type: 'outreach.status_changed',
        data: outreachEventData(o, previous.get(o.id) ?? null),
      })),
    );
  }
}

/** Puts a call on the outreaches the agent queued for it (one, or a bundle), in the caller’s transaction. */
export async function attachCallToOutreaches(
  tx: DbOrTx,
  scope: OrgScope,
  outreachIds: readonly string[],
  callId: string,
) {
  if (outreachIds.length === 0) return;
  await tx
    .update(outreaches)
    .set({ call_id: callId, updated_at: productNow })
    .where(
      and(eq(outreaches.organization_id, scope.organizationId), inArray(outreaches.id, [...outreachIds])),
    );
}

/**
 * The loads an outbound call offers, by the outreaches it carries: the call's own load first, then
 * the other loads of its lanes the agent put on the same call (a bundle), in the order queued.
 */
export async function loadsOfCall(
  db: DbOrTx,
  call: { id: string; organization_id: string; load_id: string | null; load_number: string | null },
): Promise<{ id: string; load_number: string | null }[]> {
  const rows = await db
    .select({ id: outreaches.load_id, load_number: outreaches.load_number })
    .from(outreaches)
    .where(
      and(
        eq(outreaches.organization_id, call.organization_id),
        eq(outreaches.call_id, call.id),
        eq(outreaches.direction, 'outbound'),
      ),
    )
    .orderBy(outreaches.created_at, outreaches.id);
  const own = call.load_id ? [{ id: call.load_id, load_number: call.load_number }] : [];
  return [...own, ...rows.filter((r) => r.id !== call.load_id && own.length > 0)];
}

/** Opens the pending outreach of an outbound call and emits outreach.created, in the caller's transaction. */
export async function openCallOutreach(
  tx: DbOrTx,
  scope: OrgScope,
  call: { carrierId: string; loadId: string; loadNumber: string | null; callId: string },
) {
  const outreach = firstRow(
    await tx
      .insert(outreaches)
      .values({
        id: newId('outreach'),
        organization_id: scope.organizationId,
        carrier_id: call.carrierId,
        load_id: call.loadId,
        modality: 'call',
        direction: 'outbound',
        status: 'pending',
        load_number: call.loadNumber,
        call_id: call.callId,
      })
      .returning(),
    'insert of the outreach',
  );
  await emitEvent(tx, scope.organizationId, 'outreach.created', outreachEventData(outreach));
}

/**
 * The outreach of an inbound call about a load from an identified carrier, once (spec: completed);
 * emits outreach.created. In the caller's transaction.
 */
export async function recordInboundCallOutreach(
  tx: DbOrTx,
  call: {
    id: string;
    organization_id: string;
    carrier_id: string;
    load_id: string;
    load_number: string | null;
    from_number: string | null;
  },
) {
  const [existing] = await tx
    .select({ id: outreaches.id })
    .from(outreaches)
    .where(
      and(
        eq(outreaches.call_id, call.id),
        eq(outreaches.load_id, call.load_id),
        eq(outreaches.carrier_id, call.carrier_id),
      ),
    );
  if (existing) return;
  const outreach = firstRow(
    await tx
      .insert(outreaches)
      .values({
        id: newId('outreach'),
        organization_id: call.organization_id,
        carrier_id: call.carrier_id,
        load_id: call.load_id,
        load_number: call.load_number,
        modality: 'call',
        direction: 'inbound',
        status: 'completed',
        carrier_engaged: true,
        call_id: call.id,
        address: call.from_number,
      })
      .returning(),
    'insert of the outreach',
  );
  await emitEvent(tx, call.organization_id, 'outreach.created', outreachEventData(outreach));
}
