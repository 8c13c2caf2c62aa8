// The configuration the service runs with, as loadConfig (src/config.ts) builds it from the
// environment: grouped by concern, frozen.

import type { VapiServerAuth } from '../integrations/voice/vapi-server-auth.js';

export interface Config {
  readonly env: 'development' | 'production' | 'test';
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly embeddedPgPort: number;
  readonly db: {
    readonly poolMax: number;
    readonly connectTimeoutMs: number;
    readonly statementTimeoutMs: number;
    /** 'transaction' behind a transaction-mode pooler (see DatabaseOptions). */
    readonly pooler: 'none' | 'transaction';
    /** LISTEN's and migrations' own URL (DATABASE_DIRECT_URL); none: the pool's. */
    readonly directUrl: string | undefined;
    /** Read replicas (DATABASE_READ_URLS) and how far behind one may be. */
    readonly replicas: {
      readonly urls: readonly string[];
      readonly maxLagMs: number;
      readonly probeMs: number;
    };
  };
  readonly jwt: {
    readonly secret: string;
    readonly issuer: string;
    readonly audience: string;
    /** Lifetime of an access token. */
    readonly ttlSeconds: number;
  };
  /** Sign-in sessions: each refresh token lives this long, and each refresh issues a new one. */
  readonly sessions: { readonly refreshTtlSeconds: number };
  /**
   * Team invitations: how long the e-mailed token is valid, and the dashboard the e-mail links to
   * (`<dashboardUrl>/accept-invitation?token=...`; no link without one).
   */
  readonly invitations: { readonly ttlSeconds: number; readonly dashboardUrl: string | undefined };
  readonly redisUrl: string | undefined;
  readonly redisKeyPrefix: string;
  readonly redisTimeouts: {
    readonly commandMs: number;
    readonly connectMs: number;
    readonly retryMs: number;
  };
  readonly rateLimits: {
    readonly auth: number;
    readonly apiKeys: number;
    readonly uploads: number;
    readonly general: number;
  };
  /** How long an idempotent response is replayed (the spec promises 24 h). */
  readonly idempotencyTtlSeconds: number;
  /** After this long an unfinished keyed request counts as crashed and a retry may run. */
  readonly idempotencyLockSeconds: number;
  readonly secretsEncryptionKey: string;
  readonly compliance: {
    readonly provider: 'registry' | 'fmcsa';
    readonly registryFile: string;
    /** The FMCSA provider: QCMobile, the open-data portal, and how both are paced and cached. */
    readonly fmcsa: {
      readonly webKey: string | undefined;
      readonly baseUrl: string;
      readonly openDataUrl: string;
      readonly censusDataset: string;
      readonly authorityHistoryDataset: string;
      readonly legacyAuthorityHistoryDataset: string | null;
      readonly insuranceDataset: string;
      readonly insuranceHistoryDataset: string;
      readonly legacyInsuranceDataset: string | null;
      readonly outOfServiceDataset: string;
      readonly openDataAppToken: string | undefined;
      readonly minIntervalMs: number;
      readonly maxRetries: number;
      readonly retryBaseMs: number;
      readonly timeoutMs: number;
      readonly cacheTtlSeconds: number;
    };
    readonly minAuthorityDays: number;
    readonly inlineBudgetMs: number;
    /** How often carriers with loads in flight or offers pending are checked again. */
    readonly monitorIntervalHours: number;
  };
  /** Background loops (compliance re-checks, ...) run inside the server unless switched off. */
  readonly workers: { readonly enabled: boolean; readonly pollMs: number };
  /** Threads that read and check large batch bodies (0: none), and when a body goes to them. */
  readonly bodyWorkers: { readonly threads: number; readonly use: 'shared' | 'always' };
  /**
   * Webhook delivery: the per-attempt timeout and a factor applied to the retry schedule (tests
   * shrink it); `publicOnly` (production) refuses http and private targets.
   */
  readonly webhooks: {
    readonly timeoutMs: number;
    readonly retryScale: number;
    readonly publicOnly: boolean;
  };
  /** E-mail and WhatsApp outreaches unanswered this long become no_response; swept this often. */
  readonly outreach: { readonly noResponseHours: number; readonly sweepIntervalMs: number };
  /** An escalation ACTIVE this long without a response becomes TIMED_OUT. */
  readonly escalations: { readonly timeoutMinutes: number };
  /**
   * The simulated market the in-process providers play (e-mail, WhatsApp and voice carriers), and
   * the simulated clock: `speed` null runs on the machine's clock; set, the whole product runs on a
   * clock that many times faster (a simulated provider's delays too).
   */
  readonly simulation: {
    readonly speed: number | null;
    /** Where a new simulation's clock starts; null: the machine's time. */
    readonly start: Date | null;
    readonly profile: 'realistic' | 'cooperative' | 'silent';
    /** Fixes every carrier's habits and every draw of the market. */
    readonly seed: number;
  };
  readonly voice: {
    readonly provider: 'simulated' | 'vapi';
    readonly vapi: {
      readonly apiKey: string;
      readonly baseUrl: string;
      readonly phoneNumberId: string;
      /** How Vapi's server messages prove they are Vapi's (the credential below does it). */
      readonly serverAuth: VapiServerAuth;
      /** The Vapi Custom Credential named in every `server` block we send. */
      readonly credentialId: string;
      /** Further attempts of a call Vapi refused for a passing reason, and the first wait between them. */
      readonly placeRetries: number;
      readonly retryBaseMs: number;
    } | null;
  };
  /** The load-working agent: a worker loop in every instance unless switched off. */
  readonly agent: {
    readonly enabled: boolean;
    readonly batchSize: number;
    readonly rankingTtlMs: number;
    /** Lanes planned at once in a round (AGENT_PLANNING_LANES). */
    readonly planningLanes: number;
  };
  /** E-mail, WhatsApp and the optional chat model the agent talks through. */
  readonly channels: {
    readonly email: {
      readonly transport: 'simulated' | 'smtp';
      readonly smtpUrl: string | undefined;
      readonly from: string;
      readonly replyDomain: string;
      /** Inbound-parse webhook credential (HTTP Basic password or `token` query); unset: refused. */
      readonly inboundSecret: string | undefined;
      /** Body limit of the inbound-parse route only (Postmark allows 35 MB of attachments, base64). */
      readonly inboundMaxBytes: number;
    };
    readonly whatsapp: {
      readonly provider: 'simulated' | 'cloud_api';
      readonly baseUrl: string;
      readonly accessToken: string | undefined;
      readonly phoneNumberId: string | undefined;
      readonly appSecret: string | undefined;
      readonly verifyToken: string | undefined;
      readonly templateName: string;
      readonly templateLanguage: string;
    };
    readonly llm: {
      readonly baseUrl: string;
      readonly apiKey: string | undefined;
      readonly model: string;
    } | null;
  };
  /** Where the outside world reaches this service, for callbacks such as voice events. */
  readonly publicBaseUrl: string | undefined;
  /** The base addresses the OpenAPI document lists as `servers`, besides this deployment's. */
  readonly servers: { readonly production: string | undefined; readonly staging: string | undefined };
  /**
   * Which browser origins may call the API (CORS). `origins` are exact origins; `any` answers every
   * origin (refused in production); `localDevelopment` allows http://localhost, 127.0.0.1 and [::1]
   * on any port, the default in development when CORS_ORIGINS is not set.
   */
  readonly cors: {
    readonly origins: readonly string[];
    readonly any: boolean;
    readonly localDevelopment: boolean;
  };
  /** The live event stream (GET /events/stream). */
  readonly eventStream: {
    /** How long events are kept for a stream to resume from, counted from its last heartbeat. */
    readonly replaySeconds: number;
    readonly heartbeatMs: number;
    /** Open streams per organization, across every instance. */
    readonly maxPerOrganization: number;
  };
  readonly trustProxy: boolean;
  readonly shutdownTimeoutMs: number;
  /** Apply pending migrations at start (else refuse to start while one is pending). */
  readonly migrateOnStart: boolean;
  /** How long a client may take to send a request, and how long idle connections stay open. */
  readonly http: {
    readonly requestTimeoutMs: number;
    readonly headersTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly idleTimeoutMs: number;
    /** Open connections per client address; 0: no cap. */
    readonly maxConnectionsPerIp: number;
  };
  /** Whether /docs (the interactive reference) is served. */
  readonly docsEnabled: boolean;
  /** The broker's console at /: served or not, and the folder of its built files. */
  readonly console: { readonly enabled: boolean; readonly dir: string };
}
