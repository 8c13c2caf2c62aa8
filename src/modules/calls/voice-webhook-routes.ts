import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound, unauthenticated } from '../../domain/errors.js';
import { keepRawJsonBody } from '../../http/raw-json-body.js';
import { errorResponses, text } from '../../http/schemas.js';
import { VapiProvider } from '../../integrations/voice/vapi-provider.js';
import type { VoiceProvider } from '../../integrations/voice/voice-provider.js';
import type { CallsService } from './calls-service.js';

/**
 * Where the voice platform reaches us: server messages and tool calls, authenticated as Vapi's
 * server credential does it (checked on the raw body before anything is parsed or written).
 */
export const voiceWebhookRoutes: FastifyPluginAsync<{
  calls: CallsService;
  provider: VoiceProvider;
}> = async (app, { calls, provider }) => {
  keepRawJsonBody(app);

  const handle = async (request: FastifyRequest<{ Querystring: { organization_id?: string } }>) => {
    if (!(provider instanceof VapiProvider))
      throw notFound('Route', `${request.method} ${request.url.split('?')[0]}`);
    const failure = provider.authFailure(request.headers, request.rawBody ?? '');
    if (failure) throw unauthenticated(`The voice event is not authenticated: ${failure}`);
    const event = provider.parse(request.body, request.query.organization_id ?? null);
    if (!event) return { ok: true as const };
    return provider.respond(event, await calls.applyEvent(event));
  };
  const schema = {
    tags: ['integrations'],
    description:
      "Vapi's server messages (status-update, end-of-call-report, tool-calls, transfer-destination-request, " +
      'transfer-update, hang, assistant-request), authenticated as the Vapi credential does it (VAPI_SERVER_AUTH: an HMAC of ' +
      '`{timestamp}.{body}` in `x-signature` with `x-timestamp`, or a bearer token). A phone number whose ' +
      'inbound calls this service answers is routed to the organization that registered it (POST /voice/numbers), ' +
      'else to the one its server URL names: `?organization_id=org_...`.',
    querystring: z.object({
      organization_id: text(100)
        .optional()
        .meta({ description: 'The organization whose number was called (inbound calls)' }),
    }),
    response: {
      200: z.union([
        z.object({ ok: z.literal(true) }),
        z.object({
          results: z.array(
            z.object({
              name: z.string(),
              toolCallId: z.string(),
              result: z.string().optional(),
              error: z.string().optional(),
              metadata: z.record(z.string(), z.unknown()).optional(),
            }),
          ),
        }),
        z.object({
          destination: z.object({
            type: z.literal('number'),
            number: z.string(),
            transferPlan: z
              .object({
                mode: z.string(),
                fallbackPlan: z.object({ message: z.string(), endCallEnabled: z.boolean() }),
              })
              .optional(),
          }),
          message: z.object({ type: z.string(), content: z.string() }),
        }),
        z.object({ assistant: z.record(z.string(), z.unknown()) }),
        z.object({ error: z.string() }),
      ]),
      ...errorResponses(401, 404, 422),
    },
  };
  app.post(
    '/integrations/voice/events',
    {
      config: {
        access: { public: true, apiKey: false, roles: [] },
        rateLimit: false,
        unknownQuery: 'ignore',
      },
      schema: {
        ...schema,
        operationId: 'voiceEvents',
        summary: "The voice platform's server messages: call status, transcript, end-of-call report",
      },
    },
    handle,
  );
  app.post(
    '/integrations/voice/tools/:name',
    {
      config: {
        access: { public: true, apiKey: false, roles: [] },
        rateLimit: false,
        unknownQuery: 'ignore',
      },
      schema: {
        ...schema,
        operationId: 'voiceTools',
        summary: "The voice agent's tool calls (get_load_details, submit_offer, ...)",
        params: z.object({ name: z.string().max(100) }),
      },
    },
    handle,
  );
};
