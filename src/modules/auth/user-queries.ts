// The user and organization lookups other modules use.

import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.js';
import { memberships, organizations, users } from './auth-tables.js';

export async function findUserById(db: DbOrTx, id: string) {
  const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return row ?? null;
}

/** The organization's name, and its owner (the oldest OWNER): who takes a call nobody else can. */
export async function organizationContact(db: DbOrTx, organizationId: string) {
  const [org] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, organizationId));
  const [owner] = await db
    .select({ name: users.name, phone: users.phone })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.role, 'OWNER')))
    .orderBy(asc(memberships.created_at))
    .limit(1);
  return { name: org?.name ?? null, ownerName: owner?.name ?? null, ownerPhone: owner?.phone ?? null };
}

/** The organization's id, if it exists. */
export async function findOrganizationId(db: DbOrTx, id: string) {
  const [org] = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id));
  return org;
}

/** A user's name and phone; `userId` may be a subquery (one round trip). */
export async function findUserContact(db: DbOrTx, userId: SQL | string) {
  const [user] = await db
    .select({ name: users.name, phone: users.phone })
    .from(users)
    .where(eq(users.id, userId));
  return user;
}
