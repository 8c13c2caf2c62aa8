import { createHash, randomUUID } from 'node:crypto';
import { defined } from '../../lib/defined.js';
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
  timers: Set<NodeJS.Timeout>;
  transcript: TranscriptMessage[];
  startedAt: Date | null;
  ended: boolean;
}

/**
 * One tool turn of a simulated call: the assistant's tool call goes to the service's sink as the
 * platform would send it, and both sides are added to the transcript. Null when the sink gave no
 * result for it.
 */
export async function askTool(
  sink: VoiceEventSink | undefined,
  request: PlaceCallRequest,
  placed: PlacedCall,
  transcript: TranscriptMessage[],
  name: string,
  args: Record<string, unknown>,
): Promise<ToolResult | null> {
  const toolCall: ToolCall = {
    id: `tc_${randomUUID()}`,
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  };
  transcript.push({
    role: 'assistant',
    content: null,
    timestamp: new Date().toISOString(),
    tool_calls: [{ ...toolCall, function: { name, arguments: args } }],
  });
  const answer = await sink?.({
    kind: 'tool_calls',
    callId: request.callId,
    providerCallId: placed.providerCallId,
    calls: [toolCall],
  });
  const result =
    answer?.kind === 'tool_results'
      ? (answer.results.find((r) => r.toolCallId === toolCall.id) ?? null)
      : null;
  transcript.push({
    role: 'tool',
    content: result?.error ?? result?.result ?? null,
    tool_call_id: toolCall.id,
    timestamp: new Date().toISOString(),
  });
  return result;
}

/**
 * A voice platform in process: the default when none is configured. It plays the assistant the
 * service defines (its first message, voicemail message, ELP questions and tools). Each call runs a realistic
 * lifecycle on timers (queued, ringing, answered or not within 2 s, a 5-30 s conversation with tool
 * calls, an end-of-call report) with an outcome drawn from the call id, or forced with the template
 * variable `simulate_outcome` (completed, voicemail, no_answer, failed); `simulate_stop_contact: true`
 * makes the carrier ask not to be contacted again. `speed` divides every delay.
 */
export class SimulatedVoiceProvider implements VoiceProvider {
  readonly name = 'simulated';
  private sink: VoiceEventSink | undefined;
  private readonly live = new Map<string, Live>();

  constructor(private readonly speed: number) {}

  settings() {
    return { provider: this.name, speed: this.speed };
  }

  attach(sink: VoiceEventSink): void {
    this.sink = sink;
  }

  async close(): Promise<void> {
    for (const call of this.live.values()) for (const t of call.timers) clearTimeout(t);
    this.live.clear();
  }

  async placeCall(request: PlaceCallRequest): Promise<PlacedCall> {
    const providerCallId = `sim_${randomUUID()}`;
    const placed = { providerCallId, controlUrl: `simulated://${providerCallId}` };
    const call: Live = { request, placed, timers: new Set(), transcript: [], startedAt: null, ended: false };
    this.live.set(providerCallId, call);
    const forced = request.variables.simulate_outcome;
    // includes() needs the element type to ask; the answer is what narrows `forced`.
    const outcome: SimulatedOutcome = OUTCOMES.includes(forced as SimulatedOutcome)
      ? (forced as SimulatedOutcome)
      : this.drawOutcome(request.callId);
    this.after(call, 100, () => this.status(call, 'PENDING'));
    this.after(call, 300, () => this.status(call, 'AGENT_ASSIGNED'));
    const answerAt = 600 + chance(request.callId, 'answer') * 1400;
    if (outcome === 'no_answer') this.after(call, 2000, () => this.end(call, 'NO_RESPONSE'));
    else if (outcome === 'failed') this.after(call, 500, () => this.end(call, 'FAILED'));
    else {
      this.after(call, answerAt, () => {
        call.startedAt = new Date();
        return this.status(call, 'IN_PROGRESS');
      });
      if (outcome === 'voicemail') {
        const message = request.assistant.voicemailMessage;
        if (message) this.after(call, answerAt + 500, () => this.say(call, 'assistant', message));
        this.after(call, answerAt + 4000, () => this.end(call, 'VOICEMAIL'));
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

  private drawOutcome(callId: string): SimulatedOutcome {
    const r = chance(callId, 'outcome');
    return r < 0.6 ? 'completed' : r < 0.75 ? 'voicemail' : r < 0.9 ? 'no_answer' : 'failed';
  }

  private after(call: Live, ms: number, step: () => unknown) {
    const timer = setTimeout(() => {
      call.timers.delete(timer);
      if (call.ended) return;
      Promise.resolve(step()).catch(() => {});
    }, ms / this.speed);
    call.timers.add(timer);
  }

  private async status(call: Live, status: CallStatus) {
    await this.sink?.({
      kind: 'status',
      callId: call.request.callId,
      providerCallId: call.placed.providerCallId,
      status,
      at: new Date(),
    });
  }

  private say(call: Live, role: string, content: string, confidence?: number) {
    call.transcript.push({
      role,
      content,
      timestamp: new Date().toISOString(),
      ...(confidence === undefined ? {} : { transcript_confidence: confidence }),
    });
  }

  /** Asks the agent's tools through the sink, as the platform would, and records both sides. */
  private tool(call: Live, name: string, args: Record<string, unknown>): Promise<ToolResult | null> {
    return askTool(this.sink, call.request, call.placed, call.transcript, name, args);
  }

  private async converse(call: Live) {
    const seed = call.request.callId;
    const turnMs = 1000 + chance(seed, 'pace') * 1500;
    // A pause that never resolves if the call ends meanwhile (transfer, hang-up): the script stops.
    const pause = () => new Promise<void>((resolve) => this.after(call, turnMs, resolve));
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
    } else {
      const hasLoad = typeof call.request.variables.load_id === 'string';
      const details = hasLoad ? await this.tool(call, 'get_load_details', {}) : null;
      await pause();
      // A carrier asking to be left alone: on request (`simulate_stop_contact`), else now and then
      // when the outcome is left to chance.
      const vars = call.request.variables;
      const asksToStop =
        vars.simulate_stop_contact === true ||
        (vars.simulate_outcome === undefined && chance(seed, 'stop') < 0.05);
      if (asksToStop) {
        this.say(call, 'user', 'Please take us off your list, do not call again.', 0.9);
        await this.tool(call, 'request_stop_contact', { reason: 'asked on a call' });
      } else {
        this.say(call, 'user', 'What does it pay? We have a truck nearby.', 0.93);
        await pause();
        // Quotes spread around the posted rate, as carriers do; any amount when none is posted.
        const postedRate = details?.metadata?.posted_rate;
        const posted = typeof postedRate === 'number' ? postedRate : null;
        const amount = posted
          ? Math.round((posted * (0.9 + chance(seed, 'rate') * 0.35)) / 25) * 25
          : Math.round((1500 + chance(seed, 'rate') * 2500) / 25) * 25;
        this.say(call, 'user', `We can do it for ${amount} all in.`, 0.91);
        if (hasLoad) {
          const answer = await this.tool(call, 'submit_offer', { offer_amount: amount });
          this.say(
            call,
            'assistant',
            answer?.result ?? 'Thank you, I will pass that to the team and get back to you.',
          );
          const counter = answer?.metadata?.counter_offer_amount;
          if (typeof counter === 'number' && chance(seed, 'take') < 0.6) {
            await pause();
            this.say(call, 'user', `Alright, ${counter} works.`, 0.9);
            const taken = await this.tool(call, 'submit_offer', { offer_amount: counter });
            if (taken?.result) this.say(call, 'assistant', taken.result);
          }
        }
      }
    }
    // The rest of the 5-30 s conversation, then the end-of-call report.
    this.after(call, 1000 + chance(seed, 'tail') * 3000, () => this.end(call, 'COMPLETED'));
  }

  private async end(call: Live, status: CallStatus) {
    if (call.ended) return;
    call.ended = true;
    for (const t of call.timers) clearTimeout(t);
    this.live.delete(call.placed.providerCallId);
    const endedAt = new Date();
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
