// The loads the agent works, and its planning's reads over them: which loads to enrol and lease
// for planning (the agent writes its planning states around these reads), and the queued
// outreaches whose load is no longer worked.

import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { OPEN_LOAD_STATUSES } from '../../domain/freight.js';

const OPEN_STATUSES = sql.raw(OPEN_LOAD_STATUSES.map((s) => `'${s}'`).join(', '));

/**
 * A load the agent may work, as SQL over the `loads` row the caller names (`load`: an alias such
 * as sql.identifier('l'), or the table): handed to the agent, in an open status, no accepted
 * offer, and the organization has not switched the agent off.
 */
export function workableSql(load: SQLWrapper): SQL {
  return sql`(${load}.assigned_to_ai_agent
  AND ${load}.load_status IN (${OPEN_STATUSES})
  AND NOT EXISTS (SELECT 1 FROM offers booked WHERE booked.load_id = ${load}.id AND booked.status = 'accepted')
  AND NOT EXISTS (SELECT 1 FROM agent_settings agent_off
                  WHERE agent_off.organization_id = ${load}.organization_id AND NOT agent_off.enabled))`;
}

const l = sql.identifier('l');

/** Only this organization's rows (`column` names its organization_id), or every organization's. */
export const ofOrganization = (column: SQL, organizationId?: string) =>
  organizationId ? sql`AND ${column} = ${organizationId}` : sql``;

/** Queued automated outreaches whose load the agent no longer works, locked for withdrawal. */
export async function unworkableQueued(tx: DbOrTx): Promise<string[]> {
  const stale = await tx.execute<{ id: string }>(sql`
    SELECT o.id FROM outreaches o JOIN loads l ON l.id = o.load_id
    WHERE o.is_automated AND o.status = 'pending' AND NOT ${workableSql(l)}
    FOR UPDATE OF o SKIP LOCKED`);
  return stale.rows.map((r) => r.id);
}

/**
 * Workable loads without a planning state, as (load_id, organization_id, `now`) rows: the SELECT
 * the agent inserts its planning states from, in one statement.
 */
export const workableLoadsToEnrolSql = (now: Date, organizationId?: string) => sql`
    SELECT l.id, l.organization_id, ${now} FROM loads l
    WHERE ${workableSql(l)} AND NOT EXISTS (SELECT 1 FROM agent_load_states s WHERE s.load_id = l.id)
      ${ofOrganization(sql`l.organization_id`, organizationId)}`;

/**
 * Up to `limit` workable loads whose next wave is due and that no lease holds, earliest first,
 * their planning states locked (SKIP LOCKED): the subquery the agent leases them by.
 */
export const dueWorkableLoadsSql = (now: Date, limit: number, organizationId?: string) => sql`
      SELECT s.load_id FROM agent_load_states s JOIN loads l ON l.id = s.load_id
      WHERE s.next_wave_at <= ${now} AND (s.lease_until IS NULL OR s.lease_until < now()) AND ${workableSql(l)}
        ${ofOrganization(sql`s.organization_id`, organizationId)}
      ORDER BY s.next_wave_at LIMIT ${limit}
      FOR UPDATE OF s SKIP LOCKED`;
