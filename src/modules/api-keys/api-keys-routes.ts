import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  apiKeyIdParams,
  apiKeySchema,
  apiKeyWithSecretSchema,
  createApiKeyBody,
  listApiKeysQuery,
  regenerateApiKeyBody,
} from './api-keys-schemas.js';
import type { ApiKeysService } from './api-keys-service.js';

const managers = access.bearer('OWNER', 'ADMIN');
const tags = ['api-keys'];

export const apiKeysRoutes: FastifyPluginAsyncZod<{ apiKeys: PerRequest<ApiKeysService> }> = async (
  app,
  { apiKeys: service },
) => {
  app.post(
    '/api-keys',
    {
      config: { access: managers, idempotent: true },
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an API key (the secret is returned once)',
        body: createApiKeyBody,
        response: { 201: apiKeyWithSecretSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await service(request).create(scopeOf(request), request.body)),
  );

  app.get(
    '/api-keys',
    {
      config: { access: managers },
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: 'List API keys (never the secret)',
        querystring: listApiKeysQuery,
        response: { 200: pageOf(apiKeySchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/api-keys/:id',
    {
      config: { access: managers },
      schema: {
        operationId: 'getApiKey',
        tags,
        summary: 'One API key (never its secret)',
        params: apiKeyIdParams,
        response: { 200: apiKeySchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).get(scopeOf(request), request.params.id),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: managers },
      schema: {
        operationId: 'deleteApiKey',
        tags,
        summary: 'Deactivate an API key (it stays listed with is_active false)',
        description:
          'Answers 200 with an empty object, as the hosted Envoy API does. Deactivating a key that is ' +
          'already inactive answers the same; its credential stops working at once on every instance.',
        params: apiKeyIdParams,
        response: {
          200: z.object({}).strict().meta({ description: 'Deactivated' }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      await service(request).deactivate(scopeOf(request), request.params.id);
      return {};
    },
  );

  app.post(
    '/api-keys/:id/regenerate',
    {
      config: { access: managers, idempotent: true },
      schema: {
        operationId: 'regenerateApiKey',
        tags,
        summary: 'Issue a replacement key; the old one keeps working for expire_old_in_seconds',
        params: apiKeyIdParams,
        body: regenerateApiKeyBody,
        response: { 201: apiKeyWithSecretSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await service(request).regenerate(
            scopeOf(request),
            request.params.id,
            request.body.expire_old_in_seconds,
          ),
        ),
  );
};
