import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { type OrgScope, systemScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import {
  callerNumberMatches,
  carrierCensusContact,
  carrierNameOf,
  digitsOnly,
  findCarrierIdByNumber,
} from '../carriers/index.js';
import { carrierFacingLoads, findLoadsByNumber, openLoadsOnLane } from '../loads/index.js';
import { loadNotBooked } from '../offers/index.js';
import { recordInboundCallOutreach } from '../outreaches/index.js';
import { sayableLoad } from './call-script.js';
import { type CodeSender, checkCode, issueCode } from './caller-identity.js';
import { type CallRow, linkCall } from './calls-repository.js';
import { type ToolArguments, toolError } from './voice-tool-declarations.js';
import { NOT_AVAILABLE, type Outcome } from './voice-tool-wording.js';
import { callGate, claimCarrier, laneOnly, linkVerifiedCarrier, refusalOf } from './voice-vetting.js';

/**
 * Makes a carrier from what a caller says (an MC or DOT number) through the compliance check, as
 * POST /carriers would; returns its id.
 */
export type CarrierEnrollment = (
  scope: OrgScope,
  ident: { mc_number: string | null; dot_number: string | null; phone: string | null },
) => Promise<{ id: string }>;

/** A tool's answer, and the call as the tool left it when it changed it. */
export type Answered = { outcome: Outcome; call?: CallRow };

/**
 * The tools of an inbound call: the load the caller asks about, and who the caller is (its MC or
 * DOT number, then the calling number on file or a one-time code).
 */
export class InboundVoiceTools {
  constructor(
    private readonly db: Db,
    private readonly enroll: CarrierEnrollment | null,
    private readonly log: FastifyBaseLogger,
    private readonly sendCode: CodeSender | null,
  ) {}

  /** The load the caller asks about, by number or lane; one match links the call to it. */
  async findLoad(call: CallRow, args: ToolArguments<'find_load'>): Promise<Answered> {
    const scope = systemScope(call.organization_id);
    const origin = args.origin_state?.toUpperCase() ?? null;
    const destination = args.destination_state?.toUpperCase() ?? null;
    const pickup = args.pickup_date;
    const pickupAt = pickup && /^\d{4}-\d{2}-\d{2}$/.test(pickup) ? new Date(`${pickup}T00:00:00Z`) : null;
    let found: { id: string; load_number: string }[];
    if (args.load_number) {
      found = await findLoadsByNumber(this.db, scope.organizationId, args.load_number);
    } else if (origin && destination) {
      // Loads still taking offers on the lane, the pickup nearest the date asked for (else the soonest) first.
      found = await openLoadsOnLane(
        this.db,
        scope.organizationId,
        origin,
        destination,
        pickupAt,
        loadNotBooked,
      );
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
      const loads = await carrierFacingLoads(
        this.db,
        scope.organizationId,
        found.map((f) => f.id),
      );
      const options = loads.map(sayableLoad);
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
    const refused = await refusalOf(this.db, linked, linked.load_id ?? '');
    if (refused)
      return { outcome: { result: NOT_AVAILABLE, metadata: { found: 1, available: false } }, call: linked };
    await this.recordInbound(linked);
    const [facing] = await carrierFacingLoads(this.db, scope.organizationId, [load.id]);
    const facts = sayableLoad(defined(facing, 'the load found'));
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

  /** The caller's carrier by MC or DOT; an unknown one is made through the compliance check. */
  async identifyCarrier(call: CallRow, args: ToolArguments<'identify_carrier'>): Promise<Answered> {
    const scope = systemScope(call.organization_id);
    const mc = digitsOnly(args.mc_number ?? '') || null;
    const dot = digitsOnly(args.dot_number ?? '') || null;
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
  private async linkIdentified(call: CallRow, carrierId: string, name: string | null): Promise<Answered> {
    const linked = await linkVerifiedCarrier(this.db, call.id, carrierId);
    const refused = await refusalOf(this.db, linked, linked.load_id ?? '');
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
        result: `Thank you, ${name ?? 'carrier'} is on file.${linked.load_id ? '' : ' Which load are you calling about?'}`,
        metadata: { carrier_id: carrierId, available: true, identity_verified: true },
      },
      call: linked,
    };
  }

  /** A one-time code to the census e-mail (else phone) of the carrier the caller claims to be. */
  async sendVerificationCode(call: CallRow): Promise<Outcome> {
    if (!call.claimed_carrier_id || call.carrier_id)
      throw toolError('Call identify_carrier first; a caller already verified needs no code');
    if (!this.sendCode) throw toolError('Codes cannot be sent here: transfer the caller to a rep');
    const to = await carrierCensusContact(this.db, call.organization_id, call.claimed_carrier_id);
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

  async verifyCode(call: CallRow, args: ToolArguments<'verify_code'>): Promise<Answered> {
    const checked = await checkCode(this.db, call.id, args.code);
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
