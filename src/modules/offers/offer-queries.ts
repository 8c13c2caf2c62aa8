// Offer reads and SQL fragments other modules use; the offers table stays this module's.

import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { carrierNamesOf } from '../carriers/index.js';
import type { BookedOffer } from '../loads/index.js';
import { offers } from './offers-tables.js';

type OfferRow = typeof offers.$inferSelect;

/**
 * A pending offer on the load a rep could accept as it stands: at or under the posted rate (any
 * pending offer when the load has none).
 */
export async function acceptablePendingOffer(db: DbOrTx, loadId: string, postedRate: number | null) {
  const [row] = await db
    .select({ id: offers.id, amount: offers.offer_amount })
    .from(offers)
    .where(
      and(
        eq(offers.load_id, loadId),
        eq(offers.status, 'pending'),
        postedRate === null ? sql`true` : sql`${offers.offer_amount} <= ${postedRate}`,
      ),
    )
    .limit(1);
  return row ?? null;
}

/** NOT EXISTS of an accepted offer on the load the caller's query names (its id column). */
export const loadNotBooked = (loadId: SQL | AnyPgColumn): SQL =>
  sql`NOT EXISTS (SELECT 1 FROM ${offers} a WHERE a.load_id = ${loadId} AND a.status = 'accepted')`;

/**
 * The active_offers tab over the load the caller's query names (its columns or aliases): a pending
 * offer on a load not booked (pending offers left on a booked load wait on nothing).
 */
export const loadHasActiveOffer = (organizationId: SQL, loadId: SQL): SQL =>
  sql`(EXISTS (SELECT 1 FROM ${offers} x WHERE x.organization_id = ${organizationId} AND x.load_id = ${loadId} AND x.status = 'pending') AND ${loadNotBooked(loadId)})`;

/** The booked tab over the load the caller's query names: it has an accepted offer. */
export const loadIsBooked = (organizationId: SQL, loadId: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM ${offers} a WHERE a.organization_id = ${organizationId} AND a.load_id = ${loadId} AND a.status = 'accepted')`;

/**
 * How many of the organization's loads have an active offer (one row, `n`): the distinct loads of
 * offers_pending_load_idx, less those booked (a probe of the one-accepted-per-load index each).
 */
export const countLoadsWithActiveOffer = (organizationId: string): SQL =>
  sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${offers} WHERE organization_id = ${organizationId} AND status = 'pending') d
    WHERE ${loadNotBooked(sql`d.load_id`)}`;

/**
 * How many of the organization's loads are booked (one row, `n`): its accepted offers, on
 * offers_accepted_load_idx alone, since a load has at most one.
 */
export const countBookedLoads = (organizationId: string): SQL =>
  sql`SELECT count(*)::int AS n FROM ${offers} WHERE organization_id = ${organizationId} AND status = 'accepted'`;

/** The condition on offers: the load's accepted offer, in the organization. */
export const acceptedOn = (scope: OrgScope, loadId: string) =>
  and(
    eq(offers.organization_id, scope.organizationId),
    eq(offers.load_id, loadId),
    eq(offers.status, 'accepted'),
  );

/** The carrier and driver phone of the load's accepted offer, if it has one. */
export async function acceptedOfferOfLoad(db: DbOrTx, scope: OrgScope, loadId: string) {
  const [booked] = await db
    .select({ carrier_id: offers.carrier_id, driver_phone: offers.driver_phone })
    .from(offers)
    .where(acceptedOn(scope, loadId));
  return booked;
}

/** A load's booking as the load view shows it (see bookedOfferSchema). */
export function toBookedOffer(
  row: Pick<OfferRow, 'id' | 'carrier_id' | 'offer_amount' | 'accepted_at' | 'accepted_by' | 'updated_at'>,
  carrier: { name: string; mc_number: string | null } | undefined,
): BookedOffer {
  return {
    offer_id: row.id,
    carrier_id: row.carrier_id,
    carrier_name: carrier?.name ?? null,
    carrier_mc_number: carrier?.mc_number ?? null,
    amount: row.offer_amount,
    // Every accept stamps accepted_at; updated_at only stands in for a row written around them.
    booked_at: row.accepted_at ?? row.updated_at,
    // A row written around the accept paths names nobody: it was not the agent's intake.
    booked_by: row.accepted_by ?? 'user',
  };
}

/**
 * The booking of each of these loads that has one, by load id: their accepted offers (a probe of the
 * one-accepted-per-load index each) and those offers' carriers, in two statements whatever the
 * number of loads (a page of the list, or one load).
 */
export async function bookedOffersOf(
  db: DbOrTx,
  scope: OrgScope,
  loadIds: readonly string[],
): Promise<Map<string, BookedOffer>> {
  const out = new Map<string, BookedOffer>();
  if (loadIds.length === 0) return out;
  const rows = await db
    .select({
      id: offers.id,
      load_id: offers.load_id,
      carrier_id: offers.carrier_id,
      offer_amount: offers.offer_amount,
      accepted_at: offers.accepted_at,
      accepted_by: offers.accepted_by,
      updated_at: offers.updated_at,
    })
    .from(offers)
    .where(
      and(
        eq(offers.organization_id, scope.organizationId),
        sql`${offers.load_id} = ANY(${sql.param([...loadIds])}::text[])`,
        eq(offers.status, 'accepted'),
      ),
    );
  if (rows.length === 0) return out;
  const carrierIds = [...new Set(rows.flatMap((r) => (r.carrier_id ? [r.carrier_id] : [])))];
  const carriers = await carrierNamesOf(db, scope, carrierIds);
  for (const r of rows)
    out.set(r.load_id, toBookedOffer(r, r.carrier_id ? carriers.get(r.carrier_id) : undefined));
  return out;
}

/** Whether a call already recorded an offer on the load (the post-call analysis then records none). */
export async function offerOfCallExists(db: DbOrTx, callId: string, loadId: string) {
  const [row] = await db
    .select({ id: offers.id })
    .from(offers)
    .where(and(eq(offers.call_id, callId), eq(offers.load_id, loadId)))
    .limit(1);
  return row !== undefined;
}
