import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { sendWritten, writeReceiptSchema } from '../../http/write-receipt.js';
import { loadIdParams } from '../loads/index.js';
import type { OfferCounters } from './offer-counter.js';
import {
  counterOfferBody,
  createOfferBody,
  listLoadOffersQuery,
  listOffersQuery,
  offerCounterSchema,
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

export const offersRoutes: FastifyPluginAsyncZod<{
  offers: PerRequest<OffersService>;
  counters: PerRequest<OfferCounters>;
}> = async (app, { offers: service, counters }) => {
  listRoutes(app, service);
  counterRoute(app, counters);

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
      sendWritten(request, reply, await service(request).create(scopeOf(request), request.body), WRITTEN),
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
    async (request) => service(request).get(scopeOf(request), request.params.offer_id),
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
        await service(request).setStatus(scopeOf(request), request.params.offer_id, request.body.status),
        WRITTEN,
      ),
  );
};

/** The offer lists and their stats. */
function listRoutes(app: App, service: PerRequest<OffersService>) {
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
    async (request) => service(request).list(scopeOf(request), request.query),
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
    async (request) => service(request).stats(scopeOf(request), request.query),
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
    async (request) => service(request).forLoad(scopeOf(request), request.params.load_id, request.query),
  );
}

/** A rep's counter-offer, said in the offer's conversation. */
function counterRoute(app: App, counters: PerRequest<OfferCounters>) {
  app.post(
    '/offers/:offer_id/counter',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'counterOffer',
        tags,
        summary: "Answer a carrier's offer with a counter-offer, in the offer's own conversation",
        description:
          'Said on the channel the offer came from (the e-mail thread or the WhatsApp chat of its outreach), in ' +
          "the agent's words, and recorded as a round of the carrier's negotiation on the load under the same " +
          "rules as the agent's counters: `amount` over the load's max_buy_rate is 422 `counter_above_ceiling`; " +
          'at or over what the carrier asked, 422 `counter_not_below_offer` (accept the offer instead); under our ' +
          'last counter, 422 `counter_below_last_counter`. The last round of the policy is said as final. The ' +
          'offer stays pending with `counter_offer_amount` set; a carrier who then offers at or under it is taken ' +
          'as the agent takes any offer, and a "yes" is an offer at the counter. 409 when the conversation can ' +
          'no longer take a counter: `offer_not_pending`, `offer_already_accepted` (the load is booked), ' +
          '`load_not_bookable` (the load takes no offers), `negotiation_rounds_exhausted`, `negotiation_ended` ' +
          '(the carrier said no, or we passed), `stop_contact_requested`, `contact_not_allowed` (the carrier is ' +
          'disabled, blocked or restricted on the lane), `no_conversation` (an offer entered by a rep or an API ' +
          'client), `counter_needs_call` (an offer made on a call: call the carrier instead). A message the channel ' +
          'could not send is 502 `counter_not_sent` with nothing recorded. Emits `offer.countered`.',
        params: offerIdParams,
        body: counterOfferBody,
        response: {
          200: offerCounterSchema,
          ...errorResponses(401, 403, 404, 409, 422, 429, 502),
        },
      },
    },
    async (request) =>
      counters(request).counter(scopeOf(request), request.params.offer_id, request.body.amount),
  );
}
