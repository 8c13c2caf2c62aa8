import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { notFound, unauthenticated } from '../../http/errors.js';
import { pageOf } from '../../http/pagination.js';
import { keepRawJsonBody } from '../../http/raw-json-body.js';
import { errorResponses } from '../../http/schemas.js';
import { channelsFrom } from '../../integrations/channels.js';
import { voiceProviderFrom } from '../../integrations/voice/index.js';
import { VapiProvider } from '../../integrations/voice/vapi-provider.js';
import { Poller } from '../../workers/poller.js';
import { agentRoutes } from '../agent/agent-routes.js';
import { AgentService } from '../agent/agent-service.js';
import { elpIdParams, elpTestSchema, listElpQuery, startElpBody } from '../elp/elp-schemas.js';
import { ElpService } from '../elp/elp-service.js';
import { LoadsService } from '../loads/loads-service.js';
import { outreachesRoutes } from '../outreaches/outreaches-routes.js';
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

/** Calls, ELP tests and the voice platform's webhooks share one voice provider. */
export const callsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { database, config } = app.deps;
  const provider = voiceProviderFrom(config);
  const calls = new CallsService(database.db, provider, new LoadsService(database.db), app.log);
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
          'opens an ELP test. With the simulated platform, `template_variables.simulate_outcome` (completed, ' +
          'voicemail, no_answer, failed) forces the outcome.',
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
  await app.register(async (hooks) => voiceWebhooks(hooks, provider, calls));
};

/**
 * Where the voice platform reaches us: server messages and tool calls, authenticated by the
 * platform's signature over the raw body (checked before anything is parsed or written).
 */
async function voiceWebhooks(
  app: FastifyInstance,
  provider: ReturnType<typeof voiceProviderFrom>,
  calls: CallsService,
) {
  keepRawJsonBody(app);

  const handle = async (request: FastifyRequest) => {
    if (!(provider instanceof VapiProvider)) throw notFound('Route', `${request.method} ${request.url}`);
    const signature = request.headers['x-vapi-signature'];
    if (!provider.verify(request.rawBody ?? '', typeof signature === 'string' ? signature : undefined)) {
      throw unauthenticated('The voice event signature is missing or wrong');
    }
    const results = [];
    for (const event of provider.parse(request.body)) {
      const out = await calls.applyEvent(event);
      if (out) results.push(...out.map((r) => ({ toolCallId: r.toolCallId, result: r.result })));
    }
    return results.length ? { results } : { ok: true };
  };
  const schema = {
    tags: ['integrations'],
    description: 'Signed with `x-vapi-signature` (HMAC-SHA256 of the body, hex, with VAPI_WEBHOOK_SECRET).',
    response: {
      200: z.union([
        z.object({ ok: z.literal(true) }),
        z.object({ results: z.array(z.object({ toolCallId: z.string(), result: z.unknown() })) }),
      ]),
      ...errorResponses(401, 404, 422),
    },
  };
  app.post(
    '/integrations/voice/events',
    {
      config: { access: { public: true, apiKey: false, roles: [] }, rateLimit: false },
      schema: { ...schema, operationId: 'voiceEvents' },
    },
    handle,
  );
  app.post(
    '/integrations/voice/tools/:name',
    {
      config: { access: { public: true, apiKey: false, roles: [] }, rateLimit: false },
      schema: { ...schema, operationId: 'voiceTools', params: z.object({ name: z.string().max(100) }) },
    },
    handle,
  );
}
