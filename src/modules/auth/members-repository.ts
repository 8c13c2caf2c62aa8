import { and, asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../db/client.js';
import { firstRow } from '../../db/rows.js';
import { newId } from '../../domain/ids.js';
import { offsetOf } from '../../domain/pagination.js';
import type { Role } from '../../domain/scope.js';
import { memberships, users } from './auth-tables.js';
import { invitations } from './invitations-tables.js';

export type InvitationRow = typeof invitations.$inferSelect;

/** Who is on the team: members, and pending invitations (current or expired). */
export const TEAM_STATUSES = ['active', 'invited', 'expired'] as const;
export type TeamStatus = (typeof TEAM_STATUSES)[number];

export interface TeamRow {
  status: TeamStatus;
  user_id: string | null;
  invitation_id: string | null;
  email: string;
  name: string | null;
  phone: string | null;
  role: Role;
  joined_at: Date | null;
  invited_at: Date | null;
  invitation_expires_at: Date | null;
}

/**
 * Members (oldest first), then pending invitations (oldest first), as one list; an invitation is
 * expired once the wall clock's `now` reached its end.
 */
const team = (organizationId: string, now: Date) => sql`
  WITH team AS (
    SELECT 'active' AS status, 0 AS rank, m.created_at AS at, m.id AS tie,
           u.id AS user_id, NULL::text AS invitation_id, u.email, u.name, u.phone, m.role,
           m.created_at AS joined_at, NULL::timestamptz AS invited_at,
           NULL::timestamptz AS invitation_expires_at
      FROM ${memberships} m JOIN ${users} u ON u.id = m.user_id
     WHERE m.organization_id = ${organizationId}
    UNION ALL
    SELECT CASE WHEN i.expires_at > ${now}::timestamptz THEN 'invited' ELSE 'expired' END, 1, i.created_at, i.id,
           NULL, i.id, i.email, i.name, NULL, i.role, NULL, i.created_at, i.expires_at
      FROM ${invitations} i
     WHERE i.organization_id = ${organizationId} AND i.status = 'pending'
  )`;

export async function listTeam(
  db: DbOrTx,
  organizationId: string,
  statuses: TeamStatus[] | undefined,
  page: number,
  pageSize: number,
  now: Date,
) {
  const filter = statuses?.length
    ? sql`WHERE status IN (${sql.join(
        statuses.map((s) => sql`${s}`),
        sql`, `,
      )})`
    : sql``;
  const [rows, counted] = await Promise.all([
    db.execute<TeamRow & Record<string, unknown>>(sql`${team(organizationId, now)}
      SELECT status, user_id, invitation_id, email, name, phone, role, joined_at, invited_at,
             invitation_expires_at
        FROM team ${filter}
       ORDER BY rank, at, tie
       LIMIT ${pageSize} OFFSET ${offsetOf(page, pageSize)}`),
    db.execute<{ n: number }>(
      sql`${team(organizationId, now)} SELECT count(*)::int AS n FROM team ${filter}`,
    ),
  ]);
  // Raw statements bypass drizzle's column mapping: timestamps arrive as text.
  const at = (v: unknown) => (v === null ? null : new Date(v as string));
  const data = rows.rows.map((r) => ({
    ...r,
    joined_at: at(r.joined_at),
    invited_at: at(r.invited_at),
    invitation_expires_at: at(r.invitation_expires_at),
  }));
  return { rows: data, total: counted.rows[0]?.n ?? 0 };
}

/**
 * Locks the organization's OWNER memberships (in id order, so concurrent changes queue rather than
 * deadlock) and returns them. Every change that could leave no owner takes this lock first; a
 * change made meanwhile is seen by whoever waited (PostgreSQL re-checks `role` on locked rows).
 */
export async function lockOwners(tx: Tx, organizationId: string) {
  return tx
    .select({ user_id: memberships.user_id })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.role, 'OWNER')))
    .orderBy(asc(memberships.id))
    .for('update');
}

const memberColumns = {
  membership_id: memberships.id,
  user_id: users.id,
  email: users.email,
  name: users.name,
  phone: users.phone,
  role: memberships.role,
  joined_at: memberships.created_at,
};
/** A member of the organization; with `lock`, its membership row is locked for the transaction. */
export async function findMember(db: DbOrTx, organizationId: string, userId: string, lock = false) {
  const query = db
    .select(memberColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.user_id))
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)))
    .limit(1);
  const [row] = lock ? await query.for('update', { of: memberships }) : await query;
  return row ?? null;
}
export type MemberRow = NonNullable<Awaited<ReturnType<typeof findMember>>>;

export async function isMember(db: DbOrTx, organizationId: string, userId: string) {
  const [row] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .where(and(eq(memberships.organization_id, organizationId), eq(memberships.user_id, userId)))
    .limit(1);
  return !!row;
}

export async function setRole(tx: Tx, membershipId: string, role: Role) {
  await tx.update(memberships).set({ role, updated_at: sql`now()` }).where(eq(memberships.id, membershipId));
}

export async function deleteMembership(tx: Tx, membershipId: string) {
  await tx.delete(memberships).where(eq(memberships.id, membershipId));
}

/** Adds the membership; false when the user already had one there (its role is kept). */
export async function addMembership(tx: Tx, organizationId: string, userId: string, role: Role) {
  const rows = await tx
    .insert(memberships)
    .values({ id: newId('membership'), organization_id: organizationId, user_id: userId, role })
    .onConflictDoNothing({ target: [memberships.organization_id, memberships.user_id] })
    .returning({ id: memberships.id });
  return rows.length > 0;
}

export async function insertInvitation(tx: Tx, values: typeof invitations.$inferInsert) {
  return firstRow(await tx.insert(invitations).values(values).returning(), 'insertInvitation');
}

/** Revokes the pending invitations of the address; returns them as they were. */
export async function revokePendingInvitations(tx: Tx, organizationId: string, email: string) {
  return tx
    .update(invitations)
    .set({ status: 'revoked', revoked_at: sql`now()`, updated_at: sql`now()` })
    .where(
      and(
        eq(invitations.organization_id, organizationId),
        eq(invitations.email, email),
        eq(invitations.status, 'pending'),
      ),
    )
    .returning({ id: invitations.id, role: invitations.role });
}

export async function findInvitation(db: DbOrTx, organizationId: string, id: string, lock = false) {
  const query = db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organization_id, organizationId), eq(invitations.id, id)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function findInvitationByTokenHash(db: DbOrTx, tokenHash: string) {
  const [row] = await db.select().from(invitations).where(eq(invitations.token_hash, tokenHash)).limit(1);
  return row ?? null;
}

/**
 * Marks the invitation accepted if it is still pending and unexpired at `now` (the wall clock's).
 * Of two acceptances with one token, the second waits for the first's row lock, finds it accepted
 * and gets null.
 */
export async function claimInvitation(tx: Tx, id: string, now: Date) {
  const [row] = await tx
    .update(invitations)
    .set({ status: 'accepted', accepted_at: now, updated_at: sql`now()` })
    .where(
      and(
        eq(invitations.id, id),
        eq(invitations.status, 'pending'),
        sql`${invitations.expires_at} > ${now}::timestamptz`,
      ),
    )
    .returning();
  return row ?? null;
}

export async function setAcceptedUser(tx: Tx, id: string, userId: string) {
  await tx.update(invitations).set({ accepted_user_id: userId }).where(eq(invitations.id, id));
}

export async function revokeInvitation(tx: Tx, id: string) {
  const [row] = await tx
    .update(invitations)
    .set({ status: 'revoked', revoked_at: sql`now()`, updated_at: sql`now()` })
    .where(and(eq(invitations.id, id), eq(invitations.status, 'pending')))
    .returning();
  return row ?? null;
}
