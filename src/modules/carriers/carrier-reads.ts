// The carrier reads other modules use: one carrier, several, and their contacts.

import { and, asc, eq, inArray } from 'drizzle-orm';
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
