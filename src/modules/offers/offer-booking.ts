// A load booked on an offer, and the booking undone: what follows an offer becoming accepted or
// leaving accepted, whichever path wrote it. The load shows its booking from the accepted offer
// itself (bookedOffersOf), so nothing here writes the load: its load_status stays the TMS's.

import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { carrierNamesOf } from '../carriers/index.js';
import { findLoadFields } from '../loads/index.js';
import { cancelAutomatedOutreaches } from '../outreaches/index.js';
import { toBookedOffer } from './offer-queries.js';
import { emitEvent } from './offers-events.js';
import type { OfferRow } from './offers-repository.js';

/** The load's ids and status, as load.* events carry them. */
async function loadIdentity(tx: DbOrTx, scope: OrgScope, loadId: string) {
  const load = await findLoadFields(tx, scope.organizationId, loadId, [
    'tms_load_id',
    'external_id',
    'load_number',
    'load_status',
  ]);
  return {
    load_id: loadId,
    tms_load_id: load?.tms_load_id ?? null,
    external_id: load?.external_id ?? null,
    load_number: load?.load_number ?? null,
    load_status: load?.load_status ?? null,
  };
}

/** The booking an accepted offer makes (or made), with its carrier's name and MC number now. */
async function bookingOf(tx: DbOrTx, scope: OrgScope, offer: OfferRow) {
  const carriers = await carrierNamesOf(tx, scope, offer.carrier_id ? [offer.carrier_id] : []);
  return toBookedOffer(offer, offer.carrier_id ? carriers.get(offer.carrier_id) : undefined);
}

/**
 * THE booking of a load. Every path that makes an offer accepted calls it (OffersService.setStatus
 * for a rep's or an API client's PATCH, OfferIntake.receive for the agent's automatic booking),
 * right after writing the offer accepted (`accepted_by` saying who), in that transaction and with
 * the load's row locked, so it runs once per booking: a second accept on the load waits for the
 * lock and is refused. The agent's queued contacts for the load are withdrawn and `load.booked`
 * is emitted.
 */
export async function bookLoad(tx: DbOrTx, scope: OrgScope, offer: OfferRow): Promise<void> {
  if (offer.status !== 'accepted') throw new Error(`bookLoad: offer ${offer.id} is ${offer.status}`);
  await cancelAutomatedOutreaches(
    tx,
    { loadId: offer.load_id },
    `cancelled: load booked on offer ${offer.id}`,
  );
  await emitEvent(tx, scope.organizationId, 'load.booked', async () => ({
    ...(await loadIdentity(tx, scope, offer.load_id)),
    booked_offer: await bookingOf(tx, scope, offer),
  }));
}

/**
 * THE undoing of a booking. Every path that moves an accepted offer out of accepted calls it
 * (OffersService.setStatus: PATCH to pending or rejected), right after writing the offer, in that
 * transaction and with the load's row locked. `booked` is the offer as it was while accepted;
 * `status` what it became. `load.unbooked` is emitted with the booking undone, so a subscriber to
 * load.booked learns of it without reading offer events. Contacts withdrawn at the booking stay
 * withdrawn; the agent picks the load up again on its next round if it still works it.
 */
export async function unbookLoad(
  tx: DbOrTx,
  scope: OrgScope,
  booked: OfferRow,
  status: 'pending' | 'rejected',
): Promise<void> {
  if (booked.status !== 'accepted') throw new Error(`unbookLoad: offer ${booked.id} was ${booked.status}`);
  await emitEvent(tx, scope.organizationId, 'load.unbooked', async () => ({
    ...(await loadIdentity(tx, scope, booked.load_id)),
    offer_status: status,
    previous_booked_offer: await bookingOf(tx, scope, booked),
  }));
}
