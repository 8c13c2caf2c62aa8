// What the agent's planner reads of a load and of its carriers' contacts while it plans a wave.

import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import {
  type ContactWindow,
  contactCountsSql,
  type MostLoads,
  offeredWithinSql,
  openBundleSql,
} from './contact-history.js';

/**
 * When the load's earliest queued automated contact goes out (null: none queued), and the carriers
 * the planner found unreachable on every channel for it.
 */
export async function planningFactsRow(tx: DbOrTx, loadId: string) {
  const result = await tx.execute<{ queued_from: string | null; unreachable: string[] | null }>(sql`
    SELECT (SELECT min(send_after) FROM outreaches
            WHERE load_id = ${loadId} AND is_automated AND status = 'pending' AND cancelled_at IS NULL) AS queued_from,
           (SELECT array_agg(DISTINCT carrier_id) FROM agent_activity
            WHERE load_id = ${loadId} AND kind = 'carrier_skipped' AND carrier_id IS NOT NULL
              AND reason LIKE 'unreachable%') AS unreachable`);
  return result.rows[0];
}

/** `Bundle`: the shape the caller gives the queued message's JSON (see openBundleSql). */
export type ContactState<Bundle> = {
  n: number;
  last_at: string | null;
  open_bundle: Bundle | null;
  /** Contacted (outbound) about this load within the re-contact window: offered it with another. */
  offered: boolean;
};

/**
 * The carriers' automated contacts (`ids`, in the order given), each with its queued message about
 * another load, if any, and whether it was offered this load within the window. The caller holds
 * the carriers' planning locks.
 */
export async function contactStatesOf<Bundle>(
  tx: DbOrTx,
  organizationId: string,
  loadId: string,
  ids: readonly string[],
  window: ContactWindow,
  most: MostLoads,
): Promise<(ContactState<Bundle> & { carrier_id: string })[]> {
  const rows = await tx.execute<ContactState<Bundle> & { carrier_id: string }>(sql`
    SELECT c.id AS carrier_id, n.n, n.last_at, (${openBundleSql(organizationId, sql`c.id`, sql`ld.id`, most)}) AS open_bundle,
           ${offeredWithinSql(sql`c.id`, sql`ld.id`, window)} AS offered
    FROM unnest(${sql.param([...ids])}::text[]) AS c(id)
    CROSS JOIN (SELECT id FROM loads WHERE id = ${loadId}) ld
    CROSS JOIN LATERAL (${contactCountsSql(organizationId, sql`c.id`)}) n`);
  return rows.rows;
}
