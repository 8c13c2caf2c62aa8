// The carrier reads other modules use: one carrier, several, a load's hauler, their contacts, and
// whether a number is one the carrier is known by.

import { and, asc, desc, eq, inArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { toE164 } from '../../domain/phone.js';
import type { OrgScope } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
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

/** What placing a call reads of the carrier it reaches. */
const CALLEE = {
  id: carriers.id,
  name: carriers.name,
  mc_number: carriers.mc_number,
  stop: carriers.stop_contact_requested_at,
};

/** The carrier a call is for, by id. */
export async function calleeById(db: DbOrTx, scope: OrgScope, id: string) {
  const [row] = await db
    .select(CALLEE)
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), eq(carriers.id, id)));
  return row ?? null;
}

/** Carriers of the organization reachable at this number (their phone, dispatcher or a contact). */
export async function carriersAtNumber(db: DbOrTx, scope: OrgScope, phone: string) {
  return db
    .select(CALLEE)
    .from(carriers)
    .where(
      and(
        eq(carriers.organization_id, scope.organizationId),
        or(
          eq(carriers.phone, phone),
          eq(carriers.dispatcher_phone, phone),
          sql`EXISTS (SELECT 1 FROM ${carrierContacts} WHERE ${carrierContacts.carrier_id} = ${carriers.id}
                      AND ${carrierContacts.organization_id} = ${scope.organizationId} AND ${carrierContacts.phone} = ${phone})`,
        ),
      ),
    )
    .orderBy(asc(carriers.created_at));
}

/** The organization's first carrier with this MC number (else, with no MC, this DOT number). */
export async function findCarrierIdByNumber(
  db: DbOrTx,
  scope: OrgScope,
  mc: string | null,
  dot: string | null,
) {
  const [known] = await db
    .select({ id: carriers.id })
    .from(carriers)
    .where(
      and(
        eq(carriers.organization_id, scope.organizationId),
        mc ? eq(carriers.mc_number, mc) : eq(carriers.dot_number, defined(dot, 'dot')),
      ),
    )
    .orderBy(asc(carriers.created_at))
    .limit(1);
  return known;
}

/** A carrier's name, by id alone. */
export async function carrierNameOf(db: DbOrTx, id: string) {
  const [carrier] = await db.select({ name: carriers.name }).from(carriers).where(eq(carriers.id, id));
  return carrier;
}

/** The name and MC number of each of these carriers of the organization, by id. */
export async function carrierNamesOf(db: DbOrTx, scope: OrgScope, ids: string[]) {
  const out = new Map<string, { name: string; mc_number: string | null }>();
  if (ids.length === 0) return out;
  const rows = await db
    .select({ id: carriers.id, name: carriers.name, mc_number: carriers.mc_number })
    .from(carriers)
    .where(and(eq(carriers.organization_id, scope.organizationId), inArray(carriers.id, ids)));
  for (const r of rows) out.set(r.id, { name: r.name, mc_number: r.mc_number });
  return out;
}

/**
 * Whether `from` is a number the carrier is known by: its census phone, or (for a carrier on file
 * before this call: a caller's own number proves nothing) its phone, dispatcher phone or a contact's.
 */
export async function callerNumberMatches(
  db: DbOrTx,
  organizationId: string,
  carrierId: string,
  from: string | null,
  includeOnFile: boolean,
): Promise<boolean> {
  const number = from ? toE164(from) : null;
  if (!number) return false;
  const rows = await db.execute(sql`
    SELECT 1 FROM carriers c
    WHERE c.organization_id = ${organizationId} AND c.id = ${carrierId}
      AND (c.census_phone = ${number}
        OR (${includeOnFile} AND (c.phone = ${number} OR c.dispatcher_phone = ${number}
          OR EXISTS (SELECT 1 FROM carrier_contacts cc
                     WHERE cc.organization_id = c.organization_id AND cc.carrier_id = c.id AND cc.phone = ${number}))))
    LIMIT 1`);
  return rows.rows.length > 0;
}

/** The e-mail and phone the carrier has on file with FMCSA, and its name. */
export async function carrierCensusContact(db: DbOrTx, organizationId: string, carrierId: string) {
  const rows = await db.execute<{ email: string | null; phone: string | null; name: string }>(sql`
    SELECT census_email AS email, census_phone AS phone, name FROM carriers
    WHERE organization_id = ${organizationId} AND id = ${carrierId}`);
  return rows.rows[0] ?? null;
}
