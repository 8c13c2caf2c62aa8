import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import { errorResponses } from '../../http/schemas.js';
import { auditEntrySchema, listAuditLogQuery } from './audit-schemas.js';
import type { AuditLogService } from './audit-service.js';

export const auditRoutes: FastifyPluginAsyncZod<{ audit: AuditLogService }> = async (
  app,
  { audit: service },
) => {
  app.get(
    '/audit-log',
    {
      config: { access: access.apiKeyOrBearer('OWNER', 'ADMIN') },
      schema: {
        operationId: 'listAuditLog',
        tags: ['audit'],
        summary: "The organization's audit log, newest first",
        description:
          'Carrier, lane-preference and team changes (invitations, role changes, removals), each written ' +
          'with its change. Filters combine with AND; `action` takes several values. `created_after` is ' +
          'inclusive and `created_before` exclusive.',
        querystring: listAuditLogQuery,
        response: { 200: pageOf(auditEntrySchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service.list(scopeOf(request), request.query),
  );
};
