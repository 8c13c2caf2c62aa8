import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { firstRow } from '../../db/rows.js';
import { newId } from '../../domain/ids.js';
import type { Role } from '../../domain/scope.js';
import { memberships, organizations, users } from './auth-tables.js';
import { authSessions } from './sessions-tables.js';

export { findUserById } from './user-queries.js';

// The one query of a bearer request: the session must be the user's and live, so a session ended
// on any instance refuses its access tokens from the next request on, at no extra round trip.
// `now` is the wall clock's (lib/wall-clock.ts).
const membershipsForAuthStatement = preparedFor((db) =>
  db
    .select({ user_id: users.id, organization_id: memberships.organization_id, role: memberships.role })
    .from(users)
    .innerJoin(
      authSessions,
      and(
        eq(authSessions.id, sql.placeholder('sessionId')),
        eq(authSessions.user_id, users.id),
        isNull(authSessions.revoked_at),
        // Its fixed end: an access token signed shortly before it stops with the session.
        sql`${authSessions.expires_at} > ${sql.placeholder('now')}::timestamptz`,
      ),
    )
    .leftJoin(memberships, eq(memberships.user_id, users.id))
    .where(eq(users.id, sql.placeholder('userId')))
    .orderBy(asc(memberships.created_at), asc(memberships.id))
    .prepare('auth_memberships_of_session'),
);

/**
 * The user's memberships, oldest first; no rows when the user does not exist or the session is
 * not theirs or has ended.
 */
export function membershipsForAuth(db: Db, userId: string, sessionId: string, now: Date) {
  return membershipsForAuthStatement(db).execute({ userId, sessionId, now });
}

export async function findUserByEmail(db: DbOrTx, email: string) {
  const [row] = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function listMemberships(db: DbOrTx, userId: string) {
  return db
    .select({
      organization_id: memberships.organization_id,
      organization_name: organizations.name,
      role: memberships.role,
      created_at: memberships.created_at,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organization_id))
    .where(eq(memberships.user_id, userId))
    .orderBy(asc(memberships.created_at), asc(memberships.id));
}

export async function insertOrganization(db: DbOrTx, name: string) {
  return firstRow(
    await db
      .insert(organizations)
      .values({ id: newId('organization'), name })
      .returning(),
    'insertOrganization',
  );
}

export async function findOrganization(db: DbOrTx, id: string) {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
  return row ?? null;
}

export async function insertUser(
  db: DbOrTx,
  values: { email: string; password_hash: string; name: string | null; phone: string | null },
) {
  return firstRow(
    await db
      .insert(users)
      .values({ id: newId('user'), ...values })
      .returning(),
    'insertUser',
  );
}

/** Adds the user to the organization; an existing membership keeps its role. */
export async function upsertMembership(db: DbOrTx, organizationId: string, userId: string, role: Role) {
  await db
    .insert(memberships)
    .values({ id: newId('membership'), organization_id: organizationId, user_id: userId, role })
    .onConflictDoNothing({ target: [memberships.organization_id, memberships.user_id] });
}
