import { z } from 'zod';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, nonEmptyText, prefixedId, queryBool } from '../../http/schemas.js';
import { VAPI_MODEL_PROVIDERS, VAPI_VOICE_PROVIDERS } from '../../integrations/voice/vapi-assistant.js';
import {
  CUSTOM_VOICE_PROVIDERS,
  modelRefusal,
  VAPI_MODELS,
  VAPI_VOICE_IDS,
  voiceRefusal,
} from '../../integrations/voice/vapi-catalog.js';
import { VOICE_PURPOSES } from '../../integrations/voice/voice-provider.js';
import { unknownPlaceholder, VOICE_VARIABLES } from './voice-variables.js';

const variableList = Object.keys(VOICE_VARIABLES).join(', ');

/** Script text: `{{variable}}` placeholders must name a variable the service provides. */
const script = (max: number) =>
  nonEmptyText(max).superRefine((value, ctx) => {
    const bad = unknownPlaceholder(value);
    if (bad === '{%') {
      ctx.addIssue({
        code: 'custom',
        message: 'Liquid tags ({% ... %}) are not supported; use {{variable}}',
      });
    } else if (bad) {
      ctx.addIssue({
        code: 'custom',
        message: `Unknown placeholder ${bad}: the variables are ${variableList}`,
      });
    }
  });

/** JSON Schema's `if`/`then`: when `conditions` hold, `then` applies to those properties. */
const whenThen = (conditions: Record<string, object>, then: Record<string, object>) => ({
  if: { properties: conditions, required: ['provider'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, not a thenable.
  then: { properties: then },
});

/** For one provider, `field` must be one of `listed` (nothing when the provider lists none). */
const whenProvider = (
  provider: string,
  listed: readonly string[] | null,
  field: string,
  extra: Record<string, object> = {},
) => (listed ? [whenThen({ provider: { const: provider }, ...extra }, { [field]: { enum: listed } })] : []);

const voiceSettings = z
  .object({
    provider: z.enum(VAPI_VOICE_PROVIDERS),
    voice_id: nonEmptyText(200),
    custom: z
      .boolean()
      .optional()
      .meta({
        description:
          "A voice id Vapi's list does not name (a cloned voice, or one from the provider's library); " +
          'every provider but deepgram takes one',
      }),
  })
  .superRefine((voice, ctx) => {
    const refusal = voiceRefusal(voice);
    if (refusal) ctx.addIssue({ code: 'custom', path: [refusal.field], message: refusal.message });
  })
  .meta({
    // The same rule stated in the document: a listed voice id unless `custom`, never `custom` where
    // the provider takes only its listed voices.
    allOf: VAPI_VOICE_PROVIDERS.flatMap((provider) => [
      ...whenProvider(provider, VAPI_VOICE_IDS[provider], 'voice_id', { custom: { const: false } }),
      ...(CUSTOM_VOICE_PROVIDERS.has(provider)
        ? []
        : [whenThen({ provider: { const: provider } }, { custom: { const: false } })]),
    ]),
    description:
      "The voice the assistant speaks with: Vapi's voice provider and one of its voice ids as Vapi lists them " +
      '(any id for vapi and cartesia, whose voices Vapi does not list), or `custom: true` for another',
  });

const modelSettings = z
  .object({
    provider: z.enum(VAPI_MODEL_PROVIDERS),
    model: nonEmptyText(200),
  })
  .superRefine((model, ctx) => {
    const refusal = modelRefusal(model);
    if (refusal) ctx.addIssue({ code: 'custom', path: ['model'], message: refusal });
  })
  .meta({
    allOf: VAPI_MODEL_PROVIDERS.flatMap((provider) => whenProvider(provider, VAPI_MODELS[provider], 'model')),
    description:
      'The language model behind the assistant, one Vapi lists for the provider (default openai gpt-4o)',
  });

export const createVoiceTemplateBody = z.object({
  name: nonEmptyText(200),
  purpose: z.enum(VOICE_PURPOSES),
  first_message: script(1000).meta({ description: 'What the assistant says first' }),
  instructions: script(20_000).meta({
    description: 'The script (system prompt), with {{variable}} placeholders',
  }),
  voicemail_message: script(1000)
    .nullish()
    .meta({ description: 'Left on an answering machine (outbound calls); null: hang up' }),
  voice: voiceSettings.nullish(),
  model: modelSettings.nullish(),
  is_default: z
    .boolean()
    .default(false)
    .meta({ description: "The organization's default for the purpose (the previous default is unset)" }),
});
export type CreateVoiceTemplateInput = z.output<typeof createVoiceTemplateBody>;

export const updateVoiceTemplateBody = z.object({
  name: nonEmptyText(200).optional(),
  purpose: z.enum(VOICE_PURPOSES).optional(),
  first_message: script(1000).optional(),
  instructions: script(20_000).optional(),
  voicemail_message: script(1000).nullable().optional(),
  voice: voiceSettings.nullable().optional(),
  model: modelSettings.nullable().optional(),
  is_default: z.boolean().optional(),
});
export type UpdateVoiceTemplateInput = z.output<typeof updateVoiceTemplateBody>;

export const listVoiceTemplatesQuery = pageQuery().extend({
  purpose: z.enum(VOICE_PURPOSES).optional(),
  is_builtin: queryBool().optional(),
});
export type ListVoiceTemplatesQuery = z.output<typeof listVoiceTemplatesQuery>;

export const voiceTemplateIdParams = z.object({ template_id: prefixedId('voiceTemplate') });

export const voiceTemplateSchema = z
  .object({
    id: z.string(),
    organization_id: z.string().nullable().meta({ description: 'Null for a built-in template' }),
    name: z.string(),
    purpose: z.enum(VOICE_PURPOSES),
    first_message: z.string(),
    instructions: z.string(),
    voicemail_message: z.string().nullable(),
    voice: z
      .object({ provider: z.string(), voice_id: z.string(), custom: z.boolean().optional() })
      .nullable(),
    model: z.object({ provider: z.string(), model: z.string() }).nullable(),
    is_default: z.boolean().meta({
      description:
        "Used for the purpose when a call names no template: the organization's default, or the " +
        'built-in one while the organization has none',
    }),
    is_builtin: z.boolean(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'VoiceTemplate' });
export type VoiceTemplate = z.infer<typeof voiceTemplateSchema>;

export const voiceVariablesSchema = z
  .object({
    data: z.array(z.object({ name: z.string(), description: z.string() })),
    never_available: z.array(z.string()),
  })
  .meta({ id: 'VoiceTemplateVariables' });
