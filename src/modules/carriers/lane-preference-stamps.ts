import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';

/**
 * Each organization's lane preferences as a stamp (how many, the latest change): a carrier joining
 * or leaving a lane, or its lane tier changing, changes the stamp, so cached lane rankings are
 * renewed at once rather than when they expire.
 */
export async function lanePreferenceStamps(db: DbOrTx, organizationIds: string[]) {
  if (organizationIds.length === 0) return new Map<string, string>();
  const rows = await db.execute<{ organization_id: string; stamp: string }>(sql`
    SELECT organization_id, count(*) || '|' || coalesce(max(updated_at)::text, '') AS stamp
    FROM lane_preferences WHERE organization_id = ANY(${sql.param(organizationIds)}::text[])
    GROUP BY organization_id`);
  return new Map(rows.rows.map((r) => [r.organization_id, r.stamp]));
}
