import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { EmbeddedDatabase } from './db/embedded.js';
import type { HandleServices } from './handle-services.js';
import { access } from './http/access.js';
import { authentication, enforceAccess } from './http/authentication.js';
import { BodyWorkers } from './http/body-workers.js';
import { capConnectionsPerAddress, serverTimeouts } from './http/connections.js';
import { serveConsole } from './http/console.js';
import { cors } from './http/cors.js';
import {
  answerClientError,
  errorHandler,
  MAX_PATH_PARAM_LENGTH,
  renderFrameworkError,
} from './http/error-handler.js';
import { healthRoutes } from './http/health-routes.js';
import { idempotency } from './http/idempotency.js';
import { forbiddenJsonKey, jsonNestingExceeds, jsonTooDeep } from './http/json-depth.js';
import { swaggerOptions } from './http/openapi.js';
import type { PerRequest } from './http/per-request.js';
import { queryParams } from './http/query-params.js';
import { rateLimits } from './http/rate-limit.js';
import { RequestLogController } from './http/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { loggerOptions } from './logger.js';
import { agentRoutes } from './modules/agent/agent-routes.js';
import { agentResultsRoutes } from './modules/agent-results/index.js';
import { apiKeysRoutes } from './modules/api-keys/api-keys-routes.js';
import { auditRoutes } from './modules/audit/audit-routes.js';
import { authRoutes } from './modules/auth/auth-routes.js';
import { membersRoutes } from './modules/auth/members-routes.js';
import { callsRoutes } from './modules/calls/calls-routes.js';
import { voiceWebhookRoutes } from './modules/calls/voice-webhook-routes.js';
import { carriersRoutes } from './modules/carriers/carriers-routes.js';
import { vettingPolicyRoutes } from './modules/carriers/vetting-policy-routes.js';
import { loadViewsRoutes } from './modules/load-views/load-views-routes.js';
import { escalationsRoutes } from './modules/loads/escalations-routes.js';
import { loadsRoutes } from './modules/loads/loads-routes.js';
import { statusMappingRoutes } from './modules/loads/status-mappings-routes.js';
import { offersRoutes } from './modules/offers/offers-routes.js';
import { outreachesRoutes } from './modules/outreaches/outreaches-routes.js';
import { voiceNumbersRoutes } from './modules/voice-numbers/index.js';
import { voiceTemplatesRoutes } from './modules/voice-templates/index.js';
import { eventStreamRoutes } from './modules/webhooks/event-stream-routes.js';
import { webhooksRoutes } from './modules/webhooks/webhooks-routes.js';
import type { Services } from './services.js';
import { WorkerRunner } from './workers/worker.js';

export interface AppDeps {
  readonly config: Config;
  readonly database: Database;
  /** What `buildServices` built from the same config and database. */
  readonly services: Services;
  /** The supervised embedded cluster, when the service started one: /readyz reports its state. */
  readonly embedded?: Pick<EmbeddedDatabase, 'state'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The background loops of this app (started on ready, stopped on close). */
    workers: WorkerRunner;
  }
}

export interface BuildOptions {
  /** A logger to use as is; without one the app builds its own from the config. */
  logger?: FastifyBaseLogger;
}

export const API_PREFIX = '/api/v1';
const MiB = 1024 * 1024;
const REQUEST_ID = /^[\w.:-]{1,128}$/;

export type App = FastifyInstance;

/**
 * Builds the HTTP application without listening: external plugins first, then the shared HTTP
 * layer, then one plugin per module under /api/v1, each given the services it uses. The services'
 * listeners and the workers start when the app is ready and stop when it closes.
 */
export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<App> {
  const { config, services } = deps;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: loggerOptions(config.logLevel) }),
    bodyLimit: MiB,
    ...serverTimeouts(config.http),
    logController: new RequestLogController(),
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const sent = req.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Errors Fastify meets before a route or a hook runs, answered in the API's error body.
    frameworkErrors: renderFrameworkError,
    clientErrorHandler: answerClientError,
  }).withTypeProvider<ZodTypeProvider>();

  capConnectionsPerAddress(app.server, config.http.maxConnectionsPerIp, app.log);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  useJsonParser(app);

  // Stage 1: external plugins.
  await app.register(securityHeaders);
  await registerReference(app, config);

  // Stage 2: the shared HTTP layer.
  await app.register(errorHandler);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // onRequest order: answer CORS preflights (before any credential or limit), identify the caller,
  // count the request, then enforce the route's access.
  await app.register(cors, { cors: config.cors });
  await app.register(authentication, {
    prefix: API_PREFIX,
    tokens: services.tokens,
    credentials: services.credentials,
    memberships: (userId, sessionId) => services.sessions.memberships(userId, sessionId),
    tickets: services.eventStream,
  });
  await app.register(rateLimits, {
    prefix: API_PREFIX,
    limits: config.rateLimits,
    redisUrl: config.redisUrl,
    redisKeyPrefix: config.redisKeyPrefix,
    redisTimeouts: config.redisTimeouts,
    wallClock: services.wallClock,
  });
  app.addHook('onRequest', enforceAccess);
  await app.register(idempotency, { store: services.idempotency });
  await app.register(queryParams);

  // Stage 3: routes.
  const bodyWorkers = watchRequests(app, deps);
  await app.register(healthRoutes, {
    restarting: () => deps.embedded?.state() === 'restarting',
    ping: () => deps.database.pool.query('SELECT 1'),
    clock: services.clock,
    listeners: () => services.listeners,
  });
  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true }, config: { access: access.public } }, async () =>
        app.swagger(),
      );
      await registerModules(api, deps, bodyWorkers);
    },
    { prefix: API_PREFIX },
  );

  if (config.console.enabled) await app.register(serveConsole, { dir: config.console.dir });

  const runner = new WorkerRunner(config.workers.enabled ? services.workers : [], app.log);
  app.decorate('workers', runner);
  app.addHook('onReady', async () => {
    await services.start();
    runner.start();
  });
  // Open event streams never finish on their own: they end first, so the server can close.
  app.addHook('preClose', async () => {
    await services.eventStream.stop();
  });
  app.addHook('onClose', async () => {
    await runner.stop();
    await services.close();
  });
  return app;
}

/**
 * An empty body sent as JSON is "no body", so a route whose body is optional accepts it. Nesting
 * is bounded before parsing, so no later recursive step can overflow the stack; a `__proto__` key
 * is refused by name.
 */
function useJsonParser(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // parseAs 'string' hands a string; toString() keeps it as it is and satisfies the Buffer half of the type.
    const text = body.toString();
    if (text === '') return done(null, undefined);
    if (jsonNestingExceeds(text)) return done(jsonTooDeep(), undefined);
    parseJson(request, text, (err, parsed) =>
      err ? done(forbiddenJsonKey(text) ?? err, undefined) : done(null, parsed),
    );
  });
}

/** The OpenAPI document, and the interactive reference at /docs when it is enabled. */
async function registerReference(app: FastifyInstance, config: Config) {
  await app.register(swagger, swaggerOptions(config, API_PREFIX));
  if (config.docsEnabled) {
    // The reference page's own policy (scripts and styles from itself); no upgrade of requests, so
    // it works on http://localhost too.
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    });
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * What the server learns from the requests it serves: whether others wait while a large body
 * arrives (body workers), and which credentials just wrote (their reads stay on the primary until
 * a replica has the write).
 */
function watchRequests(app: FastifyInstance, { config, database }: AppDeps): BodyWorkers {
  const bodyWorkers = new BodyWorkers({ ...config.bodyWorkers, log: app.log });
  bodyWorkers.track(app);
  app.addHook('onClose', () => bodyWorkers.close());
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.principal && !SAFE_METHODS.has(request.method)) database.reads.noteWrite(request.principal);
    return payload;
  });
  return bodyWorkers;
}

/**
 * The services a request uses: over its own transaction when it holds one (a keyed write), built
 * once per request; else the ones over the pool.
 */
function perRequest(s: Services) {
  const onTransaction = new WeakMap<FastifyRequest, HandleServices>();
  const of = (request: FastifyRequest): HandleServices => {
    const held = request.idempotencyTx;
    if (!held) return s;
    let services = onTransaction.get(request);
    if (!services) {
      services = s.on(held.tx, held.commitQueue.afterCommit);
      onTransaction.set(request, services);
    }
    return services;
  };
  return <K extends keyof HandleServices>(name: K): PerRequest<HandleServices[K]> =>
    (request) =>
      of(request)[name];
}

/** One plugin per module, each given the services it uses and nothing else. */
async function registerModules(
  api: FastifyInstance,
  { services: s, database, config }: AppDeps,
  bodyWorkers: BodyWorkers,
) {
  const per = perRequest(s);
  await api.register(authRoutes, {
    auth: s.auth,
    sessions: s.sessions,
    refreshPath: `${API_PREFIX}/auth/refresh`,
  });
  await api.register(membersRoutes, { members: per('members'), invitations: per('invitations') });
  await api.register(apiKeysRoutes, { apiKeys: per('apiKeys') });
  await api.register(loadsRoutes, { loads: per('loads'), bodyWorkers });
  await api.register(statusMappingRoutes, { mappings: s.statusMappings });
  await api.register(escalationsRoutes, { escalations: per('escalations') });
  await api.register(loadViewsRoutes, { loadViews: per('loadViews') });
  await api.register(carriersRoutes, { carriers: per('carriers'), bodyWorkers });
  await api.register(vettingPolicyRoutes, { compliance: s.compliance, db: database.db });
  await api.register(callsRoutes, { calls: per('calls'), elp: per('elp') });
  await api.register(outreachesRoutes, { outreaches: per('outreaches') });
  await api.register(agentRoutes, {
    agent: s.agent,
    db: database.db,
    channelSettings: config.channels,
  });
  await api.register(agentResultsRoutes, { results: s.agentResults });
  await api.register(voiceTemplatesRoutes, {
    templates: per('voiceTemplates'),
    syncBuiltins: () => s.voiceTemplates.syncBuiltins(),
  });
  await api.register(voiceNumbersRoutes, { numbers: per('voiceNumbers') });
  await api.register(voiceWebhookRoutes, { calls: s.calls, provider: s.voiceProvider });
  await api.register(offersRoutes, { offers: per('offers'), counters: per('offerCounters') });
  await api.register(webhooksRoutes, {
    webhooks: per('webhooks'),
    eventTypes: s.webhooks.eventTypeNames(),
  });
  await api.register(eventStreamRoutes, {
    hub: s.eventStream,
    apiPrefix: API_PREFIX,
    eventTypes: s.webhooks.eventTypeNames(),
  });
  await api.register(auditRoutes, { audit: s.audit });
}
