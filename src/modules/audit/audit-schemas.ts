import { z } from 'zod';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, dateTimeInput, queryList, storedEnum, text } from '../../http/schemas.js';
import { AUDIT_ACTOR_TYPES, AUDIT_ENTITY_TYPES } from './audit-trail.js';

/** One audit row: what changed (entity and action), who changed it, and the values either side. */
export const auditEntrySchema = z
  .object({
    id: z.string(),
    entity_type: z.string().meta({
      description: `The kind of resource changed: ${AUDIT_ENTITY_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
    }),
    entity_id: z.string(),
    action: z.string(),
    reason: z.string().nullable(),
    reason_note: z.string().nullable(),
    actor_type: storedEnum(AUDIT_ACTOR_TYPES),
    actor_id: z
      .string()
      .nullable()
      .meta({ description: 'The user id or API key id that acted; null for the service itself.' }),
    before: z.unknown(),
    after: z.unknown(),
    created_at: dateTime(),
  })
  .meta({ id: 'AuditEntry' });

export const listAuditLogQuery = pageQuery().extend({
  actor_id: text(100).optional().meta({ description: 'A user id or API key id.' }),
  actor_type: z.enum(AUDIT_ACTOR_TYPES).optional(),
  entity_type: z.enum(AUDIT_ENTITY_TYPES).optional(),
  entity_id: text(100).optional(),
  action: queryList(text(100), 20).optional(),
  created_after: dateTimeInput().optional().meta({ description: 'Rows created at or after this time.' }),
  created_before: dateTimeInput().optional().meta({ description: 'Rows created before this time.' }),
});
export type ListAuditLogQuery = z.output<typeof listAuditLogQuery>;
