import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { calls } from '../../src/modules/calls/calls-tables.js';
import { carriers } from '../../src/modules/carriers/carriers-tables.js';
import { carrierVerifications, escalations, notifications } from '../../src/modules/loads/loads-tables.js';
import { offers } from '../../src/modules/offers/offers-tables.js';
import { outreaches } from '../../src/modules/outreaches/outreaches-tables.js';
import type { TestApp } from './app.js';

const unique = () => randomBytes(5).toString('hex');

export interface StopOptions {
  city?: string;
  state?: string;
  date?: string;
}

export function stopPayload(type: 'Pickup' | 'Dropoff', o: StopOptions = {}): Record<string, unknown> {
  return {
    type,
    location: {
      city: o.city ?? (type === 'Pickup' ? 'Chicago' : 'Dallas'),
      state: o.state ?? (type === 'Pickup' ? 'IL' : 'TX'),
    },
    expected_date: o.date ?? (type === 'Pickup' ? '2026-03-02T14:00:00Z' : '2026-03-04T18:00:00Z'),
  };
}

/** A valid POST /loads body: a unique load number and a pickup and a drop-off. */
export function loadPayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    load_number: `LN-${unique()}`,
    equipment_type: 'VAN',
    stops: [stopPayload('Pickup'), stopPayload('Dropoff')],
    ...overrides,
  };
}

/** Creates a load through POST /loads and returns its id. */
export async function createLoad(
  t: TestApp,
  headers: Record<string, string>,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/loads',
    headers,
    payload: loadPayload(overrides),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().load_id;
}

// Rows the load list reads, written straight through the tables. Offers, calls and outreaches have
// endpoints now (prefer them in new tests); notifications, verifications and escalations do not yet.

/** A bare carrier row with this id in the organization (created once), so rows can point at it. */
export async function ensureCarrier(t: TestApp, orgId: string, id = `car_${unique()}`): Promise<string> {
  await t.database.db
    .insert(carriers)
    .values({ id, organization_id: orgId, name: `Carrier ${id}` })
    .onConflictDoNothing();
  return id;
}

export async function addOffer(
  t: TestApp,
  orgId: string,
  loadId: string,
  o: { amount?: number; carrierId?: string | null; status?: 'pending' | 'accepted' | 'rejected' } = {},
) {
  const carrierId = o.carrierId === null ? null : await ensureCarrier(t, orgId, o.carrierId);
  const id = newId('offer');
  const accepted = o.status === 'accepted';
  // An accepted row as a PATCH leaves it (stamped, by a user), without the booking's side effects.
  await t.database.db.insert(offers).values({
    id,
    organization_id: orgId,
    load_id: loadId,
    offer_amount: o.amount ?? 1500,
    carrier_id: carrierId,
    status: o.status ?? 'pending',
    accepted_at: accepted ? new Date() : null,
    accepted_by: accepted ? 'user' : null,
  });
  return id;
}

export async function addCall(t: TestApp, orgId: string, loadId: string, createdAt?: Date) {
  const id = newId('call');
  await t.database.db.insert(calls).values({
    id,
    organization_id: orgId,
    load_id: loadId,
    status: 'COMPLETED',
    call_direction: 'OUTBOUND',
    to_number: '+14155552671',
    ...(createdAt ? { created_at: createdAt, call_time: createdAt } : {}),
  });
  return id;
}

export async function addOutreach(
  t: TestApp,
  orgId: string,
  loadId: string,
  status: 'pending' | 'active' | 'completed' | 'failed' | 'no_response' = 'active',
) {
  await t.database.db.insert(outreaches).values({
    id: newId('outreach'),
    organization_id: orgId,
    load_id: loadId,
    carrier_id: await ensureCarrier(t, orgId),
    modality: 'call',
    status,
  });
}

export async function addNotification(t: TestApp, orgId: string, loadId: string, read = false) {
  await t.database.db.insert(notifications).values({
    id: newId('notification'),
    organization_id: orgId,
    load_id: loadId,
    type: 'load_update',
    message: 'Something changed',
    read_at: read ? new Date() : null,
  });
}

export async function addVerification(
  t: TestApp,
  orgId: string,
  loadId: string,
  status: 'BLOCKED' | 'PASSED' = 'BLOCKED',
) {
  const id = newId('verification');
  await t.database.db.insert(carrierVerifications).values({
    id,
    organization_id: orgId,
    load_id: loadId,
    carrier_id: await ensureCarrier(t, orgId),
    source: 'call',
    status,
    reasons: ['Authority not active'],
  });
  return id;
}

export async function addEscalation(
  t: TestApp,
  orgId: string,
  loadId: string,
  status: 'ACTIVE' | 'RESPONDED' | 'TIMED_OUT' | 'CANCELLED' = 'ACTIVE',
) {
  const id = newId('escalation');
  await t.database.db.insert(escalations).values({
    id,
    organization_id: orgId,
    load_id: loadId,
    agent_type: 'CARRIER_SALES',
    message: 'The carrier asked for a human',
    status,
    reason: 'Carrier asked for a human',
  });
  return id;
}

/** A rep's offer from the carrier on the load (POST /offers), accepted (PATCH): the load booked on it. */
export async function bookOn(
  t: TestApp,
  headers: Record<string, string>,
  loadId: string,
  carrierId: string,
  amount: number,
): Promise<string> {
  const offer = await t.app.inject({
    method: 'POST',
    url: '/api/v1/offers',
    headers,
    payload: { load_id: loadId, carrier_id: carrierId, offer_amount: amount },
  });
  expect(offer.statusCode, offer.body).toBe(201);
  const accepted = await t.app.inject({
    method: 'PATCH',
    url: `/api/v1/offers/${offer.json().id}`,
    headers,
    payload: { status: 'accepted' },
  });
  expect(accepted.statusCode, accepted.body).toBe(200);
  return offer.json().id;
}

/** An escalation as the API answers it, not responded to: `fields` say the rest. */
export const escalationBody = (fields: Record<string, unknown>) => ({
  id: expect.stringMatching(/^esc_/),
  escalation_type: null,
  status: 'ACTIVE',
  call_id: null,
  offer_id: null,
  response_message: null,
  response_user_id: null,
  responded_at: null,
  resolved_at: null,
  created_at: expect.any(String),
  updated_at: expect.any(String),
  ...fields,
});
