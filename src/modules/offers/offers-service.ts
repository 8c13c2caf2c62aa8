import type { Db, DbOrTx } from '../../db/client.js';
import { tally } from '../../db/list-sql.js';
import { violatesUnique } from '../../db/pg-errors.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { notFound, stateConflict, unprocessable } from '../../domain/errors.js';
import { isBookable } from '../../domain/freight.js';
import { newId } from '../../domain/ids.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope } from '../../domain/scope.js';
import { readBack, type Written } from '../../domain/written.js';
import { defined } from '../../lib/defined.js';
import { findUserById } from '../auth/index.js';
import { contactsOf, findCarrier, findCarriers, findContactOfCarrier, toCarrier } from '../carriers/index.js';
import { LOAD_ID_IN_BODY, LOAD_ID_IN_PATH, offerDecided, requireLoad } from '../loads/index.js';
import { bookLoad, unbookLoad } from './offer-booking.js';
import { emitEvent } from './offers-events.js';
import {
  acceptedOfferOf,
  findOffer,
  findOffers,
  insertOffer,
  listOffers,
  type OfferRow,
  offerCounts,
  setOfferStatus,
} from './offers-repository.js';
import type {
  CreateOfferInput,
  ListLoadOffersQuery,
  ListOffersQuery,
  Offer,
  OfferFilters,
  OfferStats,
} from './offers-schemas.js';
import { OFFER_CHANNELS, OFFER_SOURCES, OFFER_STATUSES } from './offers-tables.js';

const ONE_ACCEPTED = 'offers_one_accepted_per_load_key';

/** Whether `err` violates the one-accepted-offer index. */
const violatesOneAccepted = (err: unknown) => violatesUnique(err, ONE_ACCEPTED);

const alreadyAccepted = (loadId: string, other: string | null) =>
  stateConflict(
    'offer_already_accepted',
    `Only one offer may be accepted per load: load '${loadId}' is already booked${other ? ` on offer '${other}'` : ''}`,
    'status',
  );

/** Offers with their carrier (the full Carrier shape, nested), in the order given. */
export async function toOffers(db: DbOrTx, scope: OrgScope, rows: OfferRow[]): Promise<Offer[]> {
  const ids = [...new Set(rows.map((r) => r.carrier_id).filter((id): id is string => id !== null))];
  const [carrierRows, contacts] = await Promise.all([
    findCarriers(db, scope, ids),
    contactsOf(db, scope, ids),
  ]);
  const byId = new Map(carrierRows.map((c) => [c.id, toCarrier(c, contacts.get(c.id))]));
  return rows.map((r) => ({
    id: r.id,
    tms_load_id: r.tms_load_id,
    load_id: r.load_id,
    offer_amount: r.offer_amount,
    status: r.status,
    source: r.source,
    created_at: r.created_at,
    updated_at: r.updated_at,
    carrier_id: r.carrier_id,
    contact_id: r.contact_id,
    call_id: r.call_id,
    email_message_id: r.email_message_id,
    notes: r.notes,
    channel: r.channel,
    accepted_at: r.accepted_at,
    created_by_id: r.created_by_id,
    updated_by_id: r.updated_by_id,
    truck_number: r.truck_number,
    trailer_number: r.trailer_number,
    driver_name: r.driver_name,
    driver_phone: r.driver_phone,
    load_number: r.load_number,
    carrier: r.carrier_id ? (byId.get(r.carrier_id) ?? null) : null,
    contact_name: r.contact_name,
    contact_phone: r.contact_phone,
    email_conversation_id: r.email_conversation_id,
    rep_name: r.rep_name,
    counter_offer_amount: r.counter_amount,
    held_for: r.held_for,
  }));
}

/** The organization's offers among `ids`, each with its carrier, keyed by id. */
export async function offersById(db: DbOrTx, scope: OrgScope, ids: string[]): Promise<Map<string, Offer>> {
  const rows = await findOffers(db, scope, ids);
  return new Map((await toOffers(db, scope, rows)).map((o) => [o.id, o]));
}

/** offer.created / offer.status_changed with the public Offer shape, in the caller's transaction. */
export async function emitOfferEvent(
  tx: DbOrTx,
  scope: OrgScope,
  type: 'offer.created' | 'offer.status_changed',
  row: OfferRow,
  extra: Record<string, unknown> = {},
) {
  await emitEvent(tx, scope.organizationId, type, async () => {
    const [offer] = await toOffers(tx, scope, [row]);
    return { ...offer, ...extra };
  });
}

export class OffersService {
  constructor(
    private readonly db: Db,
    private readonly reads: LaggedReads = onPrimary(db),
  ) {}

  private async one(scope: OrgScope, row: OfferRow): Promise<Offer> {
    return defined((await toOffers(this.db, scope, [row]))[0], 'toOffers');
  }

  async get(scope: OrgScope, id: string): Promise<Offer> {
    const row = await findOffer(this.db, scope, id);
    if (!row) throw notFound('Offer', id, 'offer_id');
    return this.one(scope, row);
  }

  /** POST /offers: an offer entered by a rep or an API client (`channel` null, `source` api). */
  async create(scope: OrgScope, input: CreateOfferInput): Promise<Written<Offer>> {
    const load = await requireLoad(this.db, scope, input.load_id, LOAD_ID_IN_BODY, [
      'id',
      'tms_load_id',
      'load_number',
    ]);
    if (input.carrier_id && !(await findCarrier(this.db, scope, input.carrier_id))) {
      throw unprocessable('validation_error', `Carrier '${input.carrier_id}' does not exist`, 'carrier_id');
    }
    let contact: { name: string | null; phone: string | null } | null = null;
    if (input.contact_id) {
      if (!input.carrier_id) {
        throw unprocessable(
          'validation_error',
          'contact_id needs the carrier_id it belongs to',
          'contact_id',
        );
      }
      const found = await findContactOfCarrier(this.db, scope, input.carrier_id, input.contact_id);
      if (!found) {
        throw unprocessable(
          'validation_error',
          `Contact '${input.contact_id}' is not a contact of carrier '${input.carrier_id}'`,
          'contact_id',
        );
      }
      contact = found;
    }
    const user = scope.principal.userId ? await findUserById(this.db, scope.principal.userId) : null;
    const row = await this.db.transaction(async (tx) => {
      const inserted = await insertOffer(tx, scope, {
        id: newId('offer'),
        load_id: load.id,
        tms_load_id: load.tms_load_id,
        load_number: load.load_number,
        offer_amount: input.offer_amount,
        status: 'pending',
        source: 'api',
        channel: null,
        carrier_id: input.carrier_id ?? null,
        contact_id: input.contact_id ?? null,
        contact_name: contact?.name ?? null,
        contact_phone: contact?.phone ?? null,
        notes: input.notes ?? null,
        truck_number: input.truck_number ?? null,
        trailer_number: input.trailer_number ?? null,
        driver_name: input.driver_name ?? null,
        driver_phone: input.driver_phone ?? null,
        created_by_id: scope.principal.userId,
        updated_by_id: scope.principal.userId,
        rep_name: scope.principal.kind === 'bearer' ? (user?.name ?? user?.email ?? null) : null,
      });
      await emitOfferEvent(tx, scope, 'offer.created', inserted);
      return inserted;
    });
    return readBack({ created: true, id: row.id }, () => this.one(scope, row));
  }

  /**
   * PATCH: moves freely between pending, accepted and rejected, except that a load takes one
   * accepted offer and a Cancelled or Delivered load none. Every change takes the load's row lock
   * first (as the intake does), then reads the offer again: changes to the offers of one load queue
   * up, each sees the one before, and an accept or an un-accept is booked (bookLoad) or undone
   * (unbookLoad) exactly once. The partial unique index is the last word if anything slips past.
   */
  async setStatus(scope: OrgScope, id: string, status: OfferRow['status']): Promise<Written<Offer>> {
    try {
      const row = await this.db.transaction(async (tx) => {
        const found = await findOffer(tx, scope, id);
        if (!found) throw notFound('Offer', id, 'offer_id');
        if (found.status === status) return found;
        const load = await requireLoad(tx, scope, found.load_id, LOAD_ID_IN_PATH, ['load_status'], true);
        const current = await findOffer(tx, scope, id, true);
        if (!current) throw notFound('Offer', id, 'offer_id');
        if (current.status === status) return current;
        if (status === 'accepted') {
          if (!isBookable(load.load_status)) {
            throw stateConflict(
              'load_not_bookable',
              `Load '${current.load_id}' is ${load.load_status} and cannot be booked`,
              'status',
            );
          }
          const other = await acceptedOfferOf(tx, scope, current.load_id, id);
          if (other) throw alreadyAccepted(current.load_id, other);
        }
        const updated = defined(
          await setOfferStatus(tx, scope, id, status, scope.principal.userId),
          'setOfferStatus',
        );
        await emitOfferEvent(tx, scope, 'offer.status_changed', updated, { previous_status: current.status });
        if (updated.status === 'accepted') await bookLoad(tx, scope, updated);
        else if (current.status === 'accepted') await unbookLoad(tx, scope, current, updated.status);
        await offerDecided(tx, scope, updated, `Offer ${updated.status} (it was ${current.status})`);
        return updated;
      });
      return readBack({ created: false, id }, () => this.one(scope, row));
    } catch (err) {
      if (violatesOneAccepted(err)) {
        const current = await findOffer(this.db, scope, id);
        throw alreadyAccepted(current?.load_id ?? '?', null);
      }
      throw err;
    }
  }

  async list(scope: OrgScope, q: ListOffersQuery) {
    const { page, page_size, order_by, order_desc, ...filters } = q;
    const sort = { field: order_by ?? 'created_at', desc: order_desc ?? true };
    return this.reads.read(scope, async (db) => {
      const { rows, total } = await listOffers(db, scope, filters, sort, { page, page_size });
      return { data: await toOffers(db, scope, rows), pagination: pagination(page, page_size, total) };
    });
  }

  async forLoad(scope: OrgScope, loadId: string, q: ListLoadOffersQuery) {
    await requireLoad(this.db, scope, loadId, LOAD_ID_IN_PATH);
    return this.list(scope, { ...q, load_id: loadId });
  }

  /** GET /offers/stats: the list's matches counted per status, channel and source. */
  async stats(scope: OrgScope, q: OfferFilters): Promise<OfferStats> {
    const rows = await offerCounts(this.db, scope, q);
    return {
      total_count: rows.reduce((sum, r) => sum + r.n, 0),
      by_status: tally(OFFER_STATUSES, rows, (r) => r.status),
      by_channel: tally([...OFFER_CHANNELS, 'none'], rows, (r) => r.channel),
      by_source: tally(OFFER_SOURCES, rows, (r) => r.source),
    };
  }
}
