// Outreach reads, writes and SQL fragments other modules use; the outreaches table stays this module's.

import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { emitEvents, outreachEventData } from '../webhooks/index.js';
import { outreaches } from './outreaches-tables.js';

export type OutreachRow = typeof outreaches.$inferSelect;

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
    .set({ status: 'failed', error_reason: reason, cancelled_at: sql`now()`, updated_at: sql`now()` })
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
      .set({ status: 'completed', carrier_engaged: true, updated_at: sql`now()` })
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
