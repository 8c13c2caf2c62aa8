import { createHash, randomUUID } from 'node:crypto';
import type {
  CallStatus,
  PlaceCallRequest,
  PlacedCall,
  ToolCall,
  TranscriptMessage,
  VoiceEventSink,
  VoiceProvider,
} from './voice-provider.js';

export type SimulatedOutcome = 'completed' | 'voicemail' | 'no_answer' | 'failed';
const OUTCOMES: SimulatedOutcome[] = ['completed', 'voicemail', 'no_answer', 'failed'];

/** The ELP test's two steps: an interview, then highway signs described in words. */
export const ELP_QUESTIONS = [
  {
    id: 'trip',
    step: 'interview',
    competency: 'conversational_communication',
    text: 'Where are you coming from and where are you headed?',
  },
  {
    id: 'hours',
    step: 'interview',
    competency: 'verbal_reporting',
    text: 'How many hours have you driven today, and is your logbook current?',
  },
  {
    id: 'license',
    step: 'interview',
    competency: 'instruction_comprehension',
    text: 'Please read me the class and expiry date on your license.',
  },
  {
    id: 'papers',
    step: 'interview',
    competency: 'instruction_comprehension',
    text: 'What are you hauling, and where are your shipping papers?',
  },
  {
    id: 'equipment',
    step: 'interview',
    competency: 'conversational_communication',
    text: 'Tell me about your truck and trailer and when they were last inspected.',
  },
  {
    id: 'stop_sign',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A red eight-sided sign with white letters: what does it tell you to do?',
  },
  {
    id: 'yield',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A red and white downward triangle: what does it mean?',
  },
  {
    id: 'weigh_station',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A sign reads "All trucks must exit, weigh station open". What do you do?',
  },
  {
    id: 'low_clearance',
    step: 'signs',
    competency: 'sign_recognition',
    text: 'A yellow sign shows "13 ft 6 in" with arrows. What does it warn you about?',
  },
  {
    id: 'message_board',
    step: 'signs',
    competency: 'verbal_reporting',
    text: 'A message board says "Right lane closed 2 miles ahead". What will you do?',
  },
] as const;

const GOOD_ANSWERS: Record<string, string> = {
  trip: 'Coming from Dallas, going to Atlanta with a load of paper goods.',
  hours: 'Six hours today, the logbook is on the tablet and up to date.',
  license: 'Class A, it expires March 2028.',
  papers: 'Dry goods, the bill of lading is in the door pocket.',
  equipment: 'A 2021 Freightliner with a 53 foot van, inspected last month.',
  stop_sign: 'Stop completely and look before going.',
  yield: 'Slow down and give way to the other traffic.',
  weigh_station: 'I take the exit and go across the scale.',
  low_clearance:
    'The bridge is low, thirteen six, my trailer is thirteen six so I go slow or take another road.',
  message_board: 'Move left early and slow down.',
};
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
 * A voice platform in process: the default when none is configured. Each call runs a realistic
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
        this.after(call, answerAt + 500, () =>
          this.say(call, 'assistant', 'Hi, this is Envoy calling about a load. Please call us back.'),
        );
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
  private async tool(call: Live, name: string, args: Record<string, unknown>) {
    const toolCall: ToolCall = {
      id: `tc_${randomUUID()}`,
      type: 'function',
      function: { name, arguments: args },
    };
    call.transcript.push({
      role: 'assistant',
      content: null,
      timestamp: new Date().toISOString(),
      tool_calls: [toolCall],
    });
    const results = await this.sink?.({
      kind: 'tool_calls',
      callId: call.request.callId,
      providerCallId: call.placed.providerCallId,
      calls: [toolCall],
    });
    const result = results?.find((r) => r.toolCallId === toolCall.id)?.result;
    call.transcript.push({
      role: 'tool',
      content: JSON.stringify(result ?? null),
      tool_call_id: toolCall.id,
      timestamp: new Date().toISOString(),
    });
    return result;
  }

  private async converse(call: Live) {
    const seed = call.request.callId;
    const turnMs = 1000 + chance(seed, 'pace') * 1500;
    // A pause that never resolves if the call ends meanwhile (transfer, hang-up): the script stops.
    const pause = () => new Promise<void>((resolve) => this.after(call, turnMs, resolve));
    if (call.request.callType === 'ELP') {
      // How well this driver speaks: most answers valid for most drivers, a few struggle.
      const proficiency = 0.35 + chance(seed, 'proficiency') * 0.65;
      this.say(call, 'assistant', 'Hello, this is a short English check. Please answer a few questions.');
      let interviewValid = 0;
      for (const [i, q] of ELP_QUESTIONS.entries()) {
        if (call.ended) return;
        if (q.step === 'signs' && interviewValid < 3) break; // a failed interview ends the test early
        this.say(call, 'assistant', q.text);
        await pause();
        const valid = chance(seed, `answer-${q.id}`) < proficiency;
        const answer = valid ? GOOD_ANSWERS[q.id]! : POOR_ANSWERS[i % POOR_ANSWERS.length]!;
        this.say(call, 'user', answer, valid ? 0.92 : 0.55);
        if (valid && q.step === 'interview') interviewValid++;
        await this.tool(call, 'record_elp_answer', {
          question_id: q.id,
          step: q.step,
          competency: q.competency,
          question: q.text,
          answer,
          valid,
        });
      }
    } else {
      const loadId = call.request.variables.load_id;
      this.say(
        call,
        'assistant',
        'Hi, this is the Envoy assistant calling about a load you might be interested in.',
      );
      const details =
        typeof loadId === 'string'
          ? ((await this.tool(call, 'get_load_details', { load_id: loadId })) as {
              posted_rate?: number | null;
            } | null)
          : null;
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
        const posted = typeof details?.posted_rate === 'number' ? details.posted_rate : null;
        const amount = posted
          ? Math.round((posted * (0.9 + chance(seed, 'rate') * 0.35)) / 25) * 25
          : Math.round((1500 + chance(seed, 'rate') * 2500) / 25) * 25;
        this.say(call, 'user', `We can do it for ${amount} all in.`, 0.91);
        if (typeof loadId === 'string') {
          const answer = (await this.tool(call, 'submit_offer', {
            load_id: loadId,
            offer_amount: amount,
          })) as {
            say?: string;
            decision?: string;
            counter_offer_amount?: number;
          } | null;
          this.say(
            call,
            'assistant',
            answer?.say ?? 'Thank you, I will pass that to the team and get back to you.',
          );
          if (answer?.decision === 'counter' && answer.counter_offer_amount && chance(seed, 'take') < 0.6) {
            await pause();
            this.say(call, 'user', `Alright, ${answer.counter_offer_amount} works.`, 0.9);
            const taken = (await this.tool(call, 'submit_offer', {
              load_id: loadId,
              offer_amount: answer.counter_offer_amount,
            })) as { say?: string } | null;
            if (taken?.say) this.say(call, 'assistant', taken.say);
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
