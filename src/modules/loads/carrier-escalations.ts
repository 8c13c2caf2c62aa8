import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';

/**
 * An active escalation on each load whose accepted offer is the carrier's (a booking to look at
 * again: the carrier turned high risk), unless one with the same reason is already active.
 * Returns the loads escalated.
 */
export async function escalateLoadsBookedTo(
  tx: DbOrTx,
  organizationId: string,
  carrierId: string,
  reason: string,
): Promise<string[]> {
  const rows = await tx.execute<{ load_id: string }>(sql`
    SELECT DISTINCT o.load_id FROM offers o
    WHERE o.organization_id = ${organizationId} AND o.carrier_id = ${carrierId} AND o.status = 'accepted'
      AND NOT EXISTS (SELECT 1 FROM escalations e
                      WHERE e.organization_id = o.organization_id AND e.load_id = o.load_id
                        AND e.status = 'active' AND e.reason = ${reason})`);
  for (const r of rows.rows) {
    await tx.execute(sql`
      INSERT INTO escalations (id, organization_id, load_id, status, reason)
      VALUES (${newId('escalation')}, ${organizationId}, ${r.load_id}, 'active', ${reason})`);
  }
  return rows.rows.map((r) => r.load_id);
}
