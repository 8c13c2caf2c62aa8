import { Vapi } from '@vapi-ai/server-sdk';
import { describe, expect, it } from 'vitest';
import * as lists from '../../src/integrations/voice/vapi-lists.js';

/** Each list of vapi-lists.ts and the SDK enumeration scripts/vapi-lists.mjs copies it from. */
const FROM_SDK: Record<keyof typeof lists, Record<string, string>> = {
  ELEVENLABS_VOICE_IDS: Vapi.ElevenLabsVoiceIdEnum,
  AZURE_VOICE_IDS: Vapi.AzureVoiceIdEnum,
  DEEPGRAM_VOICE_IDS: Vapi.DeepgramVoiceId,
  OPENAI_VOICE_IDS: Vapi.OpenAiVoiceIdEnum,
  PLAYHT_VOICE_IDS: Vapi.PlayHtVoiceIdEnum,
  RIME_AI_VOICE_IDS: Vapi.RimeAiVoiceIdEnum,
  LMNT_VOICE_IDS: Vapi.LmntVoiceIdEnum,
  OPENAI_MODELS: Vapi.OpenAiModelModel,
  ANTHROPIC_MODELS: Vapi.AnthropicModelModel,
  GOOGLE_MODELS: Vapi.GoogleModelModel,
  GROQ_MODELS: Vapi.GroqModelModel,
};

describe("the voices and models of Vapi's SDK, as the server keeps them", () => {
  it('are the installed SDK’s lists, in its order (after an upgrade: node scripts/vapi-lists.mjs)', () => {
    const sdk = Object.fromEntries(Object.entries(FROM_SDK).map(([name, e]) => [name, Object.values(e)]));
    expect({ ...lists }).toEqual(sdk);
    for (const kept of Object.values(lists)) expect(kept.length).toBeGreaterThan(0);
  });
});
