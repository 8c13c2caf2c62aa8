import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { errorResponses } from '../../http/schemas.js';
import { LOAD_STATUSES } from './loads-tables.js';
import { mappingSchema, statusMappingParams as params } from './status-mappings-schemas.js';
import type { StatusMappings } from './status-mappings-service.js';

export const statusMappingRoutes: FastifyPluginAsyncZod<{ mappings: StatusMappings }> = async (
  app,
  { mappings },
) => {
  const tags = ['loads'];
  const managers = access.apiKeyOrBearer('OWNER', 'ADMIN');

  app.get(
    '/load-status-mappings',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadStatusMappings',
        tags,
        summary: 'How TMS statuses map to load_status: the defaults and this organization’s own entries',
        response: { 200: z.object({ data: z.array(mappingSchema) }), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ data: await mappings.list(scopeOf(request)) }),
  );

  app.put(
    '/load-status-mappings/:tms_status',
    {
      config: { access: managers },
      schema: {
        operationId: 'setLoadStatusMapping',
        tags,
        summary: 'Map a TMS status (case-insensitive) to a load_status; existing loads are remapped',
        params,
        body: z.object({ load_status: z.enum(LOAD_STATUSES) }),
        response: {
          200: mappingSchema.extend({ remapped_loads: z.number().int() }),
          ...errorResponses(401, 403, 422, 429),
        },
      },
    },
    async (request) => mappings.set(scopeOf(request), request.params.tms_status, request.body.load_status),
  );

  app.delete(
    '/load-status-mappings/:tms_status',
    {
      config: { access: managers },
      schema: {
        operationId: 'deleteLoadStatusMapping',
        tags,
        summary: 'Drop this organization’s entry; the default applies again',
        params,
        response: { 204: z.null().describe('Removed'), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      await mappings.remove(scopeOf(request), request.params.tms_status);
      return reply.status(204).send(null);
    },
  );
};
