import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/pagination.js';
import { errorResponses } from '../../http/schemas.js';
import {
  createOfferBody,
  listOffersQuery,
  loadIdParams,
  offerIdParams,
  offerSchema,
  patchOfferBody,
} from './offers-schemas.js';
import type { OffersService } from './offers-service.js';

const tags = ['offers'];

export const offersRoutes: FastifyPluginAsyncZod<{ offers: OffersService }> = async (
  app,
  { offers: service },
) => {
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
        response: { 201: offerSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.create(scopeOf(request), request.body)),
  );

  app.get(
    '/offers',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listOffers',
        tags,
        summary: 'List offers, newest first',
        querystring: listOffersQuery,
        response: { 200: pageOf(offerSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service.list(scopeOf(request), request.query),
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
          '`accepted_at`; leaving `accepted` clears it. The same status again returns the offer unchanged.',
        params: offerIdParams,
        body: patchOfferBody,
        response: { 200: offerSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => service.setStatus(scopeOf(request), request.params.offer_id, request.body.status),
  );

  app.get(
    '/loads/:load_id/offers',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadOffers',
        tags,
        summary: 'Offers on one load, newest first (same filters as GET /offers)',
        params: loadIdParams,
        querystring: listOffersQuery.omit({ load_id: true }),
        response: { 200: pageOf(offerSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service.forLoad(scopeOf(request), request.params.load_id, request.query),
  );
};
