#!/usr/bin/env node
// Writes src/integrations/voice/vapi-lists.ts: the voice ids and model names that Vapi's SDK
// (@vapi-ai/server-sdk, a development dependency) enumerates, as plain data. The server reads that
// file, so it neither needs the SDK installed nor spends two seconds loading it at start.
// test/integrations/vapi-lists.test.ts fails when the file and the installed SDK differ: after
// upgrading the SDK, run this again.
//
//   node scripts/vapi-lists.mjs

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Vapi } from '@vapi-ai/server-sdk';

/** Each list: the name it gets in the file, and the SDK enumeration it is read from. */
const LISTS = {
  ELEVENLABS_VOICE_IDS: 'ElevenLabsVoiceIdEnum',
  AZURE_VOICE_IDS: 'AzureVoiceIdEnum',
  DEEPGRAM_VOICE_IDS: 'DeepgramVoiceId',
  OPENAI_VOICE_IDS: 'OpenAiVoiceIdEnum',
  PLAYHT_VOICE_IDS: 'PlayHtVoiceIdEnum',
  RIME_AI_VOICE_IDS: 'RimeAiVoiceIdEnum',
  LMNT_VOICE_IDS: 'LmntVoiceIdEnum',
  OPENAI_MODELS: 'OpenAiModelModel',
  ANTHROPIC_MODELS: 'AnthropicModelModel',
  GOOGLE_MODELS: 'GoogleModelModel',
  GROQ_MODELS: 'GroqModelModel',
};

const { version } = JSON.parse(
  readFileSync(new URL('../node_modules/@vapi-ai/server-sdk/package.json', import.meta.url), 'utf8'),
);
const file = fileURLToPath(new URL('../src/integrations/voice/vapi-lists.ts', import.meta.url));

let out = `// Written by scripts/vapi-lists.mjs from @vapi-ai/server-sdk ${version}; do not edit by hand.
// Size: data, every voice id and model name the SDK enumerates, in its order.
`;
for (const [name, sdkName] of Object.entries(LISTS)) {
  const values = Object.values(Vapi[sdkName]);
  out += `\n/** Vapi.${sdkName} */\nexport const ${name}: readonly string[] = ${JSON.stringify(values)};\n`;
}
writeFileSync(file, out);
// In the project's own format (Biome), so that the file is written the same way each time.
execFileSync(
  fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url)),
  ['format', '--write', file],
  {
    stdio: 'ignore',
  },
);
console.log(`src/integrations/voice/vapi-lists.ts: ${Object.keys(LISTS).length} lists from SDK ${version}`);
