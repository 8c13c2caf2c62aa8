import type { Vapi } from '@vapi-ai/server-sdk';
import { analysisPlanFor } from './vapi-analysis-plan.js';
import type { AssistantSpec, ToolDefinition } from './voice-provider.js';

/**
 * Voice and model providers a template may name: checked at compile time against the ones Vapi's
 * SDK declares (each takes a plain `voiceId` / `model`, which Vapi validates on its side).
 */
export const VAPI_VOICE_PROVIDERS = [
  'vapi',
  '11labs',
  'azure',
  'cartesia',
  'deepgram',
  'openai',
  'playht',
  'rime-ai',
  'lmnt',
] as const satisfies readonly Vapi.CreateAssistantDtoVoice['provider'][];

export const VAPI_MODEL_PROVIDERS = [
  'openai',
  'anthropic',
  'google',
  'groq',
] as const satisfies readonly Vapi.CreateAssistantDtoModel['provider'][];

/** The model when a template names none. */
export const DEFAULT_MODEL = { provider: 'openai', model: 'gpt-4o' } as const;

/** The server messages our webhook uses; Vapi sends no others. */
const SERVER_MESSAGES = [
  'status-update',
  'end-of-call-report',
  'tool-calls',
  'transfer-destination-request',
  'transfer-update',
  'hang',
] satisfies Vapi.CreateAssistantDtoServerMessagesItem[];

type Tool = Vapi.OpenAiModelToolsItem;

function vapiTool(tool: ToolDefinition, server: Vapi.Server): Tool {
  if (tool.kind === 'transfer') {
    // No destinations: Vapi asks our server (`transfer-destination-request`) where to send the call.
    return {
      type: 'transferCall',
      messages: [{ type: 'request-start', content: 'One moment, I am connecting you.' }],
    } satisfies Vapi.OpenAiModelToolsItem.TransferCall;
  }
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    server,
  } satisfies Vapi.OpenAiModelToolsItem.Function;
}

function vapiModel(spec: AssistantSpec, tools: Tool[]): Vapi.CreateAssistantDtoModel {
  const settings = spec.model ?? DEFAULT_MODEL;
  // Vapi's transferCall tool carries no description of its own (the SDK types none): the model
  // reads when to use it in the system message instead.
  const transfers = spec.tools
    .filter((t) => t.kind === 'transfer')
    .map((t) => `\n\nThe transferCall tool (${t.name}): ${t.description}`);
  const messages: Vapi.OpenAiMessage[] = [
    { role: 'system', content: spec.instructions + transfers.join('') },
  ];
  // The model name is the template's, validated by Vapi: the SDK lists each provider's names.
  switch (settings.provider) {
    case 'anthropic':
      return {
        provider: 'anthropic',
        // The template schema accepts only a model Vapi lists for this provider.
        model: settings.model as Vapi.AnthropicModelModel,
        messages,
        tools,
      } satisfies Vapi.CreateAssistantDtoModel.Anthropic;
    case 'google':
      return {
        provider: 'google',
        // The template schema accepts only a model Vapi lists for this provider.
        model: settings.model as Vapi.GoogleModelModel,
        messages,
        tools,
      } satisfies Vapi.CreateAssistantDtoModel.Google;
    case 'groq':
      return {
        provider: 'groq',
        // The template schema accepts only a model Vapi lists for this provider.
        model: settings.model as Vapi.GroqModelModel,
        messages,
        tools,
      } satisfies Vapi.CreateAssistantDtoModel.Groq;
    default:
      return {
        provider: 'openai',
        // The template schema accepts only a model Vapi lists for this provider.
        model: settings.model as Vapi.OpenAiModelModel,
        messages,
        tools,
      } satisfies Vapi.CreateAssistantDtoModel.Openai;
  }
}

/**
 * A transient Vapi assistant from the script the service defines: the rendered instructions as
 * the system message, our tools (function tools answered by our webhook, a transfer whose
 * destination we name, and Vapi's end-call tool), voicemail handling for outbound calls, and our
 * ids as metadata so every server message about the call names it.
 */
export function vapiAssistant(
  spec: AssistantSpec,
  server: Vapi.Server,
  direction: 'outbound' | 'inbound',
): Vapi.CreateAssistantDto {
  const tools: Tool[] = [
    ...spec.tools.map((t) => vapiTool(t, server)),
    { type: 'endCall' } satisfies Vapi.OpenAiModelToolsItem.EndCall,
  ];
  return {
    name: spec.name.slice(0, 40),
    firstMessage: spec.firstMessage,
    firstMessageMode: 'assistant-speaks-first',
    model: vapiModel(spec, tools),
    ...(spec.voice
      ? {
          // The voice id is provider-specific (Vapi validates it); the provider is from our list.
          voice: {
            provider: spec.voice.provider,
            voiceId: spec.voice.voice_id,
          } as Vapi.CreateAssistantDtoVoice,
        }
      : {}),
    ...(direction === 'outbound'
      ? {
          voicemailDetection: { provider: 'vapi' } satisfies Vapi.VapiVoicemailDetectionPlan,
          ...(spec.voicemailMessage ? { voicemailMessage: spec.voicemailMessage } : {}),
        }
      : {}),
    endCallMessage: 'Thank you, goodbye.',
    analysisPlan: analysisPlanFor(spec.purpose),
    serverMessages: SERVER_MESSAGES,
    server,
    metadata: { ...spec.metadata },
    maxDurationSeconds: 900,
  } satisfies Vapi.CreateAssistantDto;
}
