// The dispatcher's reads: queued automated outreaches due to go out, with the contact guard's
// verdict and whether their load is still worked, locked for sending.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { refusalSql } from './contact-refusal.js';
import { ofOrganization, workableSql } from './workable-loads.js';

const l = sql.identifier('l');
const c = sql.identifier('c');

export type DueOutreach = { id: string; refusal: string | null; workable: boolean; late_join: boolean };

/**
 * Queued automated outreaches whose time has come, locked (SKIP LOCKED: another instance takes
 * others), in sending order with their bundle (their own id when alone), each with the contact
 * guard's verdict, whether its load is still worked, and whether it joined a bundle whose first
 * outreach has already gone out (`late_join`).
 */
export async function dueOutreachRows(
  tx: DbOrTx,
  limit: number,
  organizationId?: string,
): Promise<(DueOutreach & { bundle: string })[]> {
  const due = await tx.execute<DueOutreach & { bundle: string }>(sql`
    SELECT o.id, coalesce(o.bundle_id, o.id) AS bundle, ${refusalSql(sql`o.organization_id`, { carrier: c, load: l })} AS refusal,
           ${workableSql(l)} AS workable,
           EXISTS (SELECT 1 FROM outreaches p
                   WHERE p.id = o.bundle_id AND p.status <> 'pending' AND p.cancelled_at IS NULL) AS late_join
    FROM outreaches o
    JOIN carriers c ON c.id = o.carrier_id
    JOIN loads l ON l.id = o.load_id
    WHERE o.is_automated AND o.status = 'pending' AND o.send_after <= envoy_now()
      ${ofOrganization(sql`o.organization_id`, organizationId)}
    -- A bundle's outreaches share send_after: kept together in one batch.
    ORDER BY o.send_after, coalesce(o.bundle_id, o.id) LIMIT ${limit}
    FOR UPDATE OF o SKIP LOCKED`);
  return due.rows;
}

/**
 * Queued outreaches that joined one of `bundleIds` (bundles being claimed for sending) and may still
 * go with it: the guard lets the carrier be offered the load and the load is still worked. Locked
 * (SKIP LOCKED: one another instance holds is left to it).
 */
export async function pendingJoinsOf(tx: DbOrTx, bundleIds: readonly string[]): Promise<string[]> {
  if (bundleIds.length === 0) return [];
  const rows = await tx.execute<{ id: string }>(sql`
    SELECT o.id FROM outreaches o
    JOIN carriers c ON c.id = o.carrier_id
    JOIN loads l ON l.id = o.load_id
    WHERE o.bundle_id = ANY(${sql.param([...bundleIds])}::text[]) AND o.status = 'pending'
      AND o.cancelled_at IS NULL AND ${workableSql(l)}
      AND ${refusalSql(sql`o.organization_id`, { carrier: c, load: l })} IS NULL
    FOR UPDATE OF o SKIP LOCKED`);
  return rows.rows.map((r) => r.id);
}
