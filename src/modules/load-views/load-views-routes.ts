import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  createLoadViewBody,
  listLoadViewsQuery,
  loadViewIdParams,
  loadViewSchema,
  updateLoadViewBody,
} from './load-views-schemas.js';
import type { LoadViewsService } from './load-views-service.js';

const tags = ['load-views'];

export const loadViewsRoutes: FastifyPluginAsyncZod<{ loadViews: PerRequest<LoadViewsService> }> = async (
  app,
  { loadViews: service },
) => {
  app.get(
    '/load-views',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadViews',
        tags,
        summary: "Saved load views visible to the caller: the organization's and their own private ones",
        querystring: listLoadViewsQuery,
        response: { 200: pageOf(loadViewSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );

  app.post(
    '/load-views',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createLoadView',
        tags,
        summary: 'Save a load view (private by default)',
        body: createLoadViewBody,
        response: { 201: loadViewSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await service(request).create(scopeOf(request), request.body)),
  );

  app.get(
    '/load-views/:view_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getLoadView',
        tags,
        summary: 'One saved load view',
        params: loadViewIdParams,
        response: { 200: loadViewSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).get(scopeOf(request), request.params.view_id),
  );

  app.patch(
    '/load-views/:view_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'updateLoadView',
        tags,
        summary: 'Change a view (its creator, or an OWNER or ADMIN for an organization view)',
        params: loadViewIdParams,
        body: updateLoadViewBody,
        response: { 200: loadViewSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).update(scopeOf(request), request.params.view_id, request.body),
  );

  app.delete(
    '/load-views/:view_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'deleteLoadView',
        tags,
        summary: 'Delete a view (its creator, or an OWNER or ADMIN for an organization view)',
        params: loadViewIdParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await service(request).delete(scopeOf(request), request.params.view_id);
      return reply.status(204).send(null);
    },
  );
};
