/**
 * The tools the voice assistant calls during a call (load details, offers, stop-contact, ELP answers;
 * on inbound calls, finding a load and identifying the carrier: voice-inbound-tools.ts).
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/errors.js';
import { answerQuestions } from '../../domain/load-questions.js';
import { amountOf, intentOf, replyText } from '../../domain/negotiation.js';
import { systemScope } from '../../domain/scope.js';
import type { ToolCall, ToolResult } from '../../integrations/voice/voice-provider.js';
import { defined } from '../../lib/defined.js';
import { speakable } from '../../lib/spoken.js';
import type { StopContactRequests } from '../carriers/index.js';
import { type CarrierFacingLoad, carrierFacingLoads } from '../loads/index.js';
import { type OfferReceiver, offerOfCallExists } from '../offers/index.js';
import { loadsOfCall } from '../outreaches/index.js';
import { sayableLoad } from './call-script.js';
import type { CodeSender } from './caller-identity.js';
import { type CallRow, findCall } from './calls-repository.js';
import { elpAnswersOf, elpTestIdOfCall, recordElpAnswer } from './elp-queries.js';
import { ELP_QUESTIONS, elpQuestion, nextElpQuestion } from './elp-questions.js';
import { answerOnce } from './tool-receipts.js';
import { type Answered, type CarrierEnrollment, InboundVoiceTools } from './voice-inbound-tools.js';
import {
  isToolName,
  READ_ONLY_TOOLS,
  readArguments,
  type ToolArguments,
  toolError,
} from './voice-tool-declarations.js';
import {
  elpAnswerOf,
  loadFactsOf,
  loadSummary,
  NO_LOAD,
  NOT_AVAILABLE,
  type Outcome,
  sameLoadNumber,
} from './voice-tool-wording.js';
import { callGate, laneOnly, refusalOf, VETTING_PENDING } from './voice-vetting.js';

export type { CarrierEnrollment };

type CallLoad = { id: string; load_number: string | null };

/**
 * What makes two deliveries one tool call: its id on the call, and what it asks. A platform resends
 * a call as it was; an id some model reuses for another question on the same call is not a repeat.
 */
function deliveryKey(call: CallRow, toolCall: ToolCall): string {
  const { name, arguments: args } = toolCall.function;
  const asked = createHash('sha256')
    .update(`${name}\n${typeof args === 'string' ? args : JSON.stringify(args)}`)
    .digest('base64url')
    .slice(0, 16);
  return `${call.id}:${toolCall.id}:${asked}`;
}

/**
 * The voice assistant's tools, answered for one call. Each answer is the sentence or the facts the
 * assistant hears (`result`), or what went wrong (`error`); offers and stop-contact requests go
 * through the same rules as e-mail and WhatsApp replies. A tool that writes is answered once per
 * tool call id, however often the platform delivers it (tool-receipts.ts).
 */
export class VoiceTools {
  private readonly inbound: InboundVoiceTools;
  /** The loads of a call, read once per call row (a tool that links a load gives a new row). */
  private readonly loadsListed = new WeakMap<CallRow, Promise<CallLoad[]>>();

  constructor(
    private readonly db: Db,
    enroll: CarrierEnrollment | null,
    private readonly offers: OfferReceiver,
    private readonly stopContact: StopContactRequests,
    private readonly log: FastifyBaseLogger,
    sendCode: CodeSender | null,
    /** These tools with every collaborator writing on `tx`: a tool that writes runs in its receipt's transaction. */
    private readonly on: (tx: Db) => VoiceTools,
  ) {
    this.inbound = new InboundVoiceTools(db, enroll, log, sendCode);
  }

  async run(call: CallRow, list: ToolCall[]): Promise<ToolResult[]> {
    const results: ToolResult[] = [];
    let current = call;
    for (const toolCall of list) {
      const name = toolCall.function.name;
      let outcome: Outcome;
      try {
        const out = await this.answer(current, toolCall);
        outcome = out.outcome;
        if (out.call) current = out.call;
      } catch (err) {
        if (!(err instanceof AppError))
          this.log.warn({ err, tool: name, callId: call.id }, 'voice tool failed');
        outcome = { error: err instanceof AppError ? err.message : 'The tool failed; carry on without it' };
      }
      results.push({ toolCallId: toolCall.id, name, ...outcome });
    }
    return results;
  }

  /**
   * One tool call, its answer spoken. A tool that only reads is answered afresh each time; one that
   * writes, once per id: a repeated delivery answers the first one's outcome and does nothing else.
   */
  private async answer(call: CallRow, toolCall: ToolCall): Promise<Answered> {
    const name = toolCall.function.name;
    if (!toolCall.id || READ_ONLY_TOOLS.has(name) || !isToolName(name)) return this.spoken(call, toolCall);
    let changed: CallRow | undefined;
    const key = deliveryKey(call, toolCall);
    const { outcome, repeated } = await answerOnce(this.db, call.organization_id, key, async (tx) => {
      const out = await this.on(tx).spoken(call, toolCall);
      changed = out.call;
      return out.outcome;
    });
    // A repeat of a tool that links the call (a load, a carrier): the call as the first one left it.
    if (repeated) changed = (await findCall(this.db, systemScope(call.organization_id), call.id)) ?? call;
    return { outcome, call: changed };
  }

  /** A sentence is said word for word: dates, states, money and the load numbers as spoken. */
  private async spoken(call: CallRow, toolCall: ToolCall): Promise<Answered> {
    const out = await this.one(call, toolCall.function.name, toolCall.function.arguments);
    const { result } = out.outcome;
    if (!result || /^[[{]/.test(result)) return out;
    const numbers = (await this.listed(out.call ?? call)).flatMap((l) =>
      l.load_number ? [l.load_number] : [],
    );
    return { ...out, outcome: { ...out.outcome, result: speakable(result, numbers) } };
  }

  private async one(call: CallRow, name: string, raw: unknown): Promise<Answered> {
    if (!isToolName(name)) throw toolError(`Unknown tool '${name.slice(0, 100)}'`);
    switch (name) {
      case 'get_load_details':
        return { outcome: await this.loadDetails(call, readArguments(name, raw)) };
      case 'answer_question':
        return { outcome: await this.answerQuestion(call, readArguments(name, raw)) };
      case 'submit_offer':
        return { outcome: await this.submitOffer(call, readArguments(name, raw)) };
      case 'request_stop_contact':
        return { outcome: await this.requestStopContact(call) };
      case 'record_elp_answer':
        return { outcome: await this.recordElpAnswer(call, readArguments(name, raw)) };
      case 'find_load':
        return this.inbound.findLoad(call, readArguments(name, raw));
      case 'identify_carrier':
        return this.inbound.identifyCarrier(call, readArguments(name, raw));
      case 'send_verification_code':
        return { outcome: await this.inbound.sendVerificationCode(call) };
      case 'verify_code':
        return this.inbound.verifyCode(call, readArguments(name, raw));
      case 'transfer_to_rep':
        throw toolError('transfer_to_rep is a transfer: the platform places it');
    }
  }

  /** The call's loads (its own first), as outreaches list them; read once per call row. */
  private listed(call: CallRow): Promise<CallLoad[]> {
    let listed = this.loadsListed.get(call);
    if (!listed) {
      listed = loadsOfCall(this.db, call);
      this.loadsListed.set(call, listed);
      // A failed read is not kept: the next tool of the call reads again.
      listed.catch(() => this.loadsListed.delete(call));
    }
    return listed;
  }

  /** The loads the call offers (its own first) as a carrier may hear of them, or a tool error when it is about none. */
  private async loadsOn(call: CallRow): Promise<CarrierFacingLoad[]> {
    if (!call.load_id) {
      throw toolError(
        call.call_direction === 'INBOUND'
          ? 'No load is linked to this call yet: call find_load first'
          : 'This call is not about a load',
      );
    }
    const ids = (await this.listed(call)).map((l) => l.id);
    return carrierFacingLoads(this.db, call.organization_id, ids);
  }

  /**
   * The load of the call a tool is about: the one `named` among the call's loads, else its only
   * load. A call offering several loads needs the number (a tool error lists them).
   */
  private async loadOf(call: CallRow, named: string | undefined): Promise<CarrierFacingLoad> {
    const loads = await this.loadsOn(call);
    const numbers = loads.map((l) => l.load_number).join(', ');
    if (!named) {
      if (loads.length > 1) {
        throw toolError(
          `This call offers several loads (${numbers}): give load_number, the load the carrier means`,
        );
      }
      return defined(loads[0], 'the call load');
    }
    const found = sameLoadNumber(loads, named);
    if (!found) throw toolError(`Load ${named} is not on this call: it offers ${numbers}`);
    return found;
  }

  private async loadDetails(call: CallRow, args: ToolArguments<'get_load_details'>): Promise<Outcome> {
    const loads = args.load_number ? [await this.loadOf(call, args.load_number)] : await this.loadsOn(call);
    const gate = await callGate(this.db, call);
    const limited = gate.strict && !gate.passes;
    const shown = loads.map((l) => (limited ? laneOnly(sayableLoad(l)) : sayableLoad(l)));
    const first = defined(loads[0], 'the call load');
    const metadata = {
      posted_rate: limited ? null : first.posted_rate,
      ...(limited ? { limited: true } : {}),
      ...(loads.length > 1
        ? {
            loads: loads.map((l) => ({
              load_number: l.load_number,
              posted_rate: limited ? null : l.posted_rate,
            })),
          }
        : {}),
    };
    return { result: JSON.stringify(loads.length > 1 ? { loads: shown } : shown[0]), metadata };
  }

  /** The carrier's questions about a load of the call, answered from its sayable facts (as in e-mail and WhatsApp replies). */
  private async answerQuestion(call: CallRow, args: ToolArguments<'answer_question'>): Promise<Outcome> {
    const load = await this.loadOf(call, args.load_number);
    const said = answerQuestions(args.topics, loadFactsOf(load));
    return {
      result: said ?? 'The load does not say; tell the carrier a rep will confirm.',
      metadata: { topics: args.topics, answered: said !== null, load_number: load.load_number },
    };
  }

  private async submitOffer(call: CallRow, args: ToolArguments<'submit_offer'>): Promise<Outcome> {
    const load = await this.loadOf(call, args.load_number);
    if (call.call_direction === 'INBOUND' && !call.carrier_id) {
      throw toolError("Ask for the carrier's MC or DOT number and call identify_carrier first");
    }
    // The one gate of every channel (contact guard, then strict mode) runs inside `receive`.
    const amount = args.offer_amount;
    const outcome = await this.offers.receive(systemScope(call.organization_id), {
      loadId: load.id,
      carrierId: call.carrier_id,
      amount,
      channel: 'voice',
      callId: call.id,
      notes: args.notes ?? null,
      confirmed: args.confirmed === true,
    });
    const { decision } = outcome;
    if (outcome.refused)
      return {
        result: NOT_AVAILABLE,
        metadata: { decision: 'not_available', reason: outcome.refused, load_number: load.load_number },
      };
    if (decision.kind === 'held')
      return {
        result: VETTING_PENDING,
        metadata: { decision: 'vetting_pending', offer_id: outcome.offerId },
      };
    const said = amountOf(decision);
    const say = replyText(intentOf(decision), loadSummary(sayableLoad(load)), 'there', said ?? amount);
    const countered = decision.kind === 'counter' || decision.kind === 'final';
    return {
      result: say,
      metadata: {
        offer_id: outcome.offerId,
        status: outcome.status,
        decision: decision.kind,
        load_number: load.load_number,
        ...(countered ? { counter_offer_amount: said } : {}),
      },
    };
  }

  /**
   * An offer the post-call analysis heard: recorded as `submit_offer` records it (the same rules
   * and contact guard), unless the call already recorded an offer on its load. Returns whether it
   * was recorded.
   */
  async offerFromAnalysis(call: CallRow, amount: number): Promise<boolean> {
    if (!call.load_id || !call.carrier_id || amount > 10_000_000) return false;
    // The analysis names no load: on a call about several loads, which one is not guessed.
    if ((await loadsOfCall(this.db, call)).length > 1) return false;
    if (await offerOfCallExists(this.db, call.id, call.load_id)) return false;
    if (await refusalOf(this.db, call, call.load_id)) return false;
    const outcome = await this.offers.receive(systemScope(call.organization_id), {
      loadId: call.load_id,
      carrierId: call.carrier_id,
      amount,
      channel: 'voice',
      callId: call.id,
      notes: 'Heard in the post-call analysis',
      // The call is over: nobody can read the amount back, so it never books on its own.
      confirmable: false,
    });
    return outcome.offerId !== null;
  }

  private async requestStopContact(call: CallRow): Promise<Outcome> {
    if (!call.carrier_id) {
      throw toolError('No carrier is identified on this call: tell them a rep will take them off the list');
    }
    await this.stopContact.request(systemScope(call.organization_id), call.carrier_id, 'call');
    this.log.info(
      { callId: call.id, carrierId: call.carrier_id },
      'voice: carrier asked not to be contacted',
    );
    return { result: replyText('stop_confirmed', NO_LOAD, ''), metadata: { recorded: true } };
  }

  private async recordElpAnswer(call: CallRow, args: ToolArguments<'record_elp_answer'>): Promise<Outcome> {
    const test = await elpTestIdOfCall(this.db, call.id);
    if (!test) throw toolError('This call is not an ELP test');
    const question = elpQuestion(args.question_id);
    if (!question) {
      throw toolError(
        `Unknown question_id '${args.question_id}': the ids are ${ELP_QUESTIONS.map((q) => q.id).join(', ')}`,
      );
    }
    const answered = () => elpAnswersOf(this.db, test.id);
    // Once the test is over (a failed interview, or every question), later answers count for nothing.
    if (nextElpQuestion(await answered()) === null) {
      return {
        result: 'The test is already over: thank the driver and end the call.',
        metadata: { recorded: false, next_question_id: null, test_over: true },
      };
    }
    await recordElpAnswer(this.db, elpAnswerOf(call, test.id, question, args.answer, args.valid));
    const next = nextElpQuestion(await answered());
    return {
      result: next
        ? `Recorded. Next question [${next.id}]: "${next.text}"`
        : 'Recorded. The test is over: thank the driver and end the call.',
      metadata: { recorded: true, next_question_id: next?.id ?? null, test_over: next === null },
    };
  }
}
