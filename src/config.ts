import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './config/config-types.js';
import { envSchema, type ParsedEnv } from './config/env-schema.js';
import { channelsConfig, complianceConfig, simulationConfig, voiceConfig } from './config/sections.js';

export type { Config } from './config/config-types.js';
export type { Env } from './config/env-schema.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads `.env` from the working directory into the environment when the file exists, as the
 * server and the admin CLI start. Variables already set in the environment win over the file.
 */
export function loadEnvFile(file = '.env'): boolean {
  if (!existsSync(file)) return false;
  process.loadEnvFile(file);
  return true;
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
  const env = parseEnv(source);
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
    db: dbConfig(env, warn),
    jwt: Object.freeze({
      secret: jwtSecret,
      issuer: env.JWT_ISSUER,
      audience: env.JWT_AUDIENCE,
      ttlSeconds: env.JWT_TTL_SECONDS,
    }),
    sessions: Object.freeze({ refreshTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS }),
    invitations: Object.freeze({
      ttlSeconds: env.INVITATION_TTL_SECONDS,
      dashboardUrl: env.DASHBOARD_URL?.replace(/\/+$/, ''),
    }),
    ...redisConfig(env),
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
    compliance: complianceConfig(env),
    workers: Object.freeze({ enabled: env.WORKERS_ENABLED, pollMs: env.WORKER_POLL_MS }),
    bodyWorkers: Object.freeze({
      threads: env.BODY_WORKER_THREADS ?? Math.max(1, availableParallelism() - 1),
      use: env.BODY_WORKER_USE,
    }),
    webhooks: Object.freeze({
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryScale: env.WEBHOOK_RETRY_SCALE,
      publicOnly: env.NODE_ENV === 'production',
    }),
    outreach: Object.freeze({
      noResponseHours: env.OUTREACH_NO_RESPONSE_HOURS,
      sweepIntervalMs: env.OUTREACH_SWEEP_INTERVAL_MS,
    }),
    escalations: Object.freeze({ timeoutMinutes: env.ESCALATION_TIMEOUT_MINUTES }),
    simulation: simulationConfig(env),
    voice: voiceConfig(env),
    agent: Object.freeze({
      enabled: env.AGENT_ENABLED,
      batchSize: env.AGENT_BATCH_SIZE,
      rankingTtlMs: env.AGENT_RANKING_TTL_MS,
      planningLanes: env.AGENT_PLANNING_LANES,
    }),
    channels: channelsConfig(env),
    publicBaseUrl: env.PUBLIC_BASE_URL,
    servers: Object.freeze({ production: env.PRODUCTION_BASE_URL, staging: env.STAGING_BASE_URL }),
    cors: corsConfig(env),
    eventStream: Object.freeze({
      replaySeconds: env.EVENT_STREAM_REPLAY_SECONDS,
      heartbeatMs: env.EVENT_STREAM_HEARTBEAT_SECONDS * 1000,
      maxPerOrganization: env.EVENT_STREAM_MAX_PER_ORGANIZATION,
    }),
    trustProxy: env.TRUST_PROXY,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    migrateOnStart: env.MIGRATE_ON_START,
    http: Object.freeze({
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      idleTimeoutMs: env.HTTP_IDLE_TIMEOUT_MS,
      maxConnectionsPerIp: env.MAX_CONNECTIONS_PER_IP ?? (env.TRUST_PROXY ? 0 : 256),
    }),
    docsEnabled: env.DOCS_ENABLED ?? env.NODE_ENV !== 'production',
    console: consoleConfig(env),
  });
}

function dbConfig(env: ParsedEnv, warn: (message: string) => void): Config['db'] {
  if (env.DB_POOLER === 'transaction' && !env.DATABASE_DIRECT_URL) {
    warn(
      'DB_POOLER=transaction without DATABASE_DIRECT_URL: LISTEN and migrations go through the pooler, where notifications are not heard (readiness shows degraded); set DATABASE_DIRECT_URL to the database itself',
    );
  }
  return Object.freeze({
    poolMax: env.DB_POOL_MAX,
    connectTimeoutMs: env.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
    pooler: env.DB_POOLER,
    directUrl: env.DATABASE_DIRECT_URL,
    replicas: Object.freeze({
      urls: env.DATABASE_READ_URLS ?? [],
      maxLagMs: env.DB_REPLICA_MAX_LAG_MS,
      probeMs: env.DB_REPLICA_PROBE_MS,
    }),
  });
}

function consoleConfig(env: ParsedEnv): Config['console'] {
  return Object.freeze({
    enabled: env.CONSOLE_ENABLED,
    // This file is src/config.ts or dist/config.js: one level under the package's root either way.
    dir: env.CONSOLE_DIR ?? fileURLToPath(new URL('../dist/console', import.meta.url)),
  });
}

function corsConfig(env: ParsedEnv): Config['cors'] {
  const listed = env.CORS_ORIGINS;
  return Object.freeze({
    origins: Object.freeze((listed ?? []).filter((o) => o !== '*')),
    any: listed?.includes('*') ?? false,
    localDevelopment: listed === undefined && env.NODE_ENV === 'development',
  });
}

/** The environment parsed and checked, settings that depend on each other included. */
function parseEnv(source: Record<string, string | undefined>): ParsedEnv {
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
      [
        'VAPI_API_KEY',
        'VAPI_PHONE_NUMBER_ID',
        'VAPI_WEBHOOK_SECRET',
        // Without it the server blocks name no credential, Vapi signs nothing, and every message is 401.
        'VAPI_SERVER_CREDENTIAL_ID',
        'PUBLIC_BASE_URL',
      ] as const
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
  if (env.NODE_ENV === 'production' && env.CORS_ORIGINS?.includes('*')) {
    throw new ConfigError(
      "Invalid configuration:\n  CORS_ORIGINS: '*' is refused when NODE_ENV is production; list the dashboard origins",
    );
  }
  if (env.LLM_BASE_URL) required('LLM_BASE_URL is set', ['LLM_MODEL']);
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'Invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  if (env.SIMULATION_SPEED !== undefined) {
    // A simulated clock moves the product's time, which real carriers and registries do not share.
    const real = [
      env.VOICE_PROVIDER === 'vapi' && 'VOICE_PROVIDER=vapi',
      env.EMAIL_TRANSPORT === 'smtp' && 'EMAIL_TRANSPORT=smtp',
      env.WHATSAPP_PROVIDER === 'cloud_api' && 'WHATSAPP_PROVIDER=cloud_api',
      env.COMPLIANCE_PROVIDER === 'fmcsa' && 'COMPLIANCE_PROVIDER=fmcsa',
    ].filter((x): x is string => typeof x === 'string');
    if (real.length) {
      throw new ConfigError(
        `Invalid configuration:\n  SIMULATION_SPEED: a simulated clock runs only with simulated providers; unset it, or unset ${real.join(', ')}`,
      );
    }
  }
  if (env.COMPLIANCE_PROVIDER === 'fmcsa' && !env.FMCSA_WEB_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  FMCSA_WEB_KEY: required when COMPLIANCE_PROVIDER is fmcsa',
    );
  }
  return env;
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

/** Redis: where, under which key prefix, and how long to wait on it. */
function redisConfig(env: ParsedEnv) {
  return {
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    redisTimeouts: Object.freeze({
      commandMs: env.REDIS_COMMAND_TIMEOUT_MS,
      connectMs: env.REDIS_CONNECT_TIMEOUT_MS,
      retryMs: env.REDIS_RETRY_MS,
    }),
  };
}
