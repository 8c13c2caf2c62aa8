// Writing audit rows and reading one entity's rows: what other modules use of the audit log.

import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope, Principal } from '../../domain/scope.js';
import { auditLog } from './audit-tables.js';

/** The kinds of resource the audit log records changes of. */
export const AUDIT_ENTITY_TYPES = [
  'carrier',
  'lane_preference',
  'member',
  'invitation',
  'escalation',
] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

/** Who acted: a signed-in user, an API key, or the service itself. */
export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'system'] as const;

export interface AuditEntry {
  entity_type: AuditEntityType;
  entity_id: string;
  action: string;
  reason?: string | null;
  reason_note?: string | null;
  before?: unknown;
  after?: unknown;
}

/** The actor columns of a row written on behalf of `principal`. */
export function actorOf(principal: Principal) {
  return {
    actor_type: principal.kind === 'bearer' ? 'user' : principal.kind,
    actor_id: principal.kind === 'api_key' ? principal.apiKeyId : principal.userId,
  };
}

/** Writes the rows with the caller's transaction, so they exist exactly when the change does. */
export async function insertAudit(
  db: DbOrTx,
  scope: OrgScope,
  entries: AuditEntry[],
  newAuditId: () => string = () => newId('audit'),
) {
  if (entries.length === 0) return;
  const actor = actorOf(scope.principal);
  await db.insert(auditLog).values(
    entries.map((e) => ({
      id: newAuditId(),
      organization_id: scope.organizationId,
      entity_type: e.entity_type,
      entity_id: e.entity_id,
      action: e.action,
      reason: e.reason ?? null,
      reason_note: e.reason_note ?? null,
      ...actor,
      before: e.before ?? null,
      after: e.after ?? null,
    })),
  );
}

/** One entity's rows in the organization, oldest first. */
export async function auditOf(db: DbOrTx, scope: OrgScope, entityId: string) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.organization_id, scope.organizationId), eq(auditLog.entity_id, entityId)))
    .orderBy(asc(auditLog.created_at), asc(auditLog.id));
}
