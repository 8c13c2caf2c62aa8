import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { type BodyWorkers, checkedItemsOf } from '../../http/body-workers.js';
import { parseLargeJsonCooperatively } from '../../http/cooperative-json.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { loadItemsChecked } from './loads-batch-items.js';
import { loadBatchBody, loadInputBody, loadPatchBody } from './loads-input-schemas.js';
import {
  carrierVerificationSchema,
  listLoadsQuery,
  loadBatchResultSchema,
  loadIdParams,
  loadSchema,
  loadStatsQuery,
  loadStatsSchema,
  loadUpsertResultSchema,
} from './loads-schemas.js';
import type { LoadsService } from './loads-service.js';

const tags = ['loads'];
const MiB = 1024 * 1024;

const RATE_WRITE_RULE =
  '`customer_rate` and `margin` are written only by API keys, OWNERs and ADMINs, as they are the ' +
  'only ones who read them. A MEMBER who sends either (even as null) gets 403 `insufficient_permissions` naming the ' +
  'field in `param`, and nothing is written; leave both out to update the rest of the load.';

const UNCHANGED_RULE =
  'A load matched and sent again with nothing different is answered `updated` but not written: ' +
  'its `updated_at` stays, and no `load.updated` event is sent. `stops` sent again exactly as ' +
  'stored keep their `stop_` ids; stops that differ in anything replace them, with new ids.';

/**
 * The hot reads skip re-validating their response with zod before JSON.stringify (about half of a
 * page's serialization cost). Safe because toLoad (loads-responses) builds every field explicitly
 * from the row with the schema's type; OpenAPI still documents the response schema.
 */
const plainJson = () => (data: unknown) => JSON.stringify(data);

type App = Parameters<FastifyPluginAsyncZod>[0];

export const loadsRoutes: FastifyPluginAsyncZod<{
  loads: PerRequest<LoadsService>;
  bodyWorkers: BodyWorkers;
}> = async (app, { loads: service, bodyWorkers }) => {
  // A batch of a thousand loads is several MiB of JSON: large ones go to a body worker.
  parseLargeJsonCooperatively(app, bodyWorkers);
  upsertRoutes(app, service);
  listRoutes(app, service);
  loadRoutes(app, service);
};

/** POST /loads and POST /loads/batch. */
function upsertRoutes(app: App, service: PerRequest<LoadsService>) {
  app.post(
    '/loads',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'upsertLoad',
        tags,
        summary: 'Create or update one load (201 created, 200 updated)',
        description: `${UNCHANGED_RULE} ${RATE_WRITE_RULE}`,
        body: loadInputBody,
        response: {
          200: loadUpsertResultSchema,
          201: loadUpsertResultSchema,
          ...errorResponses(401, 403, 409, 413, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const result = await service(request).upsertOne(scopeOf(request), request.body);
      return reply.status(result.operation === 'created' ? 201 : 200).send(result);
    },
  );

  app.post(
    '/loads/batch',
    {
      bodyLimit: 16 * MiB,
      config: { access: access.any, idempotent: true, bodyWorker: 'loads' },
      // batchResult (loads-upsert) builds every field with the schema's type, as toLoad does.
      serializerCompiler: plainJson,
      schema: {
        operationId: 'upsertLoadsBatch',
        tags,
        summary: 'Create or update up to 1000 loads (200 all applied, 207 otherwise)',
        description:
          'Each load is upserted as by POST /loads, in request order and one transaction. A load that ' +
          'fails validation, conflicts, or repeats an identifier of an earlier item (`duplicate_in_batch`) ' +
          'is reported in `data[].error` and `errors[]`, naming the field from the body root ' +
          "(`loads[3].stops[0].type`); the others are applied. A MEMBER's item that sends " +
          '`customer_rate` or `margin` fails with `error_code` `insufficient_permissions` and `param` ' +
          '`loads[3].customer_rate`. ' +
          UNCHANGED_RULE,
        body: loadBatchBody,
        response: {
          200: loadBatchResultSchema,
          207: loadBatchResultSchema,
          ...errorResponses(401, 403, 409, 413, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const checked = checkedItemsOf(request);
      const result = await service(request).upsertBatch(
        scopeOf(request),
        request.body.loads,
        checked ? loadItemsChecked(checked) : undefined,
      );
      return reply.status(result.success ? 200 : 207).send(result);
    },
  );
}

/** GET /loads and GET /loads/stats. */
function listRoutes(app: App, service: PerRequest<LoadsService>) {
  app.get(
    '/loads',
    {
      config: { access: access.any },
      serializerCompiler: plainJson,
      schema: {
        operationId: 'listLoads',
        tags,
        summary: 'List loads: search, filters, tabs, saved views, sorting, pagination',
        description:
          'List parameters accept repeated parameters and comma-separated values. `tms_status`, ' +
          '`carrier_rep_name` and `customer_name` match case-insensitively. Date ranges are inclusive ' +
          'UTC days. `search` is a case-insensitive substring of load number, external id, TMS load id, ' +
          'carrier name, customer name, equipment type, and the first pickup and last drop-off city and ' +
          "state. Pickup date is the first pickup stop's expected date (else its planned start); delivery " +
          "date the last drop-off stop's. `tab` keeps the loads with such records (see the parameter); " +
          '`booked_offer` is the accepted offer a load is booked on. `total_count` is exact.',
        querystring: listLoadsQuery,
        response: { 200: pageOf(loadSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/loads/stats',
    {
      config: { access: access.any },
      schema: {
        operationId: 'loadStats',
        tags,
        summary: 'Counts per load_status and per tab, with the filters of the list',
        querystring: loadStatsQuery,
        response: { 200: loadStatsSchema, ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) => service(request).stats(scopeOf(request), request.query),
  );
}

/** One load, and the records attached to it. */
function loadRoutes(app: App, service: PerRequest<LoadsService>) {
  app.patch(
    '/loads/:load_id',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'updateLoad',
        tags,
        summary: 'Change some fields of one load (partial update)',
        description:
          'Only the fields sent change, validated as on ingestion; null clears a nullable field. ' +
          'Answers the load as GET /loads/{load_id} does, and sends load.updated (and ' +
          'load.status_changed when tms_status maps to another load_status) unless nothing changed. ' +
          'The TMS owns what it sends: a field changed here is overwritten by the next POST /loads ' +
          'that carries it, so change here what the TMS does not send (is_posted, ' +
          'assigned_to_ai_agent, rates, notes). An identifier another load holds is 409 ' +
          `\`already_exists\` on that field. ${RATE_WRITE_RULE}`,
        params: loadIdParams,
        body: loadPatchBody,
        response: { 200: loadSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429) },
      },
    },
    async (request) => service(request).patch(scopeOf(request), request.params.load_id, request.body),
  );

  app.get(
    '/loads/:load_id',
    {
      config: { access: access.any },
      serializerCompiler: plainJson,
      schema: {
        operationId: 'getLoad',
        tags,
        summary: 'One load, with its stops, offer range and booking',
        params: loadIdParams,
        response: { 200: loadSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).get(scopeOf(request), request.params.load_id),
  );

  app.get(
    '/loads/:load_id/verifications',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadVerifications',
        tags,
        summary: 'Carrier verification failures met while working the load, newest first',
        params: loadIdParams,
        response: { 200: z.array(carrierVerificationSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).verifications(scopeOf(request), request.params.load_id),
  );
}
