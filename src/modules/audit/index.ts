/** What other modules use of the audit log: writing rows in their transactions, one entity's rows. */
export { auditEntrySchema } from './audit-schemas.js';
export {
  AUDIT_ENTITY_TYPES,
  type AuditEntityType,
  type AuditEntry,
  auditOf,
  insertAudit,
} from './audit-trail.js';
