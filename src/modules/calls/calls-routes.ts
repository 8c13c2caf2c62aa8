import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { notFound, unauthenticated } from '../../http/errors.js';
import { pageOf } from '../../http/pagination.js';
import { keepRawJsonBody } from '../../http/raw-json-body.js';
import { errorResponses, text } from '../../http/schemas.js';
import { channelsFrom } from '../../integrations/channels.js';
import { voiceProviderFrom } from '../../integrations/voice/index.js';
import { VapiProvider } from '../../integrations/voice/vapi-provider.js';
import { Poller } from '../../workers/poller.js';
import { agentRoutes } from '../agent/agent-routes.js';
import { AgentService } from '../agent/agent-service.js';
import { agentOfferPolicy } from '../agent/agent-settings.js';
import { elpIdParams, elpTestSchema, listElpQuery, startElpBody } from '../elp/elp-schemas.js';
import { ElpService } from '../elp/elp-service.js';
import { outreachesRoutes } from '../outreaches/outreaches-routes.js';
import { VoiceTemplatesService, voiceTemplatesRoutes } from '../voice-templates/index.js';
import {
  callDetailSchema,
  callIdParams,
  callSchema,
  createCallBody,
  endCallSchema,
  joinResultSchema,
  listCallsQuery,
  recordingSchema,
  toCall,
} from './calls-schemas.js';
import { CallsService } from './calls-service.js';
import { carrierEnrollment } from './carrier-enrollment.js';

/** Calls, ELP tests and the voice platform's webhooks share one voice provider. */
export const callsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { database, config } = app.deps;
  const provider = voiceProviderFrom(config);
  const calls = CallsService.build(
    database.db,
    provider,
    app.log,
    agentOfferPolicy(database.db),
    carrierEnrollment(database.db, config.compliance),
  );
  const elp = new ElpService(database.db, calls);
  app.addHook('onClose', async () => provider.close());
  if (config.workers.enabled) {
    const scheduler = new Poller('scheduled-calls', () => calls.placeDue(), config.workers.pollMs, app.log);
    app.addHook('onReady', async () => scheduler.start());
    app.addHook('onClose', async () => scheduler.stop());
  }

  app.post(
    '/calls',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'createCall',
        tags: ['calls'],
        summary: 'Start an outbound call (created PENDING and handed to the voice platform)',
        description:
          'A number belonging to a carrier that asked not to be contacted gives 409 `stop_contact_requested`. ' +
          'A call about a load to a known carrier opens an outreach (`modality` call). `call_type` ELP also ' +
          'opens an ELP test. The call runs the voice template `template_id` names (it must be visible to the ' +
          'organization and fit `call_type`: LOAD_BOOKING a load_booking template, ELP an elp one; else 422 on ' +
          "`template_id`), else the organization's default for the purpose, else the built-in one; " +
          '`voice_agent_id` runs your own Vapi assistant with the variables in `assistantOverrides.variableValues`. ' +
          'With the simulated platform, `template_variables.simulate_outcome` (completed, voicemail, no_answer, ' +
          'failed) forces the outcome.',
        body: createCallBody,
        response: { 201: callSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(toCall(await calls.create(scopeOf(request), request.body))),
  );

  app.get(
    '/calls',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listCalls',
        tags: ['calls'],
        summary: 'List calls, newest first',
        querystring: listCallsQuery,
        response: { 200: pageOf(callSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => calls.list(scopeOf(request), request.query),
  );

  app.get(
    '/calls/:call_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCall',
        tags: ['calls'],
        summary: 'One call, with its transcript',
        params: callIdParams,
        response: { 200: callDetailSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls.detail(scopeOf(request), request.params.call_id),
  );

  app.get(
    '/calls/:call_id/recording',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getCallRecording',
        tags: ['calls'],
        summary: 'The recording of a call, when the voice platform kept one',
        params: callIdParams,
        response: { 200: recordingSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls.recording(scopeOf(request), request.params.call_id),
  );

  app.post(
    '/calls/:call_id/join',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'joinCall',
        tags: ['calls'],
        summary: 'Take over a live call by a cold transfer to your own phone',
        description:
          'Only a call AGENT_ASSIGNED or IN_PROGRESS (else 409 `call_not_in_progress`). The call goes to the ' +
          "signed-in user's phone, or for an API key its creator's; none on file gives 422 `caller_phone_missing`.",
        params: callIdParams,
        response: { 200: joinResultSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) => calls.join(scopeOf(request), request.params.call_id),
  );

  app.post(
    '/calls/:call_id/end',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'endCall',
        tags: ['calls'],
        summary: 'Hang up (an ended call is returned unchanged)',
        params: callIdParams,
        response: { 200: endCallSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => calls.end(scopeOf(request), request.params.call_id),
  );

  app.post(
    '/elp/tests',
    {
      config: { access: access.any, idempotent: true },
      schema: {
        operationId: 'startElpTest',
        tags: ['elp'],
        summary: 'Start a driver English-proficiency test by phone',
        body: startElpBody,
        response: { 201: elpTestSchema, ...errorResponses(401, 403, 409, 422, 429) },
      },
    },
    async (request, reply) => reply.status(201).send(await elp.start(scopeOf(request), request.body)),
  );

  app.get(
    '/elp/tests',
    {
      config: { access: access.any },
      schema: {
        operationId: 'listElpTests',
        tags: ['elp'],
        summary: 'List ELP tests, newest first',
        querystring: listElpQuery,
        response: { 200: pageOf(elpTestSchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => elp.list(scopeOf(request), request.query),
  );

  app.get(
    '/elp/tests/:elp_test_id',
    {
      config: { access: access.any },
      schema: {
        operationId: 'getElpTest',
        tags: ['elp'],
        summary: 'One ELP test, with its scores and call',
        params: elpIdParams,
        response: { 200: elpTestSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => elp.get(scopeOf(request), request.params.elp_test_id),
  );

  const channels = channelsFrom(config);
  const agent = new AgentService(
    database.db,
    calls,
    {
      ...channels,
      emailFrom: config.channels.email.from,
      replyDomain: config.channels.email.replyDomain,
      whatsappTemplate: {
        name: config.channels.whatsapp.templateName,
        language: config.channels.whatsapp.templateLanguage,
      },
    },
    app.log,
    config.agent.batchSize,
    config.agent.rankingTtlMs,
  );
  await app.register(outreachesRoutes, { calls, agent });
  await app.register(agentRoutes, { agent, channels });
  await app.register(voiceTemplatesRoutes, { templates: new VoiceTemplatesService(database.db) });
  await app.register(async (hooks) => voiceWebhooks(hooks, provider, calls));
};

/**
 * Where the voice platform reaches us: server messages and tool calls, authenticated as Vapi's
 * server credential does it (checked on the raw body before anything is parsed or written).
 */
async function voiceWebhooks(
  app: FastifyInstance,
  provider: ReturnType<typeof voiceProviderFrom>,
  calls: CallsService,
) {
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
      'assistant-request), authenticated as the Vapi credential does it (VAPI_SERVER_AUTH: an HMAC of ' +
      '`{timestamp}.{body}` in `x-signature` with `x-timestamp`, or a bearer token). A phone number whose ' +
      'inbound calls this service answers names its organization: `?organization_id=org_...`.',
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
          destination: z.object({ type: z.literal('number'), number: z.string() }),
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
      config: { access: { public: true, apiKey: false, roles: [] }, rateLimit: false },
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
      config: { access: { public: true, apiKey: false, roles: [] }, rateLimit: false },
      schema: {
        ...schema,
        operationId: 'voiceTools',
        summary: "The voice agent's tool calls (get_load_details, submit_offer, ...)",
        params: z.object({ name: z.string().max(100) }),
      },
    },
    handle,
  );
}
