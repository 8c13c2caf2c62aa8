// The composition root: every provider and worker, and the services over the pool, built once from
// the config and database (the services over a handle are put together in handle-services.ts).
// Size: the one place where each shared part's collaborators are visible; split, the wiring would hide.

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { AfterCommit } from './db/after-commit.js';
import type { Database, Db } from './db/client.js';
import { ChannelListener } from './db/notifications.js';
import { registerUniqueConstraints } from './db/pg-errors.js';
import { SecretBox } from './db/secret-box.js';
import { newId } from './domain/ids.js';
import {
  coreOn,
  type HandleServices,
  poolHandle,
  type SharedParts,
  servicesOn,
  transactionHandle,
} from './handle-services.js';
import { principalOfGrant } from './http/authentication.js';
import { IdempotencyStore } from './http/idempotency.js';
import { type Channels, channelsFrom, simulatedMarketFrom } from './integrations/channels.js';
import { complianceProviderFrom } from './integrations/compliance/index.js';
import type { SimulatedMarket } from './integrations/simulation/market.js';
import { voiceProviderFrom } from './integrations/voice/index.js';
import type { VoiceProvider } from './integrations/voice/voice-provider.js';
import { type Clock, realClock } from './lib/clock.js';
import { machineWallClock, type WallClock } from './lib/wall-clock.js';
import { AgentService } from './modules/agent/agent-service.js';
import { marketDirectory } from './modules/agent/market-directory.js';
import { AgentResultsService } from './modules/agent-results/index.js';
import { API_KEY_CHANGES, ApiKeyCredentials } from './modules/api-keys/api-key-credentials.js';
import { apiKeyUniqueConstraints } from './modules/api-keys/api-keys-service.js';
import { AuditLogService } from './modules/audit/audit-service.js';
import { AuthService, userUniqueConstraints } from './modules/auth/auth-service.js';
import { invitationUniqueConstraints } from './modules/auth/invitations-service.js';
import { SessionsService } from './modules/auth/sessions-service.js';
import { TokenService } from './modules/auth/tokens.js';
import type { CodeSender } from './modules/calls/caller-identity.js';
import type { CallsService } from './modules/calls/calls-service.js';
import type { StopContactRequests } from './modules/carriers/stop-contact.js';
import { loadUniqueConstraints } from './modules/loads/loads-service.js';
import type { OfferIntake } from './modules/offers/offer-intake.js';
import { purgeReceipts } from './modules/outreaches/index.js';
import { voiceNumberUniqueConstraints } from './modules/voice-numbers/voice-numbers-tables.js';
import { EventStreamHub } from './modules/webhooks/index.js';
import { ComplianceMonitor } from './workers/compliance-monitor.js';
import { ComplianceWorker } from './workers/compliance-worker.js';
import { OutreachSweeper } from './workers/outreach-sweeper.js';
import { WebhooksWorker } from './workers/webhooks-worker.js';
import type { Worker } from './workers/worker.js';

export interface ServiceDeps {
  readonly config: Config;
  readonly database: Database;
  readonly log: FastifyBaseLogger;
  /** The voice platform to use instead of the configured one (a benchmark's simulated market). */
  readonly voiceProvider?: VoiceProvider;
  /**
   * The product clock (db/product-clock.ts): what time it is for every record of the freight world
   * and for the agent. The machine's clock unless a simulation or a test sets another.
   */
  readonly clock?: Clock;
  /**
   * The wall clock (lib/wall-clock.ts): what credentials, invitations, webhook retries and rate
   * limits are timed by, whatever the product clock. The machine's unless a test sets another.
   */
  readonly wallClock?: WallClock;
}

/** Every service of the application, built once and shared by the routes, the CLI and the workers. */
export interface Services extends HandleServices {
  readonly tokens: TokenService;
  readonly sessions: SessionsService;
  readonly credentials: ApiKeyCredentials;
  readonly idempotency: IdempotencyStore;
  readonly auth: AuthService;
  readonly voiceProvider: VoiceProvider;
  /** The simulated market the in-process providers play (null when every channel is real). */
  readonly market: SimulatedMarket | null;
  /** The product clock every service runs on. */
  readonly clock: Clock;
  /** The wall clock credentials, retries and rate limits are timed by. */
  readonly wallClock: WallClock;
  readonly channels: Channels;
  readonly agent: AgentService;
  readonly agentResults: AgentResultsService;
  /** The live event streams this instance holds (GET /events/stream). */
  readonly eventStream: EventStreamHub;
  /** The notification listeners this instance trusts (readiness reports them). */
  readonly listeners: readonly ChannelListener[];
  readonly audit: AuditLogService;
  /**
   * The services over the records built over a transaction `tx`: a keyed request's routes use
   * these, and what must wait for its commit goes to `afterCommit`.
   */
  on(tx: Db, afterCommit: AfterCommit): HandleServices;
  /**
   * The background work of the service (the agent's only while AGENT_ENABLED). The app runs them
   * unless WORKERS_ENABLED=false; a test or a CLI calls a worker's `drain` itself.
   */
  readonly workers: readonly Worker[];
  /**
   * Starts what listens in the background (API-key revocations, new events for the streams); the
   * workers are started apart.
   */
  start(): Promise<void>;
  /** Stops the listeners and closes the providers' connections and timers. */
  close(): Promise<void>;
}

const IDEMPOTENCY_PURGE_MS = 10 * 60_000;
const EVENT_STREAM_PURGE_MS = 60_000;
const SESSIONS_PURGE_MS = 60 * 60_000;

/**
 * The composition root: builds the configured providers, every service and the workers from the
 * configuration, one database and one logger. The server, the admin CLI, the benchmarks and the
 * test helpers all build the application through it, so each service exists once per process
 * and its collaborators are visible here rather than inside route plugins. The services over the
 * records are built over the pool here, and over a keyed request's transaction by `on`.
 */
export function buildServices({ config, database, log, ...deps }: ServiceDeps): Services {
  const { db } = database;
  const { clock = realClock, wallClock = machineWallClock } = deps;
  registerModuleConstraints();
  const { tokens, credentials, keyChanges } = credentialsOf(config, database, log, wallClock);
  const sessions = new SessionsService(db, tokens, config.sessions.refreshTtlSeconds, wallClock);
  const registry = complianceProviderFrom(config.compliance, wallClock);
  const { market, voiceProvider, channels } = providersOf(
    config,
    { clock, wallClock },
    db,
    deps.voiceProvider,
  );
  const shared: SharedParts = {
    ...{ config, log, clock, wallClock, registry, voiceProvider, channels, sessions, credentials },
    sendCode: codeSenderOf(channels, config),
  };
  const pool = poolHandle(db, database.reads);
  const core = coreOn(pool, shared);
  // The platform's events about a call (status, transcript, tool calls) come to the pool's service.
  voiceProvider.attach((event) => core.calls.applyEvent(event));
  const rules = { offers: core.offerIntake, stopContact: core.stopContact };
  const agent = agentOf(config, database, core.calls, { ...channels, market }, rules, log, clock);
  const pooled = servicesOn(pool, shared, agent, core);
  const eventStream = eventStreamOf(config, database, credentials, sessions, log);

  const services = {
    ...pooled,
    tokens,
    sessions,
    credentials,
    idempotency: idempotencyStoreOf(config, db),
    auth: new AuthService(db, sessions),
    voiceProvider,
    market,
    clock,
    wallClock,
    channels,
    agent,
    agentResults: new AgentResultsService(db, database.pool, clock, database.reads),
    eventStream,
    audit: new AuditLogService(db, database.reads),
    listeners: [keyChanges, eventStream.listener],
    on(tx: Db, afterCommit: AfterCommit) {
      const handle = transactionHandle(tx, afterCommit);
      return servicesOn(handle, shared, agent, coreOn(handle, shared, core.calls));
    },
  };
  return {
    ...services,
    workers: workersOf(config, database, log, services),
    async start() {
      const warning = await core.compliance.readiness();
      if (warning) log.warn({ registryFile: config.compliance.registryFile }, warning);
      await keyChanges.start();
      await eventStream.start();
    },
    async close() {
      await voiceProvider.close(); // first: it ends its live calls, so the market's carriers in them stop
      await market?.close();
      await eventStream.stop();
      await keyChanges.stop();
      await channels.email.close();
      await channels.whatsapp.close();
    },
  };
}

/**
 * The carrier-facing providers: the configured ones, else the in-process simulations, all playing
 * one simulated market on the product clock (integrations/simulation).
 */
function providersOf(
  config: Config,
  { clock, wallClock }: { clock: Clock; wallClock: WallClock },
  db: Db,
  voice: VoiceProvider | undefined,
) {
  const market = simulatedMarketFrom(config, clock, marketDirectory(db));
  return {
    market,
    voiceProvider: voice ?? voiceProviderFrom(config, clock, market, wallClock),
    channels: channelsFrom(config, market),
  };
}

/** Every module's unique constraints whose violation is a 409 on a named field (db/pg-errors.ts). */
function registerModuleConstraints() {
  registerUniqueConstraints([
    ...userUniqueConstraints,
    ...invitationUniqueConstraints,
    ...apiKeyUniqueConstraints,
    ...loadUniqueConstraints,
    ...voiceNumberUniqueConstraints,
  ]);
}

const idempotencyStoreOf = (config: Config, db: Db) =>
  new IdempotencyStore(
    db,
    new SecretBox(config.secretsEncryptionKey, 'idempotency response bodies'),
    config.idempotencyTtlSeconds,
    config.idempotencyLockSeconds,
  );

/** The live streams of this instance; a stream lives while the credential that opened it does. */
function eventStreamOf(
  config: Config,
  database: Database,
  credentials: ApiKeyCredentials,
  sessions: SessionsService,
  log: FastifyBaseLogger,
) {
  const ownerOf = principalOfGrant(credentials, (userId, sessionId) =>
    sessions.memberships(userId, sessionId),
  );
  return new EventStreamHub(
    database,
    config.eventStream,
    async (owner) => (await ownerOf(owner)) !== null,
    log,
  );
}

/** Who signs tokens and checks API keys; keys revoked on any instance are forgotten through keyChanges. */
function credentialsOf(config: Config, database: Database, log: FastifyBaseLogger, wallClock: WallClock) {
  const tokens = new TokenService(config.jwt, wallClock);
  const credentials = new ApiKeyCredentials(database.db, wallClock);
  const keyChanges = new ChannelListener(
    database,
    API_KEY_CHANGES,
    { message: (id) => credentials.forget(id), connected: () => credentials.forgetAll() },
    log,
  );
  credentials.listenWith(() => keyChanges.listening);
  return { tokens, credentials, keyChanges };
}

/** The load-working agent on the configured channels. */
function agentOf(
  config: Config,
  database: Database,
  calls: CallsService,
  channels: Channels & { market: SimulatedMarket | null },
  rules: { offers: OfferIntake; stopContact: StopContactRequests },
  log: FastifyBaseLogger,
  clock: Clock,
): AgentService {
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
    rules,
    log,
    clock,
    config.agent.batchSize,
    config.agent.rankingTtlMs,
    config.agent.planningLanes,
  );
  // The simulated carriers answer through the handlers of the webhooks real answers come to.
  channels.market?.attach({
    email: (payload) => agent.onPostmarkPayload(payload),
    whatsapp: (payload) => agent.onWhatsAppPayload(payload),
  });
  return agent;
}

/** Every loop of the service, each one round at a time (see WorkerRunner). */
function workersOf(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
  services: Pick<
    Services,
    | 'idempotency'
    | 'sessions'
    | 'compliance'
    | 'calls'
    | 'agent'
    | 'eventStream'
    | 'clock'
    | 'wallClock'
    | 'escalations'
  >,
): Worker[] {
  const { db } = database;
  const { pollMs } = config.workers;
  // Work due on the product clock is looked for more often when that clock runs fast.
  const paced = (ms: number) =>
    services.clock.kind === 'simulated' ? Math.max(pollMs, Math.round(ms / services.clock.speed)) : ms;
  const workers: Worker[] = [
    new WebhooksWorker(db, config, log, services.wallClock),
    new ComplianceWorker(db, services.compliance, pollMs, log),
    new ComplianceMonitor(
      db,
      services.compliance,
      config.compliance.monitorIntervalHours,
      paced(60_000),
      log,
    ),
    { name: 'scheduled-calls', intervalMs: pollMs, drain: () => services.calls.placeDue() },
    new OutreachSweeper(db, config.outreach.noResponseHours, paced(config.outreach.sweepIntervalMs), log),
    // Escalations whose subject went away CANCELLED, those unanswered too long TIMED_OUT.
    { name: 'escalations', intervalMs: paced(60_000), drain: () => services.escalations.sweep() },
    {
      name: 'event-stream-purge',
      intervalMs: EVENT_STREAM_PURGE_MS,
      drain: () => services.eventStream.purge(),
    },
    {
      name: 'idempotency-purge',
      intervalMs: IDEMPOTENCY_PURGE_MS,
      drain: () => services.idempotency.purgeExpired(),
    },
    {
      // Providers retry a delivery within hours; a week of receipts answers every repeat.
      name: 'inbound-receipts-purge',
      intervalMs: IDEMPOTENCY_PURGE_MS,
      drain: () => purgeReceipts(db, 7),
    },
    {
      // Answers a turn queued and did not send (a crash, a failed send to retry).
      name: 'agent-outbox',
      intervalMs: pollMs,
      drain: () => services.agent.outbox.flushDue(),
    },
    {
      name: 'sessions-purge',
      intervalMs: SESSIONS_PURGE_MS,
      drain: () => services.sessions.purgeExpired(),
    },
  ];
  if (config.agent.enabled) {
    workers.push({
      name: 'agent',
      intervalMs: pollMs,
      async drain() {
        const done = await services.agent.tick();
        return done.cancelled + done.planned + done.dispatched + done.released + done.reviews;
      },
    });
  }
  return workers;
}

/** Sends a caller's one-time code: by e-mail to the census address, else by WhatsApp to the census phone. */
function codeSenderOf(channels: Channels, config: Config): CodeSender {
  return async (to, text) => {
    if (to.email) {
      await channels.email.send({
        messageId: `${newId('verification')}@${config.channels.email.replyDomain}`,
        from: config.channels.email.from,
        to: to.email,
        replyTo: config.channels.email.from,
        subject: 'Your verification code',
        text,
      });
    } else if (to.phone) {
      await channels.whatsapp.sendText(to.phone, text);
    }
  };
}
