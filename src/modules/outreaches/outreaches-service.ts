import { type AfterCommit, runNow } from '../../db/after-commit.js';
import type { Db, DbOrTx } from '../../db/client.js';
import { tally } from '../../db/list-sql.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { notFound, stateConflict, unprocessable, validationFailed } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { readBack, resultOf, type Written } from '../../domain/written.js';
import type { Clock } from '../../lib/clock.js';
import { defined } from '../../lib/defined.js';
import {
  type CarrierRow,
  contactsOf,
  findCarrier,
  findCarriers,
  findHaulingCarrier,
  toCarrier,
} from '../carriers/index.js';
import {
  findStopOfLoad,
  LOAD_ID_IN_BODY,
  LOAD_ID_IN_PATH,
  type LoadReference,
  requireLoad,
  type StoredStop,
} from '../loads/index.js';
import { contactRefusal } from './contact-guard.js';
import { emitEvent, outreachEventData } from './outreaches-events.js';
import {
  findOutreach,
  findOutreachOfCall,
  insertOutreach,
  listOutreaches,
  type OutreachRow,
  outreachCounts,
} from './outreaches-repository.js';
import type {
  CreateOutreachInput,
  ListOutreachesQuery,
  Outreach,
  OutreachFilters,
  OutreachStats,
  TrackingPromptInput,
} from './outreaches-schemas.js';
import { OUTREACH_MODALITIES, OUTREACH_STATUSES } from './outreaches-tables.js';

type Modality = OutreachRow['modality'];

/** Outreaches with their carrier (the full Carrier shape), in the order given. */
export async function toOutreaches(db: DbOrTx, scope: OrgScope, rows: OutreachRow[]): Promise<Outreach[]> {
  const ids = [...new Set(rows.map((r) => r.carrier_id))];
  const [carrierRows, contacts] = await Promise.all([
    findCarriers(db, scope, ids),
    contactsOf(db, scope, ids),
  ]);
  const byId = new Map(carrierRows.map((c) => [c.id, toCarrier(c, contacts.get(c.id))]));
  return rows.map((r) => ({
    id: r.id,
    carrier: defined(byId.get(r.carrier_id), 'byId.get(r.carrier_id)'),
    carrier_id: r.carrier_id,
    load_id: r.load_id,
    modality: r.modality,
    direction: r.direction,
    created_at: r.created_at,
    updated_at: r.updated_at,
    load_number: r.load_number,
    status: r.status,
    error_reason: r.error_reason,
    delivery_failed_at: r.delivery_failed_at,
    delivery_failure_reason: r.delivery_failure_reason,
    carrier_engaged: r.carrier_engaged,
    is_automated: r.is_automated,
    call_id: r.call_id,
    conversation_id: r.conversation_id,
    send_after: r.send_after,
    sent_at: r.sent_at,
  }));
}

/**
 * Starts the call of an outreach by telephone (the calls module's CallsService.create). The calls
 * module sits above this one, so the composition root hands it in.
 */
export interface OutreachCallStarter {
  create(
    scope: OrgScope,
    input: {
      phone_number: string;
      load_id: string;
      call_type: 'LOAD_BOOKING' | null;
      template_variables: Record<string, unknown>;
    },
    context: { carrier_id: string },
  ): Promise<{ id: string }>;
}

/** The load's accepted offer, when it has one (the offers module's, handed in by the composition root). */
export type AcceptedOfferReader = (
  scope: OrgScope,
  loadId: string,
) => Promise<{ carrier_id: string | null; driver_phone: string | null } | undefined>;

export class OutreachesService {
  constructor(
    private readonly db: Db,
    private readonly calls: OutreachCallStarter,
    /** Puts e-mail and WhatsApp outreaches on their channel. */
    private readonly messenger: { sendOrFail(outreach: OutreachRow): Promise<void> },
    private readonly acceptedOffer: AcceptedOfferReader,
    private readonly clock: Clock,
    private readonly reads: LaggedReads = onPrimary(db),
    /** When a message may be sent: after the commit of the handle's transaction (db/after-commit.ts). */
    private readonly afterCommit: AfterCommit = runNow,
  ) {}

  private async one(scope: OrgScope, row: OutreachRow): Promise<Outreach> {
    return defined((await toOutreaches(this.db, scope, [row]))[0], 'toOutreaches');
  }

  async get(scope: OrgScope, id: string): Promise<Outreach> {
    const row = await findOutreach(this.db, scope, id);
    if (!row) throw notFound('Outreach', id, 'outreach_id');
    return this.one(scope, row);
  }

  async list(scope: OrgScope, q: ListOutreachesQuery) {
    const { page, page_size, order_by, order_desc, ...filters } = q;
    const sort = { field: order_by ?? 'created_at', desc: order_desc ?? true };
    return this.reads.read(scope, async (db) => {
      const { rows, total } = await listOutreaches(db, scope, filters, sort, { page, page_size });
      return { data: await toOutreaches(db, scope, rows), pagination: pagination(page, page_size, total) };
    });
  }

  /** GET /outreaches/stats: the list's matches counted per status and modality. */
  async stats(scope: OrgScope, q: OutreachFilters): Promise<OutreachStats> {
    const rows = await this.reads.read(scope, (db) => outreachCounts(db, scope, q));
    return {
      total_count: rows.reduce((sum, r) => sum + r.n, 0),
      by_status: tally(OUTREACH_STATUSES, rows, (r) => r.status),
      by_modality: tally(OUTREACH_MODALITIES, rows, (r) => r.modality),
    };
  }

  /** POST /outreaches: contact the carrier about the load now, if the contact guard allows it. */
  async create(scope: OrgScope, input: CreateOutreachInput): Promise<Written<Outreach>> {
    const load = await this.requireLoad(scope, input.load_id, LOAD_ID_IN_BODY);
    const carrier = await findCarrier(this.db, scope, input.carrier_id);
    if (!carrier) {
      throw unprocessable('validation_error', `Carrier '${input.carrier_id}' does not exist`, 'carrier_id');
    }
    await this.guard(scope, carrier.id, load.id);
    const written = await this.contact(scope, carrier, load, input.modality, null, {
      purpose: 'load_booking',
    });
    if ('unread' in written) return written;
    const row = written.result;
    return readBack({ created: true, id: row.id }, () => this.one(scope, row));
  }

  /**
   * POST /tracking/loads/{id}/prompt: a check with the carrier hauling the load (its driver when the
   * booked offer or the load names one), by call, e-mail or WhatsApp.
   */
  async trackingPrompt(scope: OrgScope, loadId: string, input: TrackingPromptInput): Promise<Outreach> {
    const load = await this.requireLoad(scope, loadId, LOAD_ID_IN_PATH);
    let stop: StoredStop | undefined;
    if (input.stop_id) {
      stop = await findStopOfLoad(this.db, scope, load.id, input.stop_id);
      if (!stop) {
        throw validationFailed(
          'body',
          ['stop_id'],
          `Stop '${input.stop_id}' is not a stop of load '${load.id}'`,
        );
      }
    }
    const hauling = await this.haulingCarrier(scope, load);
    if (!hauling) {
      throw unprocessable(
        'validation_error',
        `Load '${load.id}' has no hauling carrier on file: accept an offer or send hauling_carrier_id first`,
        'load_id',
        'path',
      );
    }
    await this.guard(scope, hauling.carrier.id, load.id);
    const modality: Modality = input.channel === 'voice' ? 'call' : input.channel;
    const written = await this.contact(scope, hauling.carrier, load, modality, hauling.driverPhone, {
      purpose: 'tracking_check',
      instructions: input.instructions,
      ...(stop
        ? {
            stop_id: stop.id,
            stop: {
              type: stop.type ?? null,
              city: stop.city,
              state: stop.state,
              expected_date: stop.expected_date ?? null,
            },
          }
        : {}),
    });
    return this.one(scope, resultOf(written));
  }

  private requireLoad(scope: OrgScope, loadId: string, ref: LoadReference) {
    return requireLoad(this.db, scope, loadId, ref, [
      'id',
      'load_number',
      'hauling_carrier_id',
      'hauling_carrier_mc_number',
      'driver',
    ]);
  }

  private async guard(scope: OrgScope, carrierId: string, loadId: string) {
    const refusal = await contactRefusal(this.db, scope, carrierId, loadId);
    if (refusal) {
      throw stateConflict('contact_not_allowed', `${refusal.message}: not contacted`, 'carrier_id');
    }
  }

  /**
   * The carrier moving the load: the accepted offer's, else the load's hauling carrier matched on
   * our id, the caller's tms_carrier_id, then the MC number. The driver's phone: the accepted offer's,
   * else the load's driver contact.
   */
  private async haulingCarrier(
    scope: OrgScope,
    load: Awaited<ReturnType<OutreachesService['requireLoad']>>,
  ): Promise<{ carrier: CarrierRow; driverPhone: string | null } | null> {
    const booked = await this.acceptedOffer(scope, load.id);
    let carrier = booked?.carrier_id ? await findCarrier(this.db, scope, booked.carrier_id) : null;
    if (!carrier && (load.hauling_carrier_id || load.hauling_carrier_mc_number)) {
      carrier = await findHaulingCarrier(
        this.db,
        scope,
        load.hauling_carrier_id,
        load.hauling_carrier_mc_number,
      );
    }
    if (!carrier) return null;
    return { carrier, driverPhone: booked?.driver_phone ?? load.driver?.phone ?? null };
  }

  /**
   * Starts the contact. A call goes through the voice provider, which opens and then follows the
   * call outreach. An e-mail or WhatsApp message is recorded as sent (`active`) until the carrier
   * answers, or the sweeper marks it `no_response`. A message's outreach is read back after it was
   * sent (see Written); a call's is found by its call, so without that read its id is not known.
   */
  private async contact(
    scope: OrgScope,
    carrier: CarrierRow,
    load: { id: string; load_number: string },
    modality: Modality,
    preferredPhone: string | null,
    variables: Record<string, unknown>,
  ): Promise<Written<OutreachRow>> {
    const contacts = (await contactsOf(this.db, scope, [carrier.id])).get(carrier.id) ?? [];
    if (modality === 'call') {
      const phone =
        preferredPhone ?? carrier.phone ?? carrier.dispatcher_phone ?? contacts.find((c) => c.phone)?.phone;
      if (!phone) throw this.unreachable(carrier.id, 'phone number');
      const call = await this.calls.create(
        scope,
        {
          phone_number: phone,
          load_id: load.id,
          call_type: variables.purpose === 'load_booking' ? 'LOAD_BOOKING' : null,
          template_variables: variables,
        },
        { carrier_id: carrier.id },
      );
      const row = defined(await findOutreachOfCall(this.db, scope, call.id), 'findOutreachOfCall');
      return { created: true, result: row };
    }
    const address =
      modality === 'email'
        ? (carrier.email ?? carrier.dispatcher_email ?? contacts.find((c) => c.email)?.email)
        : (preferredPhone ??
          carrier.phone ??
          carrier.dispatcher_phone ??
          contacts.find((c) => c.phone)?.phone);
    if (!address)
      throw this.unreachable(carrier.id, modality === 'email' ? 'e-mail address' : 'phone number');
    const row = await this.db.transaction(async (tx) => {
      const inserted = await insertOutreach(tx, scope, {
        id: newId('outreach'),
        carrier_id: carrier.id,
        load_id: load.id,
        load_number: load.load_number,
        modality,
        direction: 'outbound',
        status: 'active',
        address,
        sent_at: this.clock.now(),
        conversation_id: newId('conversation'),
      });
      await emitEvent(tx, scope.organizationId, 'outreach.created', outreachEventData(inserted));
      return inserted;
    });
    // Sent once the outreach is committed (a keyed request's too): never a message without its record.
    await this.afterCommit(() => this.messenger.sendOrFail(row));
    return readBack({ created: true, id: row.id }, async () =>
      defined(await findOutreach(this.db, scope, row.id), 'findOutreach'),
    );
  }

  private unreachable(carrierId: string, what: string) {
    return unprocessable('validation_error', `Carrier '${carrierId}' has no ${what} on file`, 'carrier_id');
  }
}
