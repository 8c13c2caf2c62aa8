import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import type { SimulatedMarket } from '../simulation/market.js';
import { CallEnded, type CallLine, playMarketCall } from '../simulation/market-calls.js';
import type {
  CallStatus,
  PlaceCallRequest,
  PlacedCall,
  ToolCall,
  ToolResult,
  TranscriptMessage,
  VoiceEventSink,
  VoiceProvider,
} from './voice-provider.js';

export type SimulatedOutcome = 'completed' | 'voicemail' | 'no_answer' | 'failed';
const OUTCOMES: SimulatedOutcome[] = ['completed', 'voicemail', 'no_answer', 'failed'];

const POOR_ANSWERS = ['Sorry, what?', 'Yes yes, okay.', 'I no understand.', 'Truck good.'];

/** A number in [0, 1) that depends only on the call id and a label: the same call plays the same way. */
function chance(seed: string, label: string): number {
  return createHash('sha256').update(`${seed}:${label}`).digest().readUInt32BE(0) / 2 ** 32;
}

interface Live {
  request: PlaceCallRequest;
  placed: PlacedCall;
  cancels: Set<() => void>;
  transcript: TranscriptMessage[];
  startedAt: Date | null;
  ended: boolean;
}

/**
 * One tool turn of a simulated call: the assistant's tool call goes to the service's sink as the
 * platform would send it, and both sides are added to the transcript. Null when the sink gave no
 * result for it.
 */
async function askTool(
  sink: VoiceEventSink | undefined,
  call: Live,
  now: () => Date,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult | null> {
  const toolCall: ToolCall = {
    id: `tc_${randomUUID()}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
  call.transcript.push({
    role: 'assistant',
    content: null,
    timestamp: now().toISOString(),
    tool_calls: [{ ...toolCall, function: { name, arguments: args } }],
  });
  const answer = await sink?.({
    kind: 'tool_calls',
    callId: call.request.callId,
    providerCallId: call.placed.providerCallId,
    calls: [toolCall],
  });
  const result =
    answer?.kind === 'tool_results'
      ? (answer.results.find((r) => r.toolCallId === toolCall.id) ?? null)
      : null;
  call.transcript.push({
    role: 'tool',
    content: result?.error ?? result?.result ?? null,
    tool_call_id: toolCall.id,
    timestamp: now().toISOString(),
  });
  return result;
}

/**
 * A voice platform in process: the default when none is configured. It plays the assistant the
 * service defines (its first message, voicemail message, ELP questions and tools) on the product
 * clock. A load-booking call goes to the simulated market's carrier at that number, who picks up
 * or not, hears the loads and negotiates through the tools (integrations/simulation). ELP and
 * tracking calls run a scripted conversation with an outcome drawn from the call id. The template
 * variable `simulate_outcome` (completed, voicemail, no_answer, failed) forces the outcome; with
 * `simulate_stop_contact: true` the callee asks not to be contacted again.
 */
export class SimulatedVoiceProvider implements VoiceProvider {
  readonly name = 'simulated';
  private sink: VoiceEventSink | undefined;
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly clock: Clock,
    private readonly market: SimulatedMarket | null = null,
  ) {}

  settings() {
    return { provider: this.name, clock: this.clock.kind, speed: this.clock.speed };
  }

  attach(sink: VoiceEventSink): void {
    this.sink = sink;
  }

  async close(): Promise<void> {
    for (const call of this.live.values()) {
      call.ended = true;
      for (const cancel of call.cancels) cancel();
    }
    this.live.clear();
  }

  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const providerCallId = `sim_${randomUUID()}`;
    const placed = { providerCallId, controlUrl: `simulated://${providerCallId}` };
    const call: Live = { request, placed, cancels: new Set(), transcript: [], startedAt: null, ended: false };
    this.live.set(providerCallId, call);
    const forced = request.variables.simulate_outcome;
    // includes() needs the element type to ask; the answer is what narrows `forced`.
    const given = OUTCOMES.includes(forced as SimulatedOutcome) ? (forced as SimulatedOutcome) : null;
    this.after(call, 100, () => this.status(call, 'PENDING'));
    this.after(call, 300, () => this.status(call, 'AGENT_ASSIGNED'));
    if (
      request.assistant.purpose === 'load_booking' &&
      this.market &&
      (given === null || given === 'completed')
    ) {
      const stop = request.variables.simulate_stop_contact === true;
      playMarketCall(this.market, request, this.lineOf(call), given ? { outcome: 'completed', stop } : null);
      return placed;
    }
    const outcome = given ?? this.drawOutcome(request.callId);
    const answerAt = 600 + chance(request.callId, 'answer') * 1400;
    if (outcome === 'no_answer') this.after(call, 20_000, () => this.end(call, 'NO_RESPONSE'));
    else if (outcome === 'failed') this.after(call, 500, () => this.end(call, 'FAILED'));
    else {
      this.after(call, answerAt, () => this.pickUp(call));
      if (outcome === 'voicemail') {
        const message = request.assistant.voicemailMessage;
        if (message) this.after(call, answerAt + 500, () => this.say(call, 'assistant', message));
        this.after(call, answerAt + 8000, () => this.end(call, 'VOICEMAIL'));
      } else {
        this.after(call, answerAt + 200, () => this.converse(call));
      }
    }
    return placed;
  }

  async transfer(placed: PlacedCall, toNumber: string): Promise<void> {
    const call = this.live.get(placed.providerCallId);
    if (!call || call.ended) return;
    this.say(call, 'system', `Call transferred to ${toNumber}.`);
    await this.end(call, 'TRANSFERRED');
  }

  async hangUp(placed: PlacedCall): Promise<void> {
    const call = this.live.get(placed.providerCallId);
    if (!call || call.ended) return;
    await this.end(call, call.startedAt ? 'COMPLETED' : 'CANCELLED');
  }

  /** The call as the market's carrier is on it: its words, the assistant's tools, the clock's pauses. */
  private lineOf(call: Live): CallLine {
    return {
      answer: async () => {
        if (call.ended) throw new CallEnded();
        await this.pickUp(call);
        this.say(call, 'assistant', call.request.assistant.firstMessage);
      },
      say: (role, content) => this.say(call, role, content, role === 'user' ? 0.92 : undefined),
      tool: async (name, args) => {
        if (call.ended) throw new CallEnded();
        const result = await this.tool(call, name, args);
        if (result?.result && !/^[[{]/.test(result.result)) this.say(call, 'assistant', result.result);
        return result;
      },
      pause: (ms) => this.pause(call, ms),
      end: (status) => this.end(call, status),
    };
  }

  private drawOutcome(callId: string): SimulatedOutcome {
    const r = chance(callId, 'outcome');
    return r < 0.6 ? 'completed' : r < 0.75 ? 'voicemail' : r < 0.9 ? 'no_answer' : 'failed';
  }

  /**
   * Waits `ms` of the clock in the call, or until the call ends (hung up, or the platform closes),
   * then throws CallEnded: a script paused on a manual clock no one moves still ends with its call.
   */
  private async pause(call: Live, ms: number): Promise<void> {
    const stop = new AbortController();
    const abort = () => stop.abort();
    call.cancels.add(abort);
    await this.clock.sleep(ms, stop.signal);
    call.cancels.delete(abort);
    if (call.ended) throw new CallEnded();
  }

  private after(call: Live, ms: number, step: () => unknown) {
    const cancel = this.clock.after(ms, () => {
      call.cancels.delete(cancel);
      if (call.ended) return;
      return Promise.resolve(step()).catch(() => {});
    });
    call.cancels.add(cancel);
  }

  private async pickUp(call: Live) {
    call.startedAt = this.clock.now();
    await this.status(call, 'IN_PROGRESS');
  }

  private async status(call: Live, status: CallStatus) {
    await this.sink?.({
      kind: 'status',
      callId: call.request.callId,
      providerCallId: call.placed.providerCallId,
      status,
      at: this.clock.now(),
    });
  }

  private say(call: Live, role: string, content: string, confidence?: number) {
    call.transcript.push({
      role,
      content,
      timestamp: this.clock.now().toISOString(),
      ...(confidence === undefined ? {} : { transcript_confidence: confidence }),
    });
  }

  /** Asks the agent's tools through the sink, as the platform would, and records both sides. */
  private tool(call: Live, name: string, args: Record<string, unknown>): Promise<ToolResult | null> {
    return askTool(this.sink, call, () => this.clock.now(), name, args);
  }

  /** The scripted calls: an ELP test, a tracking check, or a load call with no market to play it. */
  private async converse(call: Live) {
    const seed = call.request.callId;
    const turnMs = 1000 + chance(seed, 'pace') * 1500;
    const pause = () => this.pause(call, turnMs);
    const assistant = call.request.assistant;
    this.say(call, 'assistant', assistant.firstMessage);
    if (assistant.questions) {
      // How well this driver speaks: most answers valid for most drivers, a few struggle.
      const proficiency = 0.35 + chance(seed, 'proficiency') * 0.65;
      for (const [i, q] of assistant.questions.entries()) {
        if (call.ended) return;
        this.say(call, 'assistant', q.text);
        await pause();
        const valid = chance(seed, `answer-${q.id}`) < proficiency;
        const answer = valid
          ? q.example_answer
          : defined(POOR_ANSWERS[i % POOR_ANSWERS.length], 'POOR_ANSWERS[i % POOR_ANSWERS.length]');
        this.say(call, 'user', answer, valid ? 0.92 : 0.55);
        const recorded = await this.tool(call, 'record_elp_answer', { question_id: q.id, answer, valid });
        // The service says when the test is over (every question asked, or a failed interview).
        if (recorded?.metadata?.test_over === true) break;
      }
    } else if (assistant.purpose === 'tracking_check') {
      await this.tool(call, 'get_load_details', {});
      await pause();
      this.say(call, 'user', 'We are about an hour out from the next stop, running on time.', 0.92);
      await pause();
      this.say(call, 'assistant', 'Thanks, I have noted that. Drive safe.');
    } else if (call.request.variables.simulate_stop_contact === true) {
      await pause();
      this.say(call, 'user', 'Please take us off your list, do not call again.', 0.9);
      await this.tool(call, 'request_stop_contact', { reason: 'asked on a call' });
    } else {
      await pause();
      this.say(call, 'user', 'Sorry, wrong number.', 0.9);
    }
    // The rest of the conversation, then the end-of-call report.
    this.after(call, 1000 + chance(seed, 'tail') * 3000, () => this.end(call, 'COMPLETED'));
  }

  private async end(call: Live, status: CallStatus) {
    if (call.ended) return;
    call.ended = true;
    for (const cancel of call.cancels) cancel();
    this.live.delete(call.placed.providerCallId);
    const endedAt = this.clock.now();
    await this.sink?.({
      kind: 'status',
      callId: call.request.callId,
      providerCallId: call.placed.providerCallId,
      status,
      at: endedAt,
    });
    await this.sink?.({
      kind: 'report',
      callId: call.request.callId,
      providerCallId: call.placed.providerCallId,
      status,
      startedAt: call.startedAt,
      endedAt,
      transcript: call.transcript,
      recordingUrl: call.startedAt ? `simulated://recordings/${call.placed.providerCallId}.wav` : null,
    });
  }
}
