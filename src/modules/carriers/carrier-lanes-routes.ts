import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import { auditEntrySchema } from '../audit/index.js';
import {
  carrierIdParams,
  disableBody,
  disableForLoadBody,
  enableBody,
  lanePreferenceInput,
  lanePreferencePatchBody,
  lanePreferenceSchema,
  listLanePreferencesQuery,
  preferenceParams,
} from './carriers-schemas.js';
import type { CarriersService } from './carriers-service.js';

// The carriers routes' lane preferences, registered by carriersRoutes.

const tags = ['carriers'];
const admins = access.bearer('OWNER', 'ADMIN');

type App = Parameters<FastifyPluginAsyncZod>[0];

/** List and create lane preferences; disable a carrier for a load's lane. */
export function lanePreferenceRoutes(app: App, service: PerRequest<CarriersService>) {
  app.get(
    '/carriers/:carrier_id/lane-preferences',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLanePreferences',
        tags,
        summary: "A carrier's lane preferences",
        params: carrierIdParams,
        querystring: listLanePreferencesQuery,
        response: { 200: pageOf(lanePreferenceSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) =>
      service(request).lanes.listLanePreferences(scopeOf(request), request.params.carrier_id, request.query),
  );

  app.post(
    '/carriers/:carrier_id/lane-preferences',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createLanePreference',
        tags,
        summary: 'Give the carrier a preference on a lane (the lane is created or reused)',
        params: carrierIdParams,
        body: lanePreferenceInput,
        response: { 201: lanePreferenceSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await service(request).lanes.createLanePreference(
            scopeOf(request),
            request.params.carrier_id,
            request.body,
          ),
        ),
  );

  app.post(
    '/carriers/:carrier_id/lane-preferences/disable-for-load',
    {
      config: { access: admins, idempotent: true },
      schema: {
        operationId: 'disableCarrierForLoad',
        tags,
        summary: 'Stop working this carrier on a load’s lane (an admin_disabled lane preference; audited)',
        description:
          'The lane is the load’s first pickup to last drop-off (cities and states) with its equipment. ' +
          '201 with the new preference; 200 when the carrier already held one on that lane (it turns ' +
          '`admin_disabled`). The contact guard then refuses this carrier for loads on the lane.',
        params: carrierIdParams,
        body: disableForLoadBody,
        response: {
          200: lanePreferenceSchema.describe('An existing preference on the lane was disabled'),
          201: lanePreferenceSchema.describe('Created'),
          ...errorResponses(401, 403, 404, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const { created, preference } = await service(request).lanes.disableForLoad(
        scopeOf(request),
        request.params.carrier_id,
        request.body,
      );
      return reply.status(created ? 201 : 200).send(preference);
    },
  );
}

/** A lane preference's audit log, restrict and unrestrict. */
export function lanePreferenceAdminRoutes(app: App, service: PerRequest<CarriersService>) {
  app.get(
    '/carriers/:carrier_id/lane-preferences/:preference_id/audit-log',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getLanePreferenceAuditLog',
        tags,
        summary: 'The audit trail of one lane preference, oldest first',
        params: preferenceParams,
        response: {
          200: z.object({ data: z.array(auditEntrySchema) }),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { carrier_id, preference_id } = request.params;
      return {
        data: await service(request).lanes.lanePreferenceAudit(scopeOf(request), carrier_id, preference_id),
      };
    },
  );

  app.patch(
    '/carriers/:carrier_id/lane-preferences/:preference_id',
    {
      config: { access: admins, idempotent: true },
      schema: {
        operationId: 'updateLanePreference',
        tags,
        summary: "Switch a lane preference's is_active (audited)",
        description:
          'The carrier is worked on the lane only while `is_active` is true; its preference type and ' +
          'any restriction stay as they are. A change writes an audit row (with the optional reason) ' +
          'and sends lane_preference.updated; sending the current value changes nothing.',
        params: preferenceParams,
        body: lanePreferencePatchBody,
        response: { 200: lanePreferenceSchema, ...errorResponses(400, 401, 403, 404, 422, 429) },
      },
    },
    async (request) =>
      service(request).lanes.setActive(
        scopeOf(request),
        request.params.carrier_id,
        request.params.preference_id,
        request.body,
      ),
  );

  for (const [action, restricted] of [
    ['restrict', true],
    ['unrestrict', false],
  ] as const) {
    app.post(
      `/carriers/:carrier_id/lane-preferences/:preference_id/${action}`,
      {
        config: { access: admins, idempotent: true },
        schema: {
          operationId: `${action}LanePreference`,
          tags,
          summary: restricted
            ? 'Restrict the carrier on the lane (do-not-use; audited)'
            : 'Lift a lane restriction (audited)',
          params: preferenceParams,
          body: restricted ? disableBody : enableBody,
          response: { 200: lanePreferenceSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
        },
      },
      async (request) =>
        service(request).lanes.setRestricted(
          scopeOf(request),
          request.params.carrier_id,
          request.params.preference_id,
          restricted,
          request.body,
        ),
    );
  }
}
