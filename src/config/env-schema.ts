// Every setting the service reads from the environment, as one zod schema: names, types, bounds
// and defaults. loadConfig (src/config.ts) parses it once at start.

import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** A dataset id on a Socrata open-data portal: two groups of four letters or digits. */
const socrataId = z.string().regex(/^[a-z0-9]{4}-[a-z0-9]{4}$/, 'must be a dataset id like az4n-8mr2');
/** A dataset that may be turned off: its id, or `off` (read as null). */
const optionalSocrataId = z.union([z.literal('off'), socrataId]).transform((v) => (v === 'off' ? null : v));
const boolFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** The host part of a URL as written: after the user and password, before the path. */
const hostsOf = (url: string) => {
  const authority = url.replace(/^[a-z]+:\/\//i, '').split(/[/?#]/)[0] ?? '';
  return authority.slice(authority.lastIndexOf('@') + 1);
};

/**
 * A PostgreSQL URL node-postgres can use: one host. A URL listing several hosts (libpq's failover
 * form, `host1,host2` with `target_session_attrs`) is refused with what to do instead, rather than
 * read as one host named `host1,host2` and answered 503 forever.
 */
const postgresUrl = z
  .string()
  .refine((v) => !hostsOf(v).includes(','), {
    message:
      'lists several hosts, which the driver cannot use: point it at one address that follows the ' +
      'primary (HAProxy with Patroni health checks, or PgBouncer in front of it; docs/operations.md, "Scaling out")',
    abort: true,
  })
  .pipe(z.url({ protocol: /^postgres(ql)?$/ }));

/** `https://app.example.com`: what a browser sends as `Origin` (no path, no trailing slash). */
function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** Every setting the service reads from the environment, validated once at start. */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  // Loopback unless told otherwise: a development server is not reachable from the network by
  // accident. The container image sets HOST=0.0.0.0.
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: postgresUrl.optional(),
  // LISTEN, migrations and their session lock need a session of their own: behind a pooler, the
  // database's own address (else DATABASE_URL).
  DATABASE_DIRECT_URL: postgresUrl.optional(),
  // 'transaction' when DATABASE_URL is a transaction-mode pooler (PgBouncer's pool_mode=transaction).
  DB_POOLER: z.enum(['none', 'transaction']).default('none'),
  // Streaming standbys for the reads that tolerate lag, comma-separated (docs/operations.md).
  DATABASE_READ_URLS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(postgresUrl))
    .optional(),
  DB_REPLICA_MAX_LAG_MS: positiveInt(5000),
  DB_REPLICA_PROBE_MS: positiveInt(1000),
  DATA_DIR: z.string().min(1).default('./.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DB_POOL_MAX: positiveInt(10),
  DB_CONNECT_TIMEOUT_MS: positiveInt(5000),
  DB_STATEMENT_TIMEOUT_MS: positiveInt(30000),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  JWT_ISSUER: z.string().min(1).default('envoy'),
  JWT_AUDIENCE: z.string().min(1).default('envoy-api'),
  // Access tokens are short-lived: a refresh token renews them, and a session ended elsewhere
  // is refused at once anyway (every bearer request reads its session).
  JWT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(15 * 60),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(365 * 86_400)
    .default(30 * 86_400),
  INVITATION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(300)
    .max(90 * 86_400)
    .default(7 * 86_400),
  DASHBOARD_URL: z
    .url({ protocol: /^https?$/ })
    .max(500)
    .optional(),
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
  FMCSA_AUTHORITY_HISTORY_DATASET: socrataId.default('yu5v-wbh6'),
  FMCSA_LEGACY_AUTHORITY_HISTORY_DATASET: optionalSocrataId.default('9mw4-x3tu'),
  FMCSA_INSURANCE_DATASET: socrataId.default('c5y8-a4uz'),
  FMCSA_INSURANCE_HISTORY_DATASET: socrataId.default('3uet-3z4i'),
  FMCSA_LEGACY_INSURANCE_DATASET: optionalSocrataId.default('qh9u-swkp'),
  FMCSA_OOS_DATASET: socrataId.default('p2mt-9ige'),
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
  COMPLIANCE_MONITOR_INTERVAL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(24),
  WORKER_POLL_MS: positiveInt(1000),
  WORKERS_ENABLED: boolFlag(true),
  // Threads that read and check large batch bodies; unset: one less than the cores (at least one).
  BODY_WORKER_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  // shared: a large body goes to a worker only while other requests are being served; always.
  BODY_WORKER_USE: z.enum(['shared', 'always']).default('shared'),
  WEBHOOK_TIMEOUT_MS: positiveInt(15_000),
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  OUTREACH_NO_RESPONSE_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  OUTREACH_SWEEP_INTERVAL_MS: positiveInt(60_000),
  // An escalation ACTIVE this long without a response becomes TIMED_OUT.
  ESCALATION_TIMEOUT_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(60 * 24 * 30)
    .default(240),
  VOICE_PROVIDER: z.enum(['simulated', 'vapi']).default('simulated'),
  // Set: the whole product runs on a simulated clock this many times faster than the machine's.
  SIMULATION_SPEED: z.coerce.number().positive().max(10_000).optional(),
  SIMULATION_SEED: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(1),
  // Where a new simulation's clock starts (an ISO 8601 time); unset: the machine's time.
  SIMULATION_START: z.iso.datetime({ offset: true }).optional(),
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
  VAPI_PLACE_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  VAPI_RETRY_BASE_MS: positiveInt(1000),
  AGENT_ENABLED: boolFlag(true),
  AGENT_BATCH_SIZE: positiveInt(200),
  AGENT_RANKING_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  // Lanes planned at once in a round: about the database's cores (planning is its work).
  AGENT_PLANNING_LANES: z.coerce.number().int().min(1).max(64).default(2),
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
  CORS_ORIGINS: z
    .string()
    .max(4000)
    .transform((raw, ctx) => {
      const origins = raw
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== '');
      for (const origin of origins) {
        if (origin !== '*' && !isExactOrigin(origin)) {
          ctx.addIssue({
            code: 'custom',
            message: `'${origin}' is not an origin like https://app.example.com (scheme, host and port only, no path or trailing slash)`,
          });
          return z.NEVER;
        }
      }
      return origins;
    })
    .optional(),
  EVENT_STREAM_REPLAY_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(3600),
  EVENT_STREAM_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(15),
  EVENT_STREAM_MAX_PER_ORGANIZATION: z.coerce.number().int().min(1).max(10_000).default(20),
  TRUST_PROXY: boolFlag(false),
  // Slow clients: the whole request (headers and body) must arrive within HTTP_REQUEST_TIMEOUT_MS,
  // its headers within HTTP_HEADERS_TIMEOUT_MS; an idle keep-alive connection closes after
  // HTTP_KEEP_ALIVE_TIMEOUT_MS and any connection silent for HTTP_IDLE_TIMEOUT_MS.
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(10_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
  HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
  // Open connections one client address may hold; 0 turns the cap off (the default behind a proxy,
  // where every connection comes from the proxy's address).
  MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(1_000_000).optional(),
  // The interactive API reference (/docs, /docs/json): on by default except in production.
  DOCS_ENABLED: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .optional(),
  // The broker's console at / (the browser app `npm run build` writes to dist/console): on by default.
  CONSOLE_ENABLED: boolFlag(true),
  // Where the built console is read from; default dist/console of this package.
  CONSOLE_DIR: z.string().min(1).max(4096).optional(),
  SHUTDOWN_TIMEOUT_MS: positiveInt(10000),
  // false: the server applies no migration and refuses to start while one is pending (a rollout
  // that runs `npm run migrate` first).
  MIGRATE_ON_START: boolFlag(true),
});

export type Env = z.input<typeof envSchema>;
/** The environment once parsed: defaults applied, numbers and flags converted. */
export type ParsedEnv = z.output<typeof envSchema>;
