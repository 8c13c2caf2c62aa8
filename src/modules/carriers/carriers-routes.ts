import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Written } from '../../domain/written.js';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { textPiecesOf } from '../../http/body-text.js';
import { type BodyWorkers, checkedItemsOf, csvItemsParser } from '../../http/body-workers.js';
import { parseLargeJsonCooperatively } from '../../http/cooperative-json.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { sendWritten, writeReceiptSchema } from '../../http/write-receipt.js';
import { auditEntrySchema } from '../audit/index.js';
import { lanePreferenceAdminRoutes, lanePreferenceRoutes } from './carrier-lanes-routes.js';
import { type CarrierBatchBody, carrierItemsChecked } from './carriers-batch-items.js';
import { batchResultSchema } from './carriers-batch-schemas.js';
import {
  batchBody,
  type Carrier,
  carrierIdParams,
  carrierInput,
  carrierPatch,
  carrierSchema,
  disableBody,
  enableBody,
  listCarriersQuery,
} from './carriers-schemas.js';
import type { CarriersService } from './carriers-service.js';
import { complianceCheckSchema } from './vetting-schemas.js';

const tags = ['carriers'];
const admins = access.bearer('OWNER', 'ADMIN');
const MiB = 1024 * 1024;
const WRITTEN = { object: 'carrier', collection: '/api/v1/carriers' };
/** An update's answers: the carrier read back, or the receipt when that read failed (sendWritten). */
const answers = { 200: carrierSchema, 202: writeReceiptSchema };
const answer = (request: FastifyRequest, reply: FastifyReply, written: Written<Carrier>) =>
  sendWritten(request, reply, written, WRITTEN);

type App = Parameters<FastifyPluginAsyncZod>[0];

export const carriersRoutes: FastifyPluginAsyncZod<{
  carriers: PerRequest<CarriersService>;
  bodyWorkers: BodyWorkers;
}> = async (app, { carriers: service, bodyWorkers }) => {
  // Batches of several MiB of JSON; CSV uploads arrive as text. Large ones go to a body worker.
  parseLargeJsonCooperatively(app, bodyWorkers);
  app.addContentTypeParser('text/csv', csvItemsParser(bodyWorkers));

  upsertRoutes(app, service);
  readRoutes(app, service);
  statusRoutes(app, service);
  historyRoutes(app, service);
  lanePreferenceRoutes(app, service);
  lanePreferenceAdminRoutes(app, service);
};

/** POST /carriers and POST /carriers/batch. */
function upsertRoutes(app: App, service: PerRequest<CarriersService>) {
  app.post(
    '/carriers',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createCarrier',
        tags,
        summary: 'Create or update one carrier (matched on tms_carrier_id, MC, DOT, then name)',
        description:
          'MC and DOT numbers are stored as digits only; phones as E.164. Compliance is checked inline ' +
          'within 2 s, else the carrier stays UNVERIFIED and is checked in the background.',
        body: carrierInput,
        response: {
          200: carrierSchema.describe('An existing carrier was updated'),
          201: carrierSchema.describe('Created'),
          202: writeReceiptSchema,
          ...errorResponses(401, 403, 409, 422, 429),
        },
      },
    },
    async (request, reply) =>
      sendWritten(request, reply, await service(request).write(scopeOf(request), request.body), WRITTEN),
  );

  app.post(
    '/carriers/batch',
    {
      bodyLimit: 16 * MiB,
      config: { access: access.any, idempotent: true, bodyWorker: 'carriers' },
      schema: {
        operationId: 'batchCarriers',
        tags,
        summary: 'Create or update up to 1000 carriers (JSON, or a text/csv upload)',
        description:
          'Items are applied in request order. 200 when every item was created or updated; 207 otherwise, ' +
          'with the reason per item in `data[].error` and `errors[]`. An item repeating the tms_carrier_id, ' +
          'MC or DOT of an earlier item is skipped (`duplicate_in_batch`). Compliance runs in the background.',
        body: batchBody,
        response: {
          200: batchResultSchema,
          207: batchResultSchema.describe('Some items were not applied'),
          ...errorResponses(401, 403, 409, 413, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const checked = checkedItemsOf(request);
      const method = typeof body === 'string' ? 'csv' : 'batch';
      // A CSV upload is read from the pieces it arrived in, never joined into one string.
      const upload: CarrierBatchBody = checked
        ? { checked: carrierItemsChecked(checked), method }
        : typeof body === 'string'
          ? { csv: textPiecesOf(request, body) }
          : body;
      const result = await service(request).batch(scopeOf(request), upload);
      return reply.status(result.success ? 200 : 207).send(result);
    },
  );
}

/** List, read and patch carriers. */
function readRoutes(app: App, service: PerRequest<CarriersService>) {
  app.get(
    '/carriers',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listCarriers',
        tags,
        summary: 'List carriers',
        description:
          '`search` matches name (substring), MC and DOT. A lane filter (`lane_id`, or `origin_state` and ' +
          '`destination_state`) keeps carriers with an active preference on that lane and fills ' +
          '`lane_routing_guide_tier` with the strongest tier they hold on it.',
        querystring: listCarriersQuery,
        response: { 200: pageOf(carrierSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => service(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/carriers/:carrier_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCarrier',
        tags,
        summary: 'One carrier, with its contacts',
        params: carrierIdParams,
        response: { 200: carrierSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).view(scopeOf(request), request.params.carrier_id),
  );

  app.patch(
    '/carriers/:carrier_id',
    {
      config: { access: access.apiKeyOrBearer('OWNER', 'ADMIN'), idempotent: true },
      schema: {
        operationId: 'updateCarrier',
        tags,
        summary: 'Update a carrier (only sent fields change)',
        description: '`is_active` is refused with 422 `field_not_updatable`: use disable and enable.',
        params: carrierIdParams,
        body: carrierPatch,
        response: {
          ...answers,
          ...errorResponses(401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) =>
      answer(
        request,
        reply,
        await service(request).patch(scopeOf(request), request.params.carrier_id, request.body),
      ),
  );
}

/** Disable, enable and stop-contact. */
function statusRoutes(app: App, service: PerRequest<CarriersService>) {
  const switches = [
    { action: 'disable', operationId: 'disableCarrier', body: disableBody, active: false },
    { action: 'enable', operationId: 'enableCarrier', body: enableBody, active: true },
  ] as const;
  for (const { action, operationId, body, active } of switches) {
    app.post(
      `/carriers/:carrier_id/${action}`,
      {
        config: { access: admins, idempotent: true },
        schema: {
          operationId,
          tags,
          summary: `${action === 'disable' ? 'Disable' : 'Enable'} a carrier (audited; a repeat changes nothing)`,
          params: carrierIdParams,
          body,
          response: { ...answers, ...errorResponses(401, 403, 404, 409, 422, 429) },
        },
      },
      async (request, reply) =>
        answer(
          request,
          reply,
          await service(request).setActive(scopeOf(request), request.params.carrier_id, active, request.body),
        ),
    );
  }

  app.post(
    '/carriers/:carrier_id/stop-contact',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'requestStopContact',
        tags,
        summary: 'Record that the carrier asked not to be contacted (stamped once)',
        description:
          'The same rule as a carrier asking by reply, on a call or by a spam complaint: the first request ' +
          'stamps `stop_contact_requested_at`, is audited and emits `carrier.updated`; every request withdraws ' +
          'the carrier\'s queued contacts (outreaches `failed` with `error_reason` "cancelled: ..." and ' +
          '`cancelled_at`), and the contact guard refuses new ones until an OWNER or ADMIN clears it.',
        params: carrierIdParams,
        response: { ...answers, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) =>
      answer(
        request,
        reply,
        await service(request).requestStopContact(scopeOf(request), request.params.carrier_id),
      ),
  );

  app.delete(
    '/carriers/:carrier_id/stop-contact',
    {
      config: { access: admins },
      schema: {
        operationId: 'clearStopContact',
        tags,
        summary: 'Clear a stop-contact request (audited)',
        params: carrierIdParams,
        response: { 200: carrierSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => service(request).clearStopContact(scopeOf(request), request.params.carrier_id),
  );
}

/** The audit log and the compliance checks of a carrier. */
function historyRoutes(app: App, service: PerRequest<CarriersService>) {
  app.get(
    '/carriers/:carrier_id/audit-log',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCarrierAuditLog',
        tags,
        summary: 'Audit rows of the carrier (disable, enable, stop-contact), oldest first',
        params: carrierIdParams,
        response: {
          200: z.object({ data: z.array(auditEntrySchema) }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      await service(request).view(scope, request.params.carrier_id);
      return { data: await service(request).audit(scope, request.params.carrier_id) };
    },
  );

  app.get(
    '/carriers/:carrier_id/compliance-checks',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listComplianceChecks',
        tags,
        summary: 'The carrier’s compliance checks, newest first (the latest 100)',
        params: carrierIdParams,
        response: {
          200: z.object({
            data: z.array(complianceCheckSchema),
          }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => ({
      data: await service(request).complianceChecks(scopeOf(request), request.params.carrier_id),
    }),
  );
}
