import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { VapiServerAuth } from './integrations/voice/vapi-server-auth.js';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** A dataset id on a Socrata open-data portal: two groups of four letters or digits. */
const socrataId = z.string().regex(/^[a-z0-9]{4}-[a-z0-9]{4}$/, 'must be a dataset id like az4n-8mr2');
const boolFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** Every setting the service reads from the environment, validated once at start. */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DB_POOL_MAX: positiveInt(10),
  DB_CONNECT_TIMEOUT_MS: positiveInt(5000),
  DB_STATEMENT_TIMEOUT_MS: positiveInt(30000),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_ISSUER: z.string().min(1).default('envoy'),
  JWT_AUDIENCE: z.string().min(1).default('envoy-api'),
  JWT_TTL_SECONDS: positiveInt(8 * 3600),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_KEY_PREFIX: z.string().min(1).max(100).default('envoy:'),
  REDIS_COMMAND_TIMEOUT_MS: positiveInt(50),
  REDIS_CONNECT_TIMEOUT_MS: positiveInt(1000),
  REDIS_RETRY_MS: positiveInt(2000),
  RATE_LIMIT_AUTH_PER_MINUTE: positiveInt(10),
  RATE_LIMIT_API_KEYS_PER_MINUTE: positiveInt(1000),
  RATE_LIMIT_UPLOADS_PER_MINUTE: positiveInt(20),
  RATE_LIMIT_GENERAL_PER_MINUTE: positiveInt(100),
  IDEMPOTENCY_TTL_SECONDS: positiveInt(24 * 3600),
  IDEMPOTENCY_LOCK_SECONDS: positiveInt(60),
  SECRETS_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  COMPLIANCE_PROVIDER: z.enum(['registry', 'fmcsa']).default('registry'),
  COMPLIANCE_REGISTRY_FILE: z.string().min(1).optional(),
  FMCSA_WEB_KEY: z.string().min(1).optional(),
  FMCSA_BASE_URL: z.url().default('https://mobile.fmcsa.dot.gov/qc/services'),
  FMCSA_OPEN_DATA_URL: z.url().default('https://data.transportation.gov'),
  FMCSA_CENSUS_DATASET: socrataId.default('az4n-8mr2'),
  FMCSA_AUTHORITY_HISTORY_DATASET: socrataId.default('9mw4-x3tu'),
  FMCSA_OPEN_DATA_APP_TOKEN: z.string().min(1).max(200).optional(),
  FMCSA_MIN_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  FMCSA_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  FMCSA_RETRY_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(500),
  FMCSA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  FMCSA_CACHE_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(6 * 3600),
  COMPLIANCE_MIN_AUTHORITY_DAYS: z.coerce.number().int().min(0).default(90),
  COMPLIANCE_INLINE_BUDGET_MS: positiveInt(2000),
  WORKER_POLL_MS: positiveInt(1000),
  WORKERS_ENABLED: boolFlag(true),
  WEBHOOK_TIMEOUT_MS: positiveInt(15_000),
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  OUTREACH_NO_RESPONSE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  OUTREACH_SWEEP_INTERVAL_MS: positiveInt(60_000),
  VOICE_PROVIDER: z.enum(['simulated', 'vapi']).default('simulated'),
  SIMULATION_SPEED: z.coerce.number().positive().max(10_000).default(1),
  VAPI_API_KEY: z.string().min(1).optional(),
  VAPI_BASE_URL: z.url().default('https://api.vapi.ai'),
  VAPI_PHONE_NUMBER_ID: z.string().min(1).optional(),
  VAPI_WEBHOOK_SECRET: z.string().min(16).optional(),
  VAPI_SERVER_AUTH: z.enum(['hmac', 'bearer']).default('hmac'),
  VAPI_SERVER_CREDENTIAL_ID: z.string().min(1).max(200).optional(),
  VAPI_HMAC_SIGNATURE_HEADER: z.string().min(1).max(100).default('x-signature'),
  VAPI_HMAC_TIMESTAMP_HEADER: z.string().min(1).max(100).default('x-timestamp'),
  VAPI_HMAC_ALGORITHM: z.enum(['sha256', 'sha512', 'sha1']).default('sha256'),
  VAPI_HMAC_SIGNATURE_ENCODING: z.enum(['hex', 'base64']).default('hex'),
  VAPI_HMAC_PAYLOAD_FORMAT: z.string().min(1).max(200).default('{timestamp}.{body}'),
  VAPI_SIGNATURE_TOLERANCE_SECONDS: positiveInt(300),
  VAPI_BEARER_HEADER: z.string().min(1).max(100).default('authorization'),
  AGENT_ENABLED: boolFlag(true),
  AGENT_BATCH_SIZE: positiveInt(200),
  AGENT_RANKING_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  SIMULATION_PROFILE: z.enum(['realistic', 'cooperative', 'silent']).default('realistic'),
  EMAIL_TRANSPORT: z.enum(['simulated', 'smtp']).default('simulated'),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  EMAIL_FROM: z.string().min(3).max(200).default('Envoy Dispatch <dispatch@envoy.local>'),
  EMAIL_REPLY_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a domain name')
    .default('reply.envoy.local'),
  EMAIL_INBOUND_SECRET: z.string().min(16).optional(),
  EMAIL_INBOUND_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(256 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  WHATSAPP_PROVIDER: z.enum(['simulated', 'cloud_api']).default('simulated'),
  WHATSAPP_API_BASE_URL: z.url().default('https://graph.facebook.com/v21.0'),
  WHATSAPP_ACCESS_TOKEN: z.string().min(1).optional(),
  WHATSAPP_PHONE_NUMBER_ID: z.string().min(1).optional(),
  WHATSAPP_APP_SECRET: z.string().min(1).optional(),
  WHATSAPP_VERIFY_TOKEN: z.string().min(1).optional(),
  WHATSAPP_TEMPLATE_NAME: z.string().min(1).max(200).default('load_offer'),
  WHATSAPP_TEMPLATE_LANGUAGE: z.string().min(2).max(20).default('en_US'),
  LLM_BASE_URL: z.url().optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).max(200).optional(),
  PUBLIC_BASE_URL: z.url().optional(),
  PRODUCTION_BASE_URL: z.url().optional(),
  STAGING_BASE_URL: z.url().optional(),
  TRUST_PROXY: boolFlag(false),
  SHUTDOWN_TIMEOUT_MS: positiveInt(10000),
});

export type Env = z.input<typeof envSchema>;

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
  };
  readonly jwt: {
    readonly secret: string;
    readonly issuer: string;
    readonly audience: string;
    readonly ttlSeconds: number;
  };
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
      readonly openDataAppToken: string | undefined;
      readonly minIntervalMs: number;
      readonly maxRetries: number;
      readonly retryBaseMs: number;
      readonly timeoutMs: number;
      readonly cacheTtlSeconds: number;
    };
    readonly minAuthorityDays: number;
    readonly inlineBudgetMs: number;
  };
  /** Background loops (compliance re-checks, ...) run inside the server unless switched off. */
  readonly workers: { readonly enabled: boolean; readonly pollMs: number };
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
  readonly voice: {
    readonly provider: 'simulated' | 'vapi';
    /** Divides every delay of the simulated provider (100: a 30 s call takes 0.3 s). */
    readonly simulationSpeed: number;
    readonly vapi: {
      readonly apiKey: string;
      readonly baseUrl: string;
      readonly phoneNumberId: string;
      /** How Vapi's server messages prove they are Vapi's (the credential below does it). */
      readonly serverAuth: VapiServerAuth;
      /** The Vapi Custom Credential named in every `server` block we send. */
      readonly credentialId: string | null;
    } | null;
  };
  /** The load-working agent: a worker loop in every instance unless switched off. */
  readonly agent: { readonly enabled: boolean; readonly batchSize: number; readonly rankingTtlMs: number };
  /** E-mail, WhatsApp and the optional chat model the agent talks through. */
  readonly channels: {
    readonly simulationProfile: 'realistic' | 'cooperative' | 'silent';
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
  readonly trustProxy: boolean;
  readonly shutdownTimeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment once. A bad value throws a ConfigError naming every variable at fault.
 * Outside production a missing JWT_SECRET is generated once and kept under DATA_DIR, so tokens
 * survive restarts of a development server; `warn` is told about it.
 */
export function loadConfig(
  source: Record<string, string | undefined> = process.env,
  warn: (message: string) => void = (m) => console.warn(m),
): Config {
  // An empty variable means "not set", as in most shells' `FOO= npm start`.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  if (env.VOICE_PROVIDER === 'vapi') {
    const missing = (
      ['VAPI_API_KEY', 'VAPI_PHONE_NUMBER_ID', 'VAPI_WEBHOOK_SECRET', 'PUBLIC_BASE_URL'] as const
    ).filter((k) => !env[k]);
    if (missing.length) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when VOICE_PROVIDER is vapi`).join('\n')}`,
      );
    }
  }
  const required = (when: string, keys: (keyof typeof env)[]) => {
    const missing = keys.filter((k) => !env[k]);
    if (missing.length) {
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when ${when}`).join('\n')}`,
      );
    }
  };
  if (env.EMAIL_TRANSPORT === 'smtp') required('EMAIL_TRANSPORT is smtp', ['SMTP_URL']);
  if (env.WHATSAPP_PROVIDER === 'cloud_api') {
    required('WHATSAPP_PROVIDER is cloud_api', [
      'WHATSAPP_ACCESS_TOKEN',
      'WHATSAPP_PHONE_NUMBER_ID',
      'WHATSAPP_APP_SECRET',
      'WHATSAPP_VERIFY_TOKEN',
    ]);
  }
  if (env.LLM_BASE_URL) required('LLM_BASE_URL is set', ['LLM_MODEL']);
  if (env.COMPLIANCE_PROVIDER === 'fmcsa' && !env.FMCSA_WEB_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  FMCSA_WEB_KEY: required when COMPLIANCE_PROVIDER is fmcsa',
    );
  }
  let jwtSecret = env.JWT_SECRET;
  if (!jwtSecret) {
    if (env.NODE_ENV === 'production') {
      throw new ConfigError('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV is production');
    }
    jwtSecret = developmentSecret(env.DATA_DIR);
    warn(`JWT_SECRET is not set: using a generated development secret kept in ${env.DATA_DIR}/jwt-secret`);
  }
  if (env.NODE_ENV === 'production' && !env.SECRETS_ENCRYPTION_KEY) {
    warn(
      'SECRETS_ENCRYPTION_KEY is not set: stored secrets are sealed under a key derived from JWT_SECRET, so rotating JWT_SECRET makes them unreadable',
    );
  }
  return Object.freeze({
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    logLevel: env.LOG_LEVEL,
    databaseUrl: env.DATABASE_URL,
    dataDir: path.resolve(env.DATA_DIR),
    embeddedPgPort: env.EMBEDDED_PG_PORT,
    db: Object.freeze({
      poolMax: env.DB_POOL_MAX,
      connectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
    }),
    jwt: Object.freeze({
      secret: jwtSecret,
      issuer: env.JWT_ISSUER,
      audience: env.JWT_AUDIENCE,
      ttlSeconds: env.JWT_TTL_SECONDS,
    }),
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    redisTimeouts: Object.freeze({
      commandMs: env.REDIS_COMMAND_TIMEOUT_MS,
      connectMs: env.REDIS_CONNECT_TIMEOUT_MS,
      retryMs: env.REDIS_RETRY_MS,
    }),
    rateLimits: Object.freeze({
      auth: env.RATE_LIMIT_AUTH_PER_MINUTE,
      apiKeys: env.RATE_LIMIT_API_KEYS_PER_MINUTE,
      uploads: env.RATE_LIMIT_UPLOADS_PER_MINUTE,
      general: env.RATE_LIMIT_GENERAL_PER_MINUTE,
    }),
    idempotencyTtlSeconds: env.IDEMPOTENCY_TTL_SECONDS,
    idempotencyLockSeconds: env.IDEMPOTENCY_LOCK_SECONDS,
    // Without a key of its own, stored secrets are sealed under keys derived from JWT_SECRET.
    secretsEncryptionKey: env.SECRETS_ENCRYPTION_KEY ?? jwtSecret,
    compliance: Object.freeze({
      provider: env.COMPLIANCE_PROVIDER,
      registryFile: path.resolve(
        env.COMPLIANCE_REGISTRY_FILE ?? path.join(env.DATA_DIR, 'carrier-registry.json'),
      ),
      fmcsa: Object.freeze({
        webKey: env.FMCSA_WEB_KEY,
        baseUrl: env.FMCSA_BASE_URL,
        openDataUrl: env.FMCSA_OPEN_DATA_URL,
        censusDataset: env.FMCSA_CENSUS_DATASET,
        authorityHistoryDataset: env.FMCSA_AUTHORITY_HISTORY_DATASET,
        openDataAppToken: env.FMCSA_OPEN_DATA_APP_TOKEN,
        minIntervalMs: env.FMCSA_MIN_INTERVAL_MS,
        maxRetries: env.FMCSA_MAX_RETRIES,
        retryBaseMs: env.FMCSA_RETRY_BASE_MS,
        timeoutMs: env.FMCSA_TIMEOUT_MS,
        cacheTtlSeconds: env.FMCSA_CACHE_TTL_SECONDS,
      }),
      minAuthorityDays: env.COMPLIANCE_MIN_AUTHORITY_DAYS,
      inlineBudgetMs: env.COMPLIANCE_INLINE_BUDGET_MS,
    }),
    workers: Object.freeze({ enabled: env.WORKERS_ENABLED, pollMs: env.WORKER_POLL_MS }),
    webhooks: Object.freeze({
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryScale: env.WEBHOOK_RETRY_SCALE,
      publicOnly: env.NODE_ENV === 'production',
    }),
    outreach: Object.freeze({
      noResponseHours: env.OUTREACH_NO_RESPONSE_HOURS,
      sweepIntervalMs: env.OUTREACH_SWEEP_INTERVAL_MS,
    }),
    voice: Object.freeze({
      provider: env.VOICE_PROVIDER,
      simulationSpeed: env.SIMULATION_SPEED,
      vapi:
        env.VOICE_PROVIDER === 'vapi'
          ? Object.freeze({
              apiKey: env.VAPI_API_KEY!,
              baseUrl: env.VAPI_BASE_URL,
              phoneNumberId: env.VAPI_PHONE_NUMBER_ID!,
              serverAuth: Object.freeze(
                env.VAPI_SERVER_AUTH === 'bearer'
                  ? {
                      scheme: 'bearer' as const,
                      secret: env.VAPI_WEBHOOK_SECRET!,
                      header: env.VAPI_BEARER_HEADER,
                    }
                  : {
                      scheme: 'hmac' as const,
                      secret: env.VAPI_WEBHOOK_SECRET!,
                      algorithm: env.VAPI_HMAC_ALGORITHM,
                      signatureHeader: env.VAPI_HMAC_SIGNATURE_HEADER,
                      timestampHeader: env.VAPI_HMAC_TIMESTAMP_HEADER,
                      encoding: env.VAPI_HMAC_SIGNATURE_ENCODING,
                      payloadFormat: env.VAPI_HMAC_PAYLOAD_FORMAT,
                      toleranceSeconds: env.VAPI_SIGNATURE_TOLERANCE_SECONDS,
                    },
              ),
              credentialId: env.VAPI_SERVER_CREDENTIAL_ID ?? null,
            })
          : null,
    }),
    agent: Object.freeze({
      enabled: env.AGENT_ENABLED,
      batchSize: env.AGENT_BATCH_SIZE,
      rankingTtlMs: env.AGENT_RANKING_TTL_MS,
    }),
    channels: Object.freeze({
      simulationProfile: env.SIMULATION_PROFILE,
      email: Object.freeze({
        transport: env.EMAIL_TRANSPORT,
        smtpUrl: env.SMTP_URL,
        from: env.EMAIL_FROM,
        replyDomain: env.EMAIL_REPLY_DOMAIN.toLowerCase(),
        inboundSecret: env.EMAIL_INBOUND_SECRET,
        inboundMaxBytes: env.EMAIL_INBOUND_MAX_BYTES,
      }),
      whatsapp: Object.freeze({
        provider: env.WHATSAPP_PROVIDER,
        baseUrl: env.WHATSAPP_API_BASE_URL,
        accessToken: env.WHATSAPP_ACCESS_TOKEN,
        phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID,
        appSecret: env.WHATSAPP_APP_SECRET,
        verifyToken: env.WHATSAPP_VERIFY_TOKEN,
        templateName: env.WHATSAPP_TEMPLATE_NAME,
        templateLanguage: env.WHATSAPP_TEMPLATE_LANGUAGE,
      }),
      llm:
        env.LLM_BASE_URL && env.LLM_MODEL
          ? Object.freeze({ baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL })
          : null,
    }),
    publicBaseUrl: env.PUBLIC_BASE_URL,
    servers: Object.freeze({ production: env.PRODUCTION_BASE_URL, staging: env.STAGING_BASE_URL }),
    trustProxy: env.TRUST_PROXY,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
  });
}

function developmentSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not there yet: generated below
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
