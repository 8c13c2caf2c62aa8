import { and, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { offsetOf } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { auditLog } from './audit-tables.js';

export interface AuditLogFilters {
  actorId?: string | undefined;
  actorType?: string | undefined;
  entityType?: string | undefined;
  entityId?: string | undefined;
  actions?: string[] | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
}

/** The organization's rows matching `f`, newest first (the order of audit_log_org_created_idx). */
export async function listAuditLog(
  db: DbOrTx,
  scope: OrgScope,
  f: AuditLogFilters,
  page: number,
  pageSize: number,
) {
  const conditions: SQL[] = [eq(auditLog.organization_id, scope.organizationId)];
  if (f.actorId !== undefined) conditions.push(eq(auditLog.actor_id, f.actorId));
  if (f.actorType !== undefined) conditions.push(eq(auditLog.actor_type, f.actorType));
  if (f.entityType !== undefined) conditions.push(eq(auditLog.entity_type, f.entityType));
  if (f.entityId !== undefined) conditions.push(eq(auditLog.entity_id, f.entityId));
  if (f.actions?.length) conditions.push(inArray(auditLog.action, f.actions));
  // created_after is inclusive, created_before exclusive: adjacent windows never share a row.
  if (f.createdAfter) conditions.push(gte(auditLog.created_at, f.createdAfter));
  if (f.createdBefore) conditions.push(lt(auditLog.created_at, f.createdBefore));
  const where = and(...conditions);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.created_at), desc(auditLog.id))
      .limit(pageSize)
      .offset(offsetOf(page, pageSize)),
    db.select({ n: count() }).from(auditLog).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}
