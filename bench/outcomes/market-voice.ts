import { randomUUID } from 'node:crypto';
import { askTool } from '../../src/integrations/voice/simulated-provider.js';
import type {
  CallStatus,
  PlaceCallRequest,
  PlacedCall,
  ToolResult,
  TranscriptMessage,
  VoiceEventSink,
  VoiceProvider,
} from '../../src/integrations/voice/voice-provider.js';

/** Plays one call for the market: the carrier's side of the conversation, through `call`. */
export type CallScript = (call: LiveCall) => Promise<void>;

/**
 * A voice platform whose callees are the simulated market's carriers. The agent places calls
 * through the calls module as always; each call is handed to the market (`onCall`), which plays
 * the carrier when the call's time comes: status events, the assistant's tool calls (load
 * details, submit_offer, request_stop_contact) answered by the real voice tools through the
 * service's sink, and the end-of-call report.
 */
export class MarketVoiceProvider implements VoiceProvider {
  readonly name = 'simulated';

  settings() {
    return { provider: this.name };
  }
  private sink: VoiceEventSink | undefined;
  onCall: (request: PlaceCallRequest, call: LiveCall) => void = () => {};

  attach(sink: VoiceEventSink): void {
    this.sink = sink;
  }

  async close(): Promise<void> {}

  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const providerCallId = `mkt_${randomUUID()}`;
    const placed = { providerCallId, controlUrl: `simulated://${providerCallId}` };
    this.onCall(request, new LiveCall(request, placed, () => this.sink));
    return placed;
  }

  async transfer(placed: PlacedCall): Promise<void> {
    void placed;
  }

  async hangUp(placed: PlacedCall): Promise<void> {
    void placed;
  }
}

/** One call in progress, as the platform would report it. */
export class LiveCall {
  private readonly transcript: TranscriptMessage[] = [];
  private startedAt: Date | null = null;
  private ended = false;

  constructor(
    readonly request: PlaceCallRequest,
    private readonly placed: PlacedCall,
    private readonly sink: () => VoiceEventSink | undefined,
  ) {}

  get loadId(): string | null {
    const id = this.request.variables.load_id;
    return typeof id === 'string' ? id : null;
  }

  async answer() {
    this.startedAt = new Date();
    await this.status('IN_PROGRESS');
    this.say('assistant', this.request.assistant.firstMessage);
  }

  say(role: 'assistant' | 'user', content: string) {
    this.transcript.push({ role, content, timestamp: new Date().toISOString() });
  }

  /** Calls one of the assistant's tools, as the platform does when the model asks for it. */
  async tool(name: string, args: Record<string, unknown>): Promise<ToolResult | null> {
    const result = await askTool(this.sink(), this.request, this.placed, this.transcript, name, args);
    if (result?.result) this.say('assistant', result.result);
    return result;
  }

  async end(status: CallStatus) {
    if (this.ended) return;
    this.ended = true;
    const at = new Date();
    const ids = { callId: this.request.callId, providerCallId: this.placed.providerCallId };
    await this.sink()?.({ kind: 'status', ...ids, status, at });
    await this.sink()?.({
      kind: 'report',
      ...ids,
      status,
      startedAt: this.startedAt,
      endedAt: at,
      transcript: this.transcript,
      recordingUrl: null,
    });
  }

  private async status(status: CallStatus) {
    await this.sink()?.({
      kind: 'status',
      callId: this.request.callId,
      providerCallId: this.placed.providerCallId,
      status,
      at: new Date(),
    });
  }
}
