import { errorName } from '../../lib/error-text.js';
import { objectOf, objectsOf } from '../../lib/json-object.js';
import type { ChatMessage, ChatModel } from './chat-model.js';

export interface OpenAiCompatibleOptions {
  /** API root including its version, e.g. `https://api.openai.com/v1`; local servers often need no key. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

export class ChatModelError extends Error {
  override name = 'ChatModelError';
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** A reply longer than this is not one we asked for. */
const MAX_CONTENT = 100_000;

/** Any endpoint that speaks OpenAI's `POST /chat/completions` (OpenAI, vLLM, Ollama, LiteLLM, ...). */
export class OpenAiCompatibleChatModel implements ChatModel {
  readonly name: string;
  private readonly url: string;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.name = `openai-compatible:${options.model}`;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  async complete(
    messages: ChatMessage[],
    options: { json?: boolean; maxTokens?: number } = {},
  ): Promise<string> {
    const body = {
      model: this.options.model,
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      // Extraction and drafting should be repeatable, not creative.
      temperature: 0,
      ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
      ...(options.json ? { response_format: { type: 'json_object' } } : {}),
    };
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new ChatModelError(`Chat model request failed: ${errorName(err)}`);
    }
    // The error body is not quoted: some gateways echo the request headers, key included.
    if (!response.ok) throw new ChatModelError(`Chat model answered ${response.status}`, response.status);
    const json: unknown = await response.json().catch(() => null);
    const content = objectOf(objectsOf(objectOf(json)?.choices)[0]?.message)?.content;
    if (typeof content !== 'string') {
      throw new ChatModelError('Chat model answered without message content', response.status);
    }
    return content.slice(0, MAX_CONTENT);
  }
}
