import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorResponses } from '../../http/schemas.js';
import {
  createVoiceTemplateBody,
  listVoiceTemplatesQuery,
  updateVoiceTemplateBody,
  voiceTemplateIdParams,
  voiceTemplateSchema,
  voiceVariablesSchema,
} from './voice-templates-schemas.js';
import type { VoiceTemplatesService } from './voice-templates-service.js';
import { VOICE_VARIABLES } from './voice-variables.js';

const tags = ['voice-templates'];
const writers = access.apiKeyOrBearer('OWNER', 'ADMIN');
const placeholders =
  'Placeholders are `{{name}}` with a name from GET /voice-templates/variables ' +
  `(${Object.keys(VOICE_VARIABLES).join(', ')}); any other is a 422 naming it. A variable without a ` +
  'value is rendered as "not given". The customer rate, margin, max buy rate and stop notes are never variables.';

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Call scripts: the built-in one per purpose, and the organization's own. */
export const voiceTemplatesRoutes: FastifyPluginAsyncZod<{
  templates: PerRequest<VoiceTemplatesService>;
  /** Writes the built-in templates (the service over the pool). */
  syncBuiltins: () => Promise<void>;
}> = async (app, { templates, syncBuiltins }) => {
  // A database that does not answer at start must not stop the server: the built-ins are written
  // again on the first call that needs one (VoiceTemplatesService.defaultFor).
  app.addHook('onReady', async () => {
    await syncBuiltins().catch((err) => app.log.warn({ err }, 'voice templates: built-ins not synced'));
  });

  collectionRoutes(app, templates);
  templateRoutes(app, templates);
};

/** List templates and variables; create a template. */
function collectionRoutes(app: App, templates: PerRequest<VoiceTemplatesService>) {
  app.get(
    '/voice-templates',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listVoiceTemplates',
        tags,
        summary: "Call scripts visible to the organization: the built-in ones and the organization's own",
        querystring: listVoiceTemplatesQuery,
        response: { 200: pageOf(voiceTemplateSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => templates(request).list(scopeOf(request), request.query),
  );

  app.get(
    '/voice-templates/variables',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listVoiceTemplateVariables',
        tags,
        summary: 'The variables a call script may use as {{placeholders}}',
        response: { 200: voiceVariablesSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => templates(request).variables(),
  );

  app.post(
    '/voice-templates',
    {
      config: { access: writers, idempotent: true },
      schema: {
        operationId: 'createVoiceTemplate',
        tags,
        summary: 'Create a call script; `is_default` makes it the organization default for its purpose',
        description: placeholders,
        body: createVoiceTemplateBody,
        response: { 201: voiceTemplateSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await templates(request).create(scopeOf(request), request.body)),
  );
}

/** Read, update and delete one template. */
function templateRoutes(app: App, templates: PerRequest<VoiceTemplatesService>) {
  app.get(
    '/voice-templates/:template_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getVoiceTemplate',
        tags,
        summary: "One call script, built-in or the organization's own",
        params: voiceTemplateIdParams,
        response: { 200: voiceTemplateSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => templates(request).get(scopeOf(request), request.params.template_id),
  );

  app.patch(
    '/voice-templates/:template_id',
    {
      config: { access: writers },
      schema: {
        operationId: 'updateVoiceTemplate',
        tags,
        summary: "Change one of the organization's call scripts (built-in ones are read-only: 403)",
        description: placeholders,
        params: voiceTemplateIdParams,
        body: updateVoiceTemplateBody,
        response: { 200: voiceTemplateSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => templates(request).update(scopeOf(request), request.params.template_id, request.body),
  );

  app.delete(
    '/voice-templates/:template_id',
    {
      config: { access: writers },
      schema: {
        operationId: 'deleteVoiceTemplate',
        tags,
        summary:
          "Delete one of the organization's call scripts (built-in ones are read-only: 403); calls that named it keep their id",
        params: voiceTemplateIdParams,
        response: { 204: z.null().describe('Deleted'), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await templates(request).delete(scopeOf(request), request.params.template_id);
      return reply.status(204).send(null);
    },
  );
}
