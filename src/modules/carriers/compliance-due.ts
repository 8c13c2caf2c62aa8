import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
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
