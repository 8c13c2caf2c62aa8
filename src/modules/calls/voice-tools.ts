/**
 * The tools the voice assistant calls during a call (load details, offers, stop-contact, ELP answers,
 * finding a load, identifying the carrier).
 * Size: one class with one method per tool; the tools share the call's lookups, so they stay together.
 */
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { AppError } from '../../domain/errors.js';
import { answerQuestions } from '../../domain/load-questions.js';
import { amountOf, intentOf, replyText } from '../../domain/negotiation.js';
import { type OrgScope, systemScope } from '../../domain/scope.js';
import type { ToolCall, ToolResult } from '../../integrations/voice/voice-provider.js';
import { defined } from '../../lib/defined.js';
import { speakable } from '../../lib/spoken.js';
import {
  carrierNameOf,
  digitsOnly,
  findCarrierIdByNumber,
  type StopContactRequests,
} from '../carriers/index.js';
import { findLoadsByNumber, type Load, type LoadReader, openLoadsOnLane } from '../loads/index.js';
import { loadNotBooked, type OfferReceiver, offerOfCallExists } from '../offers/index.js';
import { contactRefusal, loadsOfCall, recordInboundCallOutreach } from '../outreaches/index.js';
import { sayableLoad } from './call-script.js';
import { type CodeSender, callerNumberMatches, checkCode, issueCode } from './caller-identity.js';
import { type CallRow, linkCall } from './calls-repository.js';
import { elpAnswersOf, elpTestIdOfCall, recordElpAnswer } from './elp-queries.js';
import { ELP_QUESTIONS, elpQuestion, nextElpQuestion } from './elp-questions.js';
import {
  argsOf,
  elpAnswerOf,
  loadFactsOf,
  loadSummary,
  NO_LOAD,
  NOT_AVAILABLE,
  type Outcome,
  sameLoadNumber,
  textArg,
  toolError,
  topicsArg,
} from './voice-tool-support.js';
import { callGate, claimCarrier, laneOnly, linkVerifiedCarrier, VETTING_PENDING } from './voice-vetting.js';

/**
 * Makes a carrier from what a caller says (an MC or DOT number) through the compliance check, as
 * POST /carriers would; returns its id.
 */
export type CarrierEnrollment = (
  scope: OrgScope,
  ident: { mc_number: string | null; dot_number: string | null; phone: string | null },
) => Promise<{ id: string }>;

/**
 * The voice assistant's tools, answered for one call. Each answer is the sentence or the facts the
 * assistant hears (`result`), or what went wrong (`error`); offers and stop-contact requests go
 * through the same rules as e-mail and WhatsApp replies.
 */
export class VoiceTools {
  constructor(
    private readonly db: Db,
    private readonly loads: LoadReader,
    private readonly enroll: CarrierEnrollment | null,
    private readonly offers: OfferReceiver,
    private readonly stopContact: StopContactRequests,
    private readonly log: FastifyBaseLogger,
    private readonly sendCode: CodeSender | null = null,
  ) {}

  async run(call: CallRow, list: ToolCall[]): Promise<ToolResult[]> {
    const results: ToolResult[] = [];
    let current = call;
    for (const toolCall of list) {
      const name = toolCall.function.name;
      let outcome: Outcome;
      try {
        const out = await this.one(current, name, argsOf(toolCall.function.arguments));
        outcome = out.outcome;
        if (out.call) current = out.call;
      } catch (err) {
        if (!(err instanceof AppError))
          this.log.warn({ err, tool: name, callId: call.id }, 'voice tool failed');
        outcome = { error: err instanceof AppError ? err.message : 'The tool failed; carry on without it' };
      }
      // A sentence is said word for word: dates, states, money and the load numbers as spoken.
      if (outcome.result && !/^[[{]/.test(outcome.result)) {
        const numbers = (await loadsOfCall(this.db, current)).flatMap((l) =>
          l.load_number ? [l.load_number] : [],
        );
        outcome = { ...outcome, result: speakable(outcome.result, numbers) };
      }
      results.push({ toolCallId: toolCall.id, name, ...outcome });
    }
    return results;
  }

  private async one(
    call: CallRow,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ outcome: Outcome; call?: CallRow }> {
    switch (name) {
      case 'get_load_details':
        return { outcome: await this.loadDetails(call, args) };
      case 'answer_question':
        return { outcome: await this.answerQuestion(call, args) };
      case 'submit_offer':
        return { outcome: await this.submitOffer(call, args) };
      case 'request_stop_contact':
        return { outcome: await this.requestStopContact(call) };
      case 'record_elp_answer':
        return { outcome: await this.recordElpAnswer(call, args) };
      case 'find_load':
        return this.findLoad(call, args);
      case 'identify_carrier':
        return this.identifyCarrier(call, args);
      case 'send_verification_code':
        return { outcome: await this.sendVerificationCode(call) };
      case 'verify_code':
        return this.verifyCode(call, args);
      default:
        throw toolError(`Unknown tool '${name.slice(0, 100)}'`);
    }
  }

  /** The loads the call offers (its own first), or a tool error when it is about none. */
  private async loadsOn(call: CallRow): Promise<Load[]> {
    if (!call.load_id) {
      throw toolError(
        call.call_direction === 'INBOUND'
          ? 'No load is linked to this call yet: call find_load first'
          : 'This call is not about a load',
      );
    }
    const scope = systemScope(call.organization_id);
    return Promise.all((await loadsOfCall(this.db, call)).map((l) => this.loads.get(scope, l.id)));
  }

  /**
   * The load of the call a tool is about: the one `load_number` names among the call's loads, else
   * its only load. A call offering several loads needs the number (a tool error lists them).
   */
  private async loadOf(call: CallRow, args: Record<string, unknown>): Promise<Load> {
    const loads = await this.loadsOn(call);
    const named = textArg(args.load_number, 100);
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

  private async loadDetails(call: CallRow, args: Record<string, unknown>): Promise<Outcome> {
    const loads =
      textArg(args.load_number, 100) === null ? await this.loadsOn(call) : [await this.loadOf(call, args)];
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
  private async answerQuestion(call: CallRow, args: Record<string, unknown>): Promise<Outcome> {
    const topics = topicsArg(args);
    const load = await this.loadOf(call, args);
    const said = answerQuestions(topics, loadFactsOf(load));
    return {
      result: said ?? 'The load does not say; tell the carrier a rep will confirm.',
      metadata: { topics, answered: said !== null, load_number: load.load_number },
    };
  }

  /** Why the call's carrier may not be offered the load (the contact guard), or null. */
  private async refusal(call: CallRow, loadId: string) {
    if (!call.carrier_id) return null;
    return contactRefusal(this.db, systemScope(call.organization_id), call.carrier_id, loadId);
  }

  private async submitOffer(call: CallRow, args: Record<string, unknown>): Promise<Outcome> {
    const amount = Number(args.offer_amount);
    if (!Number.isFinite(amount) || amount <= 0 || amount > 10_000_000) {
      throw toolError('offer_amount must be a positive number of US dollars');
    }
    const load = await this.loadOf(call, args);
    if (call.call_direction === 'INBOUND' && !call.carrier_id) {
      throw toolError("Ask for the carrier's MC or DOT number and call identify_carrier first");
    }
    // The one gate of every channel (contact guard, then strict mode) runs inside `receive`.
    const outcome = await this.offers.receive(systemScope(call.organization_id), {
      loadId: load.id,
      carrierId: call.carrier_id,
      amount,
      channel: 'voice',
      callId: call.id,
      notes: textArg(args.notes, 2000),
      confirmed: args.confirmed === true || args.confirmed === 'true',
    });
    const { decision } = outcome;
    if (outcome.refused)
      return {
        result: NOT_AVAILABLE,
        metadata: { decision: 'not_available', load_number: load.load_number },
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
    if (await this.refusal(call, call.load_id)) return false;
    const outcome = await this.offers.receive(systemScope(call.organization_id), {
      loadId: call.load_id,
      carrierId: call.carrier_id,
      amount,
      channel: 'voice',
      callId: call.id,
      notes: 'Heard in the post-call analysis',
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

  private async recordElpAnswer(call: CallRow, args: Record<string, unknown>): Promise<Outcome> {
    const test = await elpTestIdOfCall(this.db, call.id);
    if (!test) throw toolError('This call is not an ELP test');
    const questionId = textArg(args.question_id, 100) ?? '';
    const question = elpQuestion(questionId);
    if (!question) {
      throw toolError(
        `Unknown question_id '${questionId}': the ids are ${ELP_QUESTIONS.map((q) => q.id).join(', ')}`,
      );
    }
    if (typeof args.valid !== 'boolean') throw toolError('valid must be true or false');
    const answered = () => elpAnswersOf(this.db, test.id);
    // Once the test is over (a failed interview, or every question), later answers count for nothing.
    if (nextElpQuestion(await answered()) === null) {
      return {
        result: 'The test is already over: thank the driver and end the call.',
        metadata: { recorded: false, next_question_id: null, test_over: true },
      };
    }
    await recordElpAnswer(
      this.db,
      elpAnswerOf(call, test.id, question, textArg(args.answer, 2000), args.valid),
    );
    const next = nextElpQuestion(await answered());
    return {
      result: next
        ? `Recorded. Next question [${next.id}]: "${next.text}"`
        : 'Recorded. The test is over: thank the driver and end the call.',
      metadata: { recorded: true, next_question_id: next?.id ?? null, test_over: next === null },
    };
  }

  /** Inbound: the load the caller asks about, by number or lane; one match links the call to it. */
  private async findLoad(call: CallRow, args: Record<string, unknown>) {
    const scope = systemScope(call.organization_id);
    const number = textArg(args.load_number, 100);
    const origin = textArg(args.origin_state, 10)?.toUpperCase() ?? null;
    const destination = textArg(args.destination_state, 10)?.toUpperCase() ?? null;
    const pickup = textArg(args.pickup_date, 10);
    const pickupAt = pickup && /^\d{4}-\d{2}-\d{2}$/.test(pickup) ? new Date(`${pickup}T00:00:00Z`) : null;
    let found: { id: string; load_number: string }[];
    if (number) {
      found = await findLoadsByNumber(this.db, scope.organizationId, number);
    } else if (origin && destination) {
      found = await this.openOnLane(scope.organizationId, origin, destination, pickupAt);
    } else {
      throw toolError('Give a load_number, or an origin_state and a destination_state');
    }
    if (found.length === 0) {
      return {
        outcome: {
          result: 'No open load matches that. Ask the caller to check the load number or the lane.',
          metadata: { found: 0 },
        },
      };
    }
    if (found.length > 1) {
      const options = await Promise.all(
        found.map(async (f) => sayableLoad(await this.loads.get(scope, f.id))),
      );
      const list = options
        .map(
          (o) =>
            `load ${o.load_number}: pickup ${o.pickup_date ?? 'date not given'}, ${o.equipment_type}` +
            (o.posted_rate !== null ? `, posted rate $${o.posted_rate.toLocaleString('en-US')}` : ''),
        )
        .join('; ');
      return {
        outcome: {
          result: `Several loads match: ${list}. Ask which one, then call find_load with its load number.`,
          metadata: { found: found.length, load_numbers: options.map((o) => o.load_number) },
        },
      };
    }
    const load = defined(found[0], 'found[0]');
    const linked = defined(
      await linkCall(this.db, call.id, { load_id: load.id, load_number: load.load_number }),
      'linkCall',
    );
    const refused = await this.refusal(linked, linked.load_id ?? '');
    if (refused)
      return { outcome: { result: NOT_AVAILABLE, metadata: { found: 1, available: false } }, call: linked };
    await this.recordInbound(linked);
    const facts = sayableLoad(await this.loads.get(scope, load.id));
    const gate = await callGate(this.db, linked);
    const limited = gate.strict && !gate.passes;
    return {
      outcome: {
        result: JSON.stringify(limited ? laneOnly(facts) : facts),
        metadata: { found: 1, load_id: load.id, posted_rate: limited ? null : facts.posted_rate },
      },
      call: linked,
    };
  }

  /** Loads still taking offers on the lane, the pickup nearest the date asked for (else the soonest) first. */
  private openOnLane(organizationId: string, origin: string, destination: string, pickupAt: Date | null) {
    return openLoadsOnLane(this.db, organizationId, origin, destination, pickupAt, loadNotBooked);
  }

  /** Inbound: the caller's carrier by MC or DOT; an unknown one is made through the compliance check. */
  private async identifyCarrier(call: CallRow, args: Record<string, unknown>) {
    const scope = systemScope(call.organization_id);
    const mc = digitsOnly(textArg(args.mc_number, 30) ?? '') || null;
    const dot = digitsOnly(textArg(args.dot_number, 30) ?? '') || null;
    if (!mc && !dot) throw toolError("Give the carrier's MC number or DOT number (digits)");
    const known = await findCarrierIdByNumber(this.db, scope, mc, dot);
    let carrierId = known?.id ?? null;
    if (!carrierId) {
      if (!this.enroll) throw toolError('This carrier is not on file; a rep will call them back');
      carrierId = (
        await this.enroll(scope, {
          mc_number: mc,
          dot_number: dot,
          phone: call.call_direction === 'INBOUND' ? call.from_number : call.to_number,
        })
      ).id;
      this.log.info({ callId: call.id, carrierId }, 'voice: an unknown caller became a carrier');
    }
    const matches = await callerNumberMatches(
      this.db,
      scope.organizationId,
      carrierId,
      call.from_number,
      !!known,
    );
    const carrier = await carrierNameOf(this.db, carrierId);
    if (call.call_direction === 'INBOUND' && !matches) {
      const claimed = await claimCarrier(this.db, call.id, carrierId);
      this.log.info(
        { callId: call.id, carrierId },
        'voice: calling number not on file for the carrier named',
      );
      return {
        outcome: {
          result: `The number you are calling from is not on file for ${carrier?.name ?? 'that carrier'}. I can send a one-time code to the e-mail or phone the carrier has on file with FMCSA (call send_verification_code, then verify_code with the code they read back), or transfer you to a rep.`,
          metadata: { carrier_id: null, identity_verified: false },
        },
        call: claimed,
      };
    }
    return this.linkIdentified(call, carrierId, carrier?.name ?? null);
  }

  /** The call's carrier, its identity verified: linked, then the guard and the inbound outreach. */
  private async linkIdentified(call: CallRow, carrierId: string, name: string | null) {
    const linked = await linkVerifiedCarrier(this.db, call.id, carrierId);
    const carrier = { name };
    const refused = await this.refusal(linked, linked.load_id ?? '');
    if (refused) {
      this.log.info(
        { callId: call.id, carrierId, reason: refused.reason },
        'voice: caller not offered the load',
      );
      return {
        outcome: {
          result: linked.load_id ? NOT_AVAILABLE : 'I am sorry, we have no loads to offer you at the moment.',
          metadata: { carrier_id: carrierId, available: false, identity_verified: true },
        },
        call: linked,
      };
    }
    await this.recordInbound(linked);
    return {
      outcome: {
        result: `Thank you, ${carrier.name ?? 'carrier'} is on file.${linked.load_id ? '' : ' Which load are you calling about?'}`,
        metadata: { carrier_id: carrierId, available: true, identity_verified: true },
      },
      call: linked,
    };
  }

  /** A one-time code to the census e-mail (else phone) of the carrier the caller claims to be. */
  private async sendVerificationCode(call: CallRow): Promise<Outcome> {
    if (!call.claimed_carrier_id || call.carrier_id)
      throw toolError('Call identify_carrier first; a caller already verified needs no code');
    if (!this.sendCode) throw toolError('Codes cannot be sent here: transfer the caller to a rep');
    const to = await censusContactOf(this.db, call.organization_id, call.claimed_carrier_id);
    if (!to || (!to.email && !to.phone))
      return {
        result: 'The carrier has no e-mail or phone on file with FMCSA: transfer the caller to a rep.',
        metadata: { sent: false },
      };
    const sentTo = await issueCode(this.db, call, call.claimed_carrier_id, to, this.sendCode, to.name);
    return {
      result: `A six-digit code was sent to ${sentTo}. Ask the caller to read it back, then call verify_code.`,
      metadata: { sent: true, sent_to: sentTo },
    };
  }

  private async verifyCode(call: CallRow, args: Record<string, unknown>) {
    const code = textArg(args.code, 20);
    if (!code) throw toolError('Give the code the caller reads back');
    const checked = await checkCode(this.db, call.id, code);
    if (!checked.ok) {
      const said = {
        none: 'No code was sent on this call: call send_verification_code first.',
        expired: 'That code expired: send a new one, or transfer the caller to a rep.',
        too_many_attempts: 'Too many wrong codes: transfer the caller to a rep.',
        wrong: `That code is not right; ${checked.attemptsLeft} attempt(s) left.`,
      }[checked.why];
      return { outcome: { result: said, metadata: { identity_verified: false, reason: checked.why } } };
    }
    const name = (await carrierNameOf(this.db, checked.carrierId))?.name ?? null;
    return this.linkIdentified(call, checked.carrierId, name);
  }

  /** An inbound call about a load from an identified carrier: its outreach, once (spec: completed). */
  private async recordInbound(call: CallRow) {
    if (call.call_direction !== 'INBOUND' || !call.load_id || !call.carrier_id) return;
    await this.db.transaction(async (tx) => {
      await recordInboundCallOutreach(tx, {
        id: call.id,
        organization_id: call.organization_id,
        carrier_id: defined(call.carrier_id, 'call.carrier_id'),
        load_id: defined(call.load_id, 'call.load_id'),
        load_number: call.load_number,
        from_number: call.from_number,
      });
    });
  }
}

async function censusContactOf(db: Db, organizationId: string, carrierId: string) {
  const rows = await db.execute<{ email: string | null; phone: string | null; name: string }>(sql`
    SELECT census_email AS email, census_phone AS phone, name FROM carriers
    WHERE organization_id = ${organizationId} AND id = ${carrierId}`);
  return rows.rows[0] ?? null;
}
