import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  createVoiceNumberBody,
  toVoiceNumber,
  voiceHealthSchema,
  voiceNumberIdParams,
  voiceNumberSchema,
} from './voice-numbers-schemas.js';
import type { VoiceNumbersService } from './voice-numbers-service.js';

const tags = ['voice'];
const managers = access.bearer('OWNER', 'ADMIN');

/** The organization's numbers on the voice platform, and the platform's health. */
export const voiceNumbersRoutes: FastifyPluginAsyncZod<{ numbers: PerRequest<VoiceNumbersService> }> = async (
  app,
  { numbers },
) => {
  app.get(
    '/voice/health',
    {
      config: { access: access.any },
      schema: {
        operationId: 'voiceHealth',
        tags,
        summary:
          'The voice platform in use: its server URL, credential id, auth scheme and numbers (no secrets)',
        response: { 200: voiceHealthSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => numbers(request).health(scopeOf(request)),
  );
  app.get(
    '/voice/numbers',
    {
      config: { access: managers },
      schema: {
        operationId: 'listVoiceNumbers',
        tags,
        summary: "The organization's own numbers on the voice platform",
        response: { 200: z.object({ data: z.array(voiceNumberSchema) }), ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => ({ data: (await numbers(request).list(scopeOf(request))).map(toVoiceNumber) }),
  );
  app.post(
    '/voice/numbers',
    {
      config: { access: managers, idempotent: true },
      schema: {
        operationId: 'createVoiceNumber',
        tags,
        summary:
          'Register a number: calls to it are answered for this organization; `outbound` makes it the caller ID',
        description:
          'A number already registered (by any organization) is 409 on `phone_number_id`. Without an outbound ' +
          "number, calls go out from the service's VAPI_PHONE_NUMBER_ID.",
        body: createVoiceNumberBody,
        response: { 201: voiceNumberSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(toVoiceNumber(await numbers(request).create(scopeOf(request), request.body))),
  );
  app.delete(
    '/voice/numbers/:voice_number_id',
    {
      config: { access: managers },
      schema: {
        operationId: 'deleteVoiceNumber',
        tags,
        summary: 'Forget a number (its calls are no longer answered for this organization)',
        params: voiceNumberIdParams,
        response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await numbers(request).remove(scopeOf(request), request.params.voice_number_id);
      return reply.status(204).send(null);
    },
  );
};
