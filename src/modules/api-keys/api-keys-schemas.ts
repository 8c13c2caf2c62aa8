import { z } from 'zod';
import { pageQuery } from '../../http/page-query.js';
import {
  dateTime,
  dateTimeInput,
  nonEmptyText,
  optionalBody,
  prefixedId,
  queryBool,
  text,
} from '../../http/schemas.js';

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    organization_id: z.string(),
    is_active: z.boolean(),
    description: z.string().nullable(),
    expires_at: dateTime().nullable(),
    last_used_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyWithSecretSchema = apiKeySchema
  .extend({ key: z.string().meta({ description: 'The secret. Shown only in this response; store it now.' }) })
  .meta({ id: 'ApiKeyWithSecret' });

export type ApiKey = z.infer<typeof apiKeySchema>;

export const createApiKeyBody = z.object({
  name: nonEmptyText(100),
  description: text(1000).nullish(),
  expires_at: dateTimeInput()
    // The machine's clock, not the injected one: the schema is built once, at load; the credential
    // checks themselves (api-key-credentials.ts) are on the injected wall clock.
    .refine((d) => d.getTime() > Date.now(), { message: 'Must be in the future' })
    .nullish(),
});

export const regenerateApiKeyBody = optionalBody(
  z.object({
    expire_old_in_seconds: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .default(86_400)
      .meta({ description: 'How long the old key keeps working (0 to 7 days; default 1 day).' }),
  }),
);

export const listApiKeysQuery = pageQuery().extend({ is_active: queryBool().optional() });

export const apiKeyIdParams = z.object({ id: prefixedId('apiKey') });
