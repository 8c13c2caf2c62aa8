import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import { sendWritten, writeReceiptSchema } from '../../http/write-receipt.js';
import { loadIdParams } from '../loads/index.js';
import {
  createOfferBody,
  listLoadOffersQuery,
  listOffersQuery,
  offerIdParams,
  offerSchema,
  offerStatsQuery,
  offerStatsSchema,
  patchOfferBody,
} from './offers-schemas.js';
import type { OffersService } from './offers-service.js';

type App = Parameters<FastifyPluginAsyncZod>[0];

const tags = ['offers'];
const WRITTEN = { object: 'offer', collection: '/api/v1/offers' };

const LIST_NOTES =
  'List parameters take repeated parameters or comma-separated values. `created_after` is inclusive, ' +
  '`created_before` exclusive; `created_after` later than `created_before` is 422. `order_by` sorts on ' +
  'one of the documented fields (else 422), descending unless `order_desc=false`; offers without ' +
  '`accepted_at` sort after the others both ways, and ties break on id, so pages are stable. ' +
  '`total_count` is exact.';

export const offersRoutes: FastifyPluginAsyncZod<{ offers: OffersService }> = async (
  app,
  { offers: service },
) => {
  listRoutes(app, service);

  app.post(
    '/offers',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createOffer',
        tags,
        summary: 'Record an offer a carrier made on a load (entered by a rep or an API client)',
        description:
          'Created `pending` with `source` api and `channel` null. An unknown `load_id`, `carrier_id` or a ' +
          '`contact_id` that is not one of the carrier’s contacts gives 422.',
        body: createOfferBody,
        response: { 201: offerSchema, 202: writeReceiptSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) =>
      sendWritten(request, reply, await service.create(scopeOf(request), request.body), WRITTEN),
  );

  app.get(
    '/offers/:offer_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getOffer',
        tags,
        summary: 'One offer, with its carrier',
        params: offerIdParams,
        response: { 200: offerSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service.get(scopeOf(request), request.params.offer_id),
  );

  app.patch(
    '/offers/:offer_id',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'updateOffer',
        tags,
        summary: 'Accept, reject or reopen an offer',
        description:
          'Moves freely between `pending`, `accepted` and `rejected`, except: accepting while another offer ' +
          'of the load is accepted gives 409 `offer_already_accepted` (also under concurrent requests); ' +
          'accepting on a Cancelled or Delivered load gives 409 `load_not_bookable`. Accepting stamps ' +
          '`accepted_at`; leaving `accepted` clears it. The same status again returns the offer unchanged. ' +
          'Accepting books the load: its `booked_offer` shows the offer (`booked_by` user), it moves from the ' +
          '`active_offers` tab to `booked`, and `load.booked` is emitted once. Leaving `accepted` undoes the ' +
          "booking (`load.unbooked`). Neither changes the load's `load_status`, which the TMS owns.",
        params: offerIdParams,
        body: patchOfferBody,
        response: {
          200: offerSchema,
          202: writeReceiptSchema,
          ...errorResponses(401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) =>
      sendWritten(
        request,
        reply,
        await service.setStatus(scopeOf(request), request.params.offer_id, request.body.status),
        WRITTEN,
      ),
  );
};

/** The offer lists and their stats. */
function listRoutes(app: App, service: OffersService) {
  app.get(
    '/offers',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listOffers',
        tags,
        summary: 'List offers, newest first unless sorted otherwise',
        description: LIST_NOTES,
        querystring: listOffersQuery,
        response: { 200: pageOf(offerSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service.list(scopeOf(request), request.query),
  );

  // A static segment outranks `:offer_id` in the router, whatever the order of registration.
  app.get(
    '/offers/stats',
    {
      config: { access: access.any },
      schema: {
        operationId: 'offerStats',
        tags,
        summary: 'Counts per status, channel and source, with the filters of the list',
        description:
          'Every status, channel and source is present, 0 when no offer has it; `by_channel.none` counts ' +
          'offers without a channel. `total_count` equals GET /offers `total_count` under the same filters.',
        querystring: offerStatsQuery,
        response: { 200: offerStatsSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service.stats(scopeOf(request), request.query),
  );

  app.get(
    '/loads/:load_id/offers',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadOffers',
        tags,
        summary: 'Offers on one load, newest first unless sorted otherwise (same filters as GET /offers)',
        description: LIST_NOTES,
        params: loadIdParams,
        querystring: listLoadOffersQuery,
        response: { 200: pageOf(offerSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service.forLoad(scopeOf(request), request.params.load_id, request.query),
  );
}
