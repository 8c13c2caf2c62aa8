// The larger groups of the configuration (the providers: compliance, voice, the channels), each
// built from the parsed environment; loadConfig (src/config.ts) assembles them with the rest.

import path from 'node:path';
import { defined } from '../lib/defined.js';
import type { Config } from './config-types.js';
import type { ParsedEnv } from './env-schema.js';

export function complianceConfig(env: ParsedEnv): Config['compliance'] {
  return Object.freeze({
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
      legacyAuthorityHistoryDataset: env.FMCSA_LEGACY_AUTHORITY_HISTORY_DATASET,
      insuranceDataset: env.FMCSA_INSURANCE_DATASET,
      insuranceHistoryDataset: env.FMCSA_INSURANCE_HISTORY_DATASET,
      legacyInsuranceDataset: env.FMCSA_LEGACY_INSURANCE_DATASET,
      outOfServiceDataset: env.FMCSA_OOS_DATASET,
      openDataAppToken: env.FMCSA_OPEN_DATA_APP_TOKEN,
      minIntervalMs: env.FMCSA_MIN_INTERVAL_MS,
      maxRetries: env.FMCSA_MAX_RETRIES,
      retryBaseMs: env.FMCSA_RETRY_BASE_MS,
      timeoutMs: env.FMCSA_TIMEOUT_MS,
      cacheTtlSeconds: env.FMCSA_CACHE_TTL_SECONDS,
    }),
    minAuthorityDays: env.COMPLIANCE_MIN_AUTHORITY_DAYS,
    inlineBudgetMs: env.COMPLIANCE_INLINE_BUDGET_MS,
    monitorIntervalHours: env.COMPLIANCE_MONITOR_INTERVAL_HOURS,
  });
}

export function simulationConfig(env: ParsedEnv): Config['simulation'] {
  return Object.freeze({
    speed: env.SIMULATION_SPEED ?? null,
    start: env.SIMULATION_START ? new Date(env.SIMULATION_START) : null,
    profile: env.SIMULATION_PROFILE,
    seed: env.SIMULATION_SEED,
  });
}

export function voiceConfig(env: ParsedEnv): Config['voice'] {
  return Object.freeze({
    provider: env.VOICE_PROVIDER,
    vapi:
      env.VOICE_PROVIDER === 'vapi'
        ? Object.freeze({
            apiKey: defined(env.VAPI_API_KEY, 'env.VAPI_API_KEY'),
            baseUrl: env.VAPI_BASE_URL,
            phoneNumberId: defined(env.VAPI_PHONE_NUMBER_ID, 'env.VAPI_PHONE_NUMBER_ID'),
            serverAuth: Object.freeze(
              env.VAPI_SERVER_AUTH === 'bearer'
                ? {
                    scheme: 'bearer' as const,
                    secret: defined(env.VAPI_WEBHOOK_SECRET, 'env.VAPI_WEBHOOK_SECRET'),
                    header: env.VAPI_BEARER_HEADER,
                  }
                : {
                    scheme: 'hmac' as const,
                    secret: defined(env.VAPI_WEBHOOK_SECRET, 'env.VAPI_WEBHOOK_SECRET'),
                    algorithm: env.VAPI_HMAC_ALGORITHM,
                    signatureHeader: env.VAPI_HMAC_SIGNATURE_HEADER,
                    timestampHeader: env.VAPI_HMAC_TIMESTAMP_HEADER,
                    encoding: env.VAPI_HMAC_SIGNATURE_ENCODING,
                    payloadFormat: env.VAPI_HMAC_PAYLOAD_FORMAT,
                    toleranceSeconds: env.VAPI_SIGNATURE_TOLERANCE_SECONDS,
                  },
            ),
            credentialId: defined(env.VAPI_SERVER_CREDENTIAL_ID, 'env.VAPI_SERVER_CREDENTIAL_ID'),
            placeRetries: env.VAPI_PLACE_RETRIES,
            retryBaseMs: env.VAPI_RETRY_BASE_MS,
          })
        : null,
  });
}

export function channelsConfig(env: ParsedEnv): Config['channels'] {
  return Object.freeze({
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
  });
}
