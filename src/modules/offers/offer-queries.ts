// Offer reads and SQL fragments other modules use; the offers table stays this module's.

import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { offers } from './offers-tables.js';

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

/** EXISTS of a pending offer on the load the caller's query names (its columns or aliases). */
export const loadHasPendingOffer = (organizationId: SQL, loadId: SQL): SQL =>
  sql`EXISTS (SELECT 1 FROM ${offers} x WHERE x.organization_id = ${organizationId} AND x.load_id = ${loadId} AND x.status = 'pending')`;

/** How many of the organization's loads have a pending offer (one row, `n`). */
export const countLoadsWithPendingOffer = (organizationId: string): SQL =>
  sql`SELECT count(*)::int AS n FROM (SELECT DISTINCT load_id FROM ${offers} WHERE organization_id = ${organizationId} AND status = 'pending') d`;

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

/** The latest counter-offer made to this carrier on this load, or null when none was. */
export async function counterOffered(db: DbOrTx, loadId: string, carrierId: string): Promise<number | null> {
  const [countered] = await db
    .select({ counter: offers.counter_amount })
    .from(offers)
    .where(
      and(
        eq(offers.load_id, loadId),
        eq(offers.carrier_id, carrierId),
        sql`${offers.counter_amount} IS NOT NULL`,
      ),
    )
    .orderBy(desc(offers.created_at))
    .limit(1);
  return countered?.counter ?? null;
}

/** NOT EXISTS of an accepted offer on the load the caller's query names (its id column). */
export const loadNotBooked = (loadId: SQL | AnyPgColumn): SQL =>
  sql`NOT EXISTS (SELECT 1 FROM ${offers} a WHERE a.load_id = ${loadId} AND a.status = 'accepted')`;
