import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { carrierHasLoadInFlight } from '../read-side/index.js';
import { carriers } from './carriers-tables.js';

/** The carrier's compliance check made due now (the compliance worker runs due checks), unless sooner. */
export async function makeCheckDue(db: DbOrTx, scope: OrgScope, carrierId: string) {
  await db
    .update(carriers)
    .set({
      compliance_check_due_at: sql`LEAST(coalesce(${carriers.compliance_check_due_at}, envoy_now()), envoy_now())`,
    })
    .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, carrierId)));
}

/** A carrier claimed for a check. */
export type ClaimedCarrier = { id: string; organization_id: string };

/**
 * Up to `batch` carriers whose check is due, claimed with FOR UPDATE SKIP LOCKED: their due time
 * is pushed forward 5 minutes as a lease, so a crashed instance's carriers come due again.
 */
export async function claimDueChecks(db: DbOrTx, batch: number): Promise<ClaimedCarrier[]> {
  const claimed = await db.execute<ClaimedCarrier>(sql`
    UPDATE carriers SET compliance_check_due_at = envoy_now() + interval '5 minutes'
    WHERE id IN (
      SELECT id FROM carriers
      WHERE compliance_check_due_at <= envoy_now()
      ORDER BY compliance_check_due_at
      LIMIT ${batch}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, organization_id`);
  return claimed.rows;
}

/**
 * Up to `batch` carriers with a load in flight whose last check is older than `intervalHours`,
 * least recently checked first, claimed by pushing `last_verified_at` forward under SKIP LOCKED.
 */
export async function claimCarriersInFlight(
  db: DbOrTx,
  intervalHours: number,
  batch: number,
): Promise<ClaimedCarrier[]> {
  const claimed = await db.execute<ClaimedCarrier>(sql`
    UPDATE carriers SET last_verified_at = envoy_now()
    WHERE id IN (
      SELECT c.id FROM carriers c
      WHERE (c.last_verified_at IS NULL
             OR c.last_verified_at < envoy_now() - make_interval(hours => ${intervalHours}))
        AND ${carrierHasLoadInFlight(sql`c`)}
      ORDER BY c.last_verified_at NULLS FIRST
      LIMIT ${batch}
      FOR UPDATE SKIP LOCKED)
    RETURNING id, organization_id`);
  return claimed.rows;
}
