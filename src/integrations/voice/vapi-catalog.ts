import type { VAPI_MODEL_PROVIDERS, VAPI_VOICE_PROVIDERS } from './vapi-assistant.js';
import {
  ANTHROPIC_MODELS,
  AZURE_VOICE_IDS,
  DEEPGRAM_VOICE_IDS,
  ELEVENLABS_VOICE_IDS,
  GOOGLE_MODELS,
  GROQ_MODELS,
  LMNT_VOICE_IDS,
  OPENAI_MODELS,
  OPENAI_VOICE_IDS,
  PLAYHT_VOICE_IDS,
  RIME_AI_VOICE_IDS,
} from './vapi-lists.js';

/**
 * The voices and models a template may name, from the enumerations of Vapi's SDK (copied into
 * vapi-lists.ts by scripts/vapi-lists.mjs: the server does not load the SDK): a template is
 * checked when saved, so a wrong voice id or model name is a 422 then, not a failure of every call.
 */

type VoiceProviderName = (typeof VAPI_VOICE_PROVIDERS)[number];
type ModelProviderName = (typeof VAPI_MODEL_PROVIDERS)[number];

/** Each provider's voice ids as the SDK lists them; null: the SDK lists none (any id is passed on). */
export const VAPI_VOICE_IDS: Record<VoiceProviderName, readonly string[] | null> = {
  vapi: null,
  cartesia: null,
  '11labs': ELEVENLABS_VOICE_IDS,
  azure: AZURE_VOICE_IDS,
  deepgram: DEEPGRAM_VOICE_IDS,
  openai: OPENAI_VOICE_IDS,
  playht: PLAYHT_VOICE_IDS,
  'rime-ai': RIME_AI_VOICE_IDS,
  lmnt: LMNT_VOICE_IDS,
};

/**
 * Providers whose voice id the SDK also types as any string (a cloned voice, or one from the
 * provider's library): a template names such a voice with `custom: true`. Deepgram takes only its
 * listed voices.
 */
export const CUSTOM_VOICE_PROVIDERS: ReadonlySet<VoiceProviderName> = new Set([
  'vapi',
  'cartesia',
  '11labs',
  'azure',
  'openai',
  'playht',
  'rime-ai',
  'lmnt',
]);

/** Each model provider's model names as the SDK lists them. */
export const VAPI_MODELS: Record<ModelProviderName, readonly string[]> = {
  openai: OPENAI_MODELS,
  anthropic: ANTHROPIC_MODELS,
  google: GOOGLE_MODELS,
  groq: GROQ_MODELS,
};

/** Why a voice is refused, naming its field; null when Vapi takes it. */
export function voiceRefusal(voice: {
  provider: VoiceProviderName;
  voice_id: string;
  custom?: boolean | undefined;
}): { field: 'voice_id' | 'custom'; message: string } | null {
  if (voice.custom) {
    return CUSTOM_VOICE_PROVIDERS.has(voice.provider)
      ? null
      : {
          field: 'custom',
          message: `${voice.provider} takes only its listed voices; custom voices are not possible`,
        };
  }
  const listed = VAPI_VOICE_IDS[voice.provider];
  if (!listed || listed.includes(voice.voice_id)) return null;
  return {
    field: 'voice_id',
    message: `'${voice.voice_id.slice(0, 100)}' is not a ${voice.provider} voice Vapi lists (for example ${listed
      .slice(0, 5)
      .join(', ')}); a cloned or library voice needs custom: true`,
  };
}

/** Why a model name is refused; null when the provider lists it. */
export function modelRefusal(model: { provider: ModelProviderName; model: string }): string | null {
  const listed = VAPI_MODELS[model.provider];
  if (listed.includes(model.model)) return null;
  return `'${model.model.slice(0, 100)}' is not a ${model.provider} model Vapi lists (for example ${listed
    .slice(0, 5)
    .join(', ')})`;
}
