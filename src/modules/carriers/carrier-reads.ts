// The carrier reads other modules use: one carrier, several, a load's hauler, and their contacts.

import { and, asc, desc, eq, inArray, or } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import type { OrgScope } from '../../domain/scope.js';
import { carrierContacts, carriers } from './carriers-tables.js';

export type CarrierRow = typeof carriers.$inferSelect;

export type ContactRow = typeof carrierContacts.$inferSelect;

export async function contactsOf(
  db: DbOrTx,
  scope: OrgScope,
  carrierIds: string[],
): Promise<Map<string, ContactRow[]>> {
  const out = new Map<string, ContactRow[]>();
  if (carrierIds.length === 0) return out;
  const rows = await db
    .select()
    .from(carrierContacts)
    .where(
      and(
        eq(carrierContacts.organization_id, scope.organizationId),
        inArray(carrierContacts.carrier_id, carrierIds),
      ),
    )
    .orderBy(asc(carrierContacts.carrier_id), asc(carrierContacts.position));
  for (const row of rows) {
    const list = out.get(row.carrier_id) ?? [];
    list.push(row);
    out.set(row.carrier_id, list);
  }
  return out;
}

export async function findCarrier(db: DbOrTx, scope: OrgScope, id: string, forUpdate = false) {
  const query = db
    .select()
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, id)))
    .limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function findCarriers(db: DbOrTx, scope: OrgScope, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), inArray(carriers.id, ids)));
}

/**
 * The carrier a load names as its hauler: matched on our id, then its tms_carrier_id (both from
 * `idOrTmsId`), then the MC number; the earliest created wins a tie.
 */
export async function findHaulingCarrier(
  db: DbOrTx,
  scope: OrgScope,
  idOrTmsId: string | null,
  mcNumber: string | null,
): Promise<CarrierRow | null> {
  const matches = [];
  if (idOrTmsId) matches.push(eq(carriers.id, idOrTmsId), eq(carriers.tms_carrier_id, idOrTmsId));
  if (mcNumber) matches.push(eq(carriers.mc_number, mcNumber.replace(/\D/g, '').replace(/^0+/, '')));
  const [found] = await db
    .select()
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), or(...matches)))
    .orderBy(desc(eq(carriers.id, idOrTmsId ?? '')), asc(carriers.created_at))
    .limit(1);
  return found ?? null;
}

/** The name and phone of one of the carrier's contacts, if the carrier has that contact. */
export async function findContactOfCarrier(
  db: DbOrTx,
  scope: OrgScope,
  carrierId: string,
  contactId: string,
) {
  const [found] = await db
    .select({ name: carrierContacts.name, phone: carrierContacts.phone })
    .from(carrierContacts)
    .where(
      and(
        eq(carrierContacts.organization_id, scope.organizationId),
        eq(carrierContacts.carrier_id, carrierId),
        eq(carrierContacts.id, contactId),
      ),
    );
  return found;
}
