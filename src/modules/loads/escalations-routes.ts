import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  escalationIdParams,
  escalationSchema,
  listLoadEscalationsQuery,
  respondToEscalationBody,
} from './escalations-schemas.js';
import type { EscalationsService } from './escalations-service.js';
import { loadIdParams } from './loads-schemas.js';

const tags = ['escalations'];

export const escalationsRoutes: FastifyPluginAsyncZod<{
  escalations: PerRequest<EscalationsService>;
}> = async (app, { escalations: service }) => {
  app.get(
    '/loads/:load_id/escalations',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listLoadEscalations',
        tags,
        summary: "The load's ACTIVE escalations, newest first",
        description:
          'What the agents asked a person about the load and is still waiting for an answer; `status` asks for ' +
          'other statuses instead (`RESPONDED`, `TIMED_OUT`, `CANCELLED`). Another organization’s load is 404.',
        params: loadIdParams,
        querystring: listLoadEscalationsQuery,
        response: { 200: z.array(escalationSchema), ...errorResponses(401, 403, 404, 422, 429) },
      },
    },
    async (request) =>
      service(request).forLoad(scopeOf(request), request.params.load_id, request.query.status),
  );

  app.post(
    '/escalations/:escalation_id/respond',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'respondToEscalation',
        tags,
        summary: 'Answer an ACTIVE escalation',
        description:
          'Records `response_message` as the answer: the escalation becomes `RESPONDED`, with `response_user_id` ' +
          '(null for an API key) and `responded_at`, and the response is written to the audit log. Deciding the ' +
          'offer an `offer_review` asks about is still PATCH /offers/{id} or its counter, which answer the ' +
          'escalation themselves. An escalation no longer ACTIVE is 409 `escalation_not_active`; another ' +
          'organization’s is 404.',
        params: escalationIdParams,
        body: respondToEscalationBody,
        response: { 200: escalationSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) =>
      service(request).respond(scopeOf(request), request.params.escalation_id, request.body.response_message),
  );
};
