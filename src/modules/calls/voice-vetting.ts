import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { firstRow } from '../../db/rows.js';
import { systemScope } from '../../domain/scope.js';
import { findCarrier, passesVetting, readVettingPolicy } from '../carriers/index.js';
import { contactRefusal } from '../outreaches/index.js';
import type { SayableLoad } from './call-script.js';
import type { CallRow } from './calls-repository.js';
import { calls } from './calls-tables.js';

/**
 * Strict mode on a call: until the call's carrier passes (compliance PASSED, risk not high) and, on
 * an inbound call, its identity is verified, the assistant hears no load detail beyond the lane,
 * the dates and the equipment, and no offer is taken.
 */
export async function callGate(db: Db, call: CallRow): Promise<{ strict: boolean; passes: boolean }> {
  const policy = await readVettingPolicy(db, call.organization_id);
  if (!call.carrier_id) return { strict: policy.strict_mode, passes: false };
  const carrier = await findCarrier(db, systemScope(call.organization_id), call.carrier_id);
  return { strict: policy.strict_mode, passes: carrier !== null && passesVetting(carrier) };
}

/** Why the call's carrier may not be offered the load (the contact guard), or null. */
export async function refusalOf(db: Db, call: CallRow, loadId: string) {
  if (!call.carrier_id) return null;
  return contactRefusal(db, systemScope(call.organization_id), call.carrier_id, loadId);
}

/** The facts strict mode lets through before the carrier passes: lane, dates and equipment. */
export function laneOnly(load: SayableLoad) {
  return {
    load_number: load.load_number,
    origin: load.origin,
    destination: load.destination,
    pickup_date: load.pickup_date,
    delivery_date: load.delivery_date,
    equipment_type: load.equipment_type,
    note: 'Only the lane, dates and equipment can be shared until the carrier is verified.',
  };
}

/** Links the call to the carrier the caller says it is, before its identity is verified. */
export async function claimCarrier(db: Db, callId: string, carrierId: string) {
  return firstRow(
    await db
      .update(calls)
      .set({ claimed_carrier_id: carrierId, updated_at: productNow })
      .where(eq(calls.id, callId))
      .returning(),
    'claimCarrier',
  );
}

/** Links the call to its carrier, its identity verified. */
export async function linkVerifiedCarrier(db: Db, callId: string, carrierId: string) {
  return firstRow(
    await db
      .update(calls)
      .set({
        carrier_id: carrierId,
        claimed_carrier_id: carrierId,
        identity_verified_at: productNow,
        updated_at: productNow,
      })
      .where(eq(calls.id, callId))
      .returning(),
    'linkVerifiedCarrier',
  );
}

export const VETTING_PENDING =
  'Before we can take an offer we need to finish verifying your company; a rep will follow up with you shortly.';
