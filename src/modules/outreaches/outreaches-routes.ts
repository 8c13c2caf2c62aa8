import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { sendWritten, writeReceiptSchema } from '../../http/write-receipt.js';
import { loadIdParams } from '../loads/index.js';
import {
  createOutreachBody,
  listOutreachesQuery,
  outreachIdParams,
  outreachSchema,
  outreachStatsQuery,
  outreachStatsSchema,
  trackingPromptBody,
} from './outreaches-schemas.js';
import type { OutreachesService } from './outreaches-service.js';

type App = Parameters<FastifyPluginAsyncZod>[0];

const tags = ['outreaches'];
const WRITTEN = { object: 'outreach', collection: '/api/v1/outreaches' };

export const outreachesRoutes: FastifyPluginAsyncZod<{ outreaches: PerRequest<OutreachesService> }> = async (
  app,
  { outreaches: service },
) => {
  listRoutes(app, service);

  app.post(
    '/outreaches',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createOutreach',
        tags,
        summary: 'Contact a carrier about a load now (call by default, or e-mail or WhatsApp)',
        description:
          'A carrier the contact guard refuses (stop-contact requested, disabled, compliance BLOCKED, ' +
          'restricted or admin-disabled on the load’s lane) gives 409 `contact_not_allowed` with the reason. ' +
          'A call is placed through the voice platform and the outreach follows it (`pending`, `active`, then ' +
          '`completed`, `failed` or `no_response`). An e-mail or WhatsApp outreach is `active` once sent and ' +
          'becomes `no_response` when unanswered after OUTREACH_NO_RESPONSE_HOURS (24 by default).',
        body: createOutreachBody,
        response: {
          201: outreachSchema,
          202: writeReceiptSchema,
          ...errorResponses(401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) =>
      sendWritten(request, reply, await service(request).create(scopeOf(request), request.body), WRITTEN),
  );

  app.get(
    '/outreaches/:outreach_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getOutreach',
        tags,
        summary: 'One outreach with carrier detail',
        params: outreachIdParams,
        response: { 200: outreachSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).get(scopeOf(request), request.params.outreach_id),
  );

  app.post(
    '/tracking/loads/:load_id/prompt',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'promptTracking',
        tags: ['tracking'],
        summary: 'Check in with the carrier hauling a load (a check call by default)',
        description:
          'The hauling carrier is the accepted offer’s, else the load’s `hauling_carrier_id` (our id or the ' +
          'TMS carrier id) or `hauling_carrier_mc_number`; the call goes to the driver’s phone when the ' +
          'booked offer or the load names one, else the carrier’s. `instructions` and the stop are handed ' +
          'to the voice agent. A `stop_id` not on the load gives 422; a load without a hauling carrier 422; ' +
          'a carrier the contact guard refuses 409 `contact_not_allowed`. Answers 202 with the outreach.',
        params: loadIdParams,
        body: trackingPromptBody,
        response: { 202: outreachSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await service(request).trackingPrompt(scopeOf(request), request.params.load_id, request.body)),
  );
};

/** The outreach list and its stats. */
function listRoutes(app: App, service: PerRequest<OutreachesService>) {
  app.get(
    '/outreaches',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listOutreaches',
        tags,
        summary: 'List outreaches, newest first unless sorted otherwise',
        description:
          'List parameters take repeated parameters or comma-separated values. `created_after` is ' +
          'inclusive, `created_before` exclusive; `created_after` later than `created_before` is 422. ' +
          '`order_by` sorts on one of the documented fields (else 422), descending unless ' +
          '`order_desc=false`; ties break on id, so pages are stable. `total_count` is exact.',
        querystring: listOutreachesQuery,
        response: { 200: pageOf(outreachSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );

  // A static segment outranks `:outreach_id` in the router, whatever the order of registration.
  app.get(
    '/outreaches/stats',
    {
      config: { access: access.any },
      schema: {
        operationId: 'outreachStats',
        tags,
        summary: 'Counts per status and modality, with the filters of the list',
        description:
          'Every status and modality is present, 0 when no outreach has it. `total_count` equals ' +
          'GET /outreaches `total_count` under the same filters.',
        querystring: outreachStatsQuery,
        response: { 200: outreachStatsSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).stats(scopeOf(request), request.query),
  );
}
