import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { LoadLane } from '../../domain/load-lane.js';

/** The lanes of these loads, with their organization. */
export async function lanesOf(db: DbOrTx, loadIds: string[]) {
  if (loadIds.length === 0) return [];
  const lanes = await db.execute<LoadLane & { organization_id: string }>(sql`
    SELECT id, organization_id, origin_city, origin_state, destination_city, destination_state, equipment_type
    FROM loads WHERE id = ANY(${sql.param(loadIds)}::text[])`);
  return lanes.rows;
}

/** The organization's load's lane, or null. */
export async function loadLane(db: DbOrTx, organizationId: string, loadId: string): Promise<LoadLane | null> {
  const result = await db.execute<LoadLane>(sql`
    SELECT id, origin_city, origin_state, destination_city, destination_state, equipment_type
    FROM loads WHERE organization_id = ${organizationId} AND id = ${loadId}`);
  return result.rows[0] ?? null;
}
