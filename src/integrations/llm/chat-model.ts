/** A chat-completions model (an OpenAI-compatible endpoint), used only when configured. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatModel {
  readonly name: string;
  /** The assistant's reply text; with `json`, the model is asked for a JSON object. */
  complete(messages: ChatMessage[], options?: { json?: boolean; maxTokens?: number }): Promise<string>;
}
