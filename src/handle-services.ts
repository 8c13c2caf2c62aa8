// The services that read and write the freight records, built over one database handle: the pool,
// or the transaction a keyed request (or a voice tool call) runs in (docs/decisions/0039).

import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import { type AfterCommit, runNow } from './db/after-commit.js';
import type { Db } from './db/client.js';
import { type LaggedReads, onPrimary } from './db/replicas.js';
import { eventCatalogue } from './event-catalogue.js';
import type { Channels } from './integrations/channels.js';
import type { ComplianceProvider } from './integrations/compliance/compliance-provider.js';
import type { VoiceProvider } from './integrations/voice/voice-provider.js';
import type { Clock } from './lib/clock.js';
import type { WallClock } from './lib/wall-clock.js';
import type { AgentService } from './modules/agent/agent-service.js';
import { agentOfferPolicy } from './modules/agent/agent-settings.js';
import type { ApiKeyCredentials } from './modules/api-keys/api-key-credentials.js';
import { ApiKeysService } from './modules/api-keys/api-keys-service.js';
import { insertAudit } from './modules/audit/index.js';
import { InvitationsService } from './modules/auth/invitations-service.js';
import { MembersService } from './modules/auth/members-service.js';
import type { SessionsService } from './modules/auth/sessions-service.js';
import type { CodeSender } from './modules/calls/caller-identity.js';
import { CallsService } from './modules/calls/calls-service.js';
import { carrierEnrollment } from './modules/calls/carrier-enrollment.js';
import { ElpService } from './modules/calls/elp-service.js';
import { VoiceTools } from './modules/calls/voice-tool-handlers.js';
import { CarriersService } from './modules/carriers/carriers-service.js';
import { ComplianceService } from './modules/carriers/compliance-service.js';
import { StopContactRequests } from './modules/carriers/stop-contact.js';
import { loadRelations } from './modules/load-board/index.js';
import { LoadViewsService } from './modules/load-views/load-views-service.js';
import { EscalationsService } from './modules/loads/escalations-service.js';
import { escalateLoadsBookedTo, requireLoadLane } from './modules/loads/index.js';
import { LoadsService } from './modules/loads/loads-service.js';
import { StatusMappings } from './modules/loads/status-mappings-service.js';
import { acceptedOfferOfLoad } from './modules/offers/index.js';
import { OfferCounters } from './modules/offers/offer-counter.js';
import { OfferIntake } from './modules/offers/offer-intake.js';
import { OffersService } from './modules/offers/offers-service.js';
import { queuedOutreaches } from './modules/outreaches/outreaches-repository.js';
import { OutreachesService } from './modules/outreaches/outreaches-service.js';
import { VoiceNumbersService } from './modules/voice-numbers/index.js';
import { VoiceTemplatesService } from './modules/voice-templates/index.js';
import { webhookSecretBox } from './modules/webhooks/delivery.js';
import { WebhooksService } from './modules/webhooks/webhooks-service.js';

/**
 * What the services' statements run on: `db`, the pool or a transaction; `reads`, where a list
 * that tolerates lag is read (a transaction reads its own writes, so on itself); `afterCommit`,
 * when a call or message may go out (db/after-commit.ts).
 */
export interface Handle {
  readonly db: Db;
  readonly reads: LaggedReads;
  readonly afterCommit: AfterCommit;
}

/** A transaction as a handle: it reads on itself, and what cannot be taken back waits for `afterCommit`. */
export const transactionHandle = (tx: Db, afterCommit: AfterCommit): Handle => ({
  db: tx,
  reads: onPrimary(tx),
  afterCommit,
});

/** What every handle's services share: the configuration, the providers, the clocks, credentials. */
export interface SharedParts {
  readonly config: Config;
  readonly log: FastifyBaseLogger;
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly registry: ComplianceProvider;
  readonly voiceProvider: VoiceProvider;
  readonly channels: Channels;
  readonly sessions: SessionsService;
  readonly credentials: ApiKeyCredentials;
  readonly sendCode: CodeSender;
}

/**
 * The services the agent is built on, over one handle. A call created on a transaction is placed,
 * once that commits, by `placer` (the pool's calls service).
 */
export function coreOn(handle: Handle, shared: SharedParts, placer?: CallsService) {
  const { db } = handle;
  const { log, clock } = shared;
  const loads = new LoadsService(db, loadRelations(db), clock, log);
  const voiceTemplates = new VoiceTemplatesService(db);
  const { offerIntake, stopContact, compliance, carriers, voiceTools } = voiceToolsOn(db, shared);
  const calls = new CallsService(
    db,
    shared.voiceProvider,
    loads,
    voiceTemplates,
    voiceTools,
    log,
    clock,
    handle.reads,
    handle.afterCommit,
    placer,
  );
  return { loads, voiceTemplates, offerIntake, stopContact, compliance, carriers, calls };
}

/**
 * Every service a route uses, over one handle: `core` (built over the same handle) and the rest.
 * The agent is one per process, on the pool; a rep's counter is said through its messenger on
 * this handle.
 */
export function servicesOn(
  handle: Handle,
  shared: SharedParts,
  agent: AgentService,
  core: ReturnType<typeof coreOn>,
) {
  const { db, reads } = handle;
  const { config, log, clock, wallClock } = shared;
  const acceptedOffer: ConstructorParameters<typeof OutreachesService>[3] = (scope, loadId) =>
    acceptedOfferOfLoad(db, scope, loadId);
  return {
    ...core,
    ...teamOn(db, shared),
    apiKeys: new ApiKeysService(db, shared.credentials, wallClock),
    statusMappings: new StatusMappings(db),
    loadViews: new LoadViewsService(db),
    escalations: new EscalationsService(db, config.escalations.timeoutMinutes),
    offers: new OffersService(db, reads),
    offerCounters: new OfferCounters(db, agentOfferPolicy(db), agent.repCountersOn(db), log),
    voiceNumbers: new VoiceNumbersService(db, shared.voiceProvider),
    elp: new ElpService(db, core.calls, reads),
    outreaches: new OutreachesService(db, core.calls, agent, acceptedOffer, clock, reads, handle.afterCommit),
    webhooks: new WebhooksService(
      db,
      config.webhooks.publicOnly,
      webhookSecretBox(config.secretsEncryptionKey),
      eventCatalogue,
    ),
  };
}

export type HandleServices = ReturnType<typeof servicesOn>;

/** The pool as a handle: lists may read on a replica, and what is written has committed. */
export const poolHandle = (db: Db, reads: LaggedReads): Handle => ({ db, reads, afterCommit: runNow });

interface ToolRules {
  compliance: ComplianceService;
  stopContact: StopContactRequests;
  offerIntake: OfferIntake;
  carriers: CarriersService;
  voiceTools: VoiceTools;
}

/**
 * The voice assistant's tools and the rules they write through, over `db`. A tool that writes runs
 * them again over its receipt's transaction (tool-receipts.ts).
 */
function voiceToolsOn(db: Db, shared: SharedParts): ToolRules {
  const { config, log, clock } = shared;
  const compliance = complianceServiceOf(db, shared.registry, config, clock);
  // One owner for each rule several channels share: a carrier's stop-contact request, an offer.
  const stopContact = new StopContactRequests(db, queuedOutreaches);
  const offerIntake = new OfferIntake(db, agentOfferPolicy(db), log, clock);
  const carriers = new CarriersService(
    db,
    compliance,
    { inlineBudgetMs: config.compliance.inlineBudgetMs, clock },
    stopContact,
    // Carriers are handed the load's lane through a port (loads sits above carriers).
    (scope, loadId) => requireLoadLane(db, scope, loadId),
  );
  const enroll = carrierEnrollment(carriers, shared.registry, config.compliance.inlineBudgetMs);
  const voiceTools: VoiceTools = new VoiceTools(
    db,
    enroll,
    offerIntake,
    stopContact,
    log,
    shared.sendCode,
    (tx) => voiceToolsOn(tx, shared).voiceTools,
  );
  return { compliance, stopContact, offerIntake, carriers, voiceTools };
}

/** The team's services: members and roles, and invitations e-mailed through the e-mail channel. */
function teamOn(db: Db, shared: SharedParts) {
  const { config, sessions, log, wallClock } = shared;
  const { email } = config.channels;
  return {
    members: new MembersService(db, sessions, insertAudit, wallClock),
    invitations: new InvitationsService(
      db,
      sessions,
      shared.channels.email,
      {
        ttlSeconds: config.invitations.ttlSeconds,
        dashboardUrl: config.invitations.dashboardUrl,
        from: email.from,
        replyDomain: email.replyDomain,
      },
      log,
      insertAudit,
      wallClock,
    ),
  };
}

/** The compliance service, with what follows a carrier turning high risk: its queued contacts
 * withdrawn and the loads booked to it escalated. */
function complianceServiceOf(db: Db, registry: ComplianceProvider, config: Config, clock: Clock) {
  return new ComplianceService(
    db,
    registry,
    config.compliance.minAuthorityDays,
    clock,
    async (tx, organizationId, carrierId, why) => {
      await queuedOutreaches.withdrawForCarrier(tx, organizationId, carrierId, `cancelled: ${why}`);
      await escalateLoadsBookedTo(tx, organizationId, carrierId, `The booked carrier ${carrierId}: ${why}`);
    },
  );
}
