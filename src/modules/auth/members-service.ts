import type { Db, DbOrTx, Tx } from '../../db/client.js';
import { forbidden, notFound, stateConflict, unauthenticated } from '../../domain/errors.js';
import { pagination } from '../../domain/pagination.js';
import type { OrgScope, Role } from '../../domain/scope.js';
import type { WallClock } from '../../lib/wall-clock.js';
import {
  deleteMembership,
  findMember,
  listTeam,
  lockOwners,
  type MemberRow,
  setRole,
  type TeamStatus,
} from './members-repository.js';
import type { SessionsService } from './sessions-service.js';

export const toMember = (row: MemberRow) => ({
  user_id: row.user_id,
  email: row.email,
  name: row.name,
  phone: row.phone,
  role: row.role,
  joined_at: row.joined_at,
});

export const cannotTouchOwner = () => forbidden('Only an OWNER can make, change or remove an OWNER', 'role');

const lastOwner = () =>
  stateConflict(
    'last_owner',
    'The organization must keep at least one OWNER: make another member OWNER first',
    'role',
  );

/** The acting user's id; member management is for signed-in users only (the route says so). */
function actorOf(scope: OrgScope): string {
  if (scope.principal.kind !== 'bearer') throw unauthenticated();
  return scope.principal.userId;
}

/**
 * Writes team changes to the audit log in the caller's transaction. The audit module sits above
 * auth (its rows name the organization), so the composition root hands its insertAudit in.
 */
export type AuditWriter = (
  tx: DbOrTx,
  scope: OrgScope,
  entries: {
    entity_type: 'member' | 'invitation';
    entity_id: string;
    action: string;
    before?: unknown;
    after?: unknown;
  }[],
) => Promise<void>;

/**
 * The organization's team: its members and their roles. The rules: an ADMIN may neither make an
 * OWNER nor change or remove one, and the last OWNER can be neither demoted nor removed. Changes
 * that could break the second rule lock the organization's OWNER memberships first, so two of them
 * at once cannot both pass the check. Every change writes an audit row in its transaction.
 */
export class MembersService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionsService,
    private readonly audit: AuditWriter,
    private readonly wall: WallClock,
  ) {}

  async list(scope: OrgScope, q: { page: number; page_size: number; status?: TeamStatus[] | undefined }) {
    const { rows, total } = await listTeam(
      this.db,
      scope.organizationId,
      q.status,
      q.page,
      q.page_size,
      this.wall.now(),
    );
    return { data: rows, pagination: pagination(q.page, q.page_size, total) };
  }

  async changeRole(scope: OrgScope, userId: string, role: Role) {
    return this.db.transaction(async (tx) => {
      const { target, owners, actorIsOwner } = await this.lockedTarget(tx, scope, userId);
      if (!actorIsOwner && (target.role === 'OWNER' || role === 'OWNER')) throw cannotTouchOwner();
      if (target.role === role) return toMember(target);
      if (target.role === 'OWNER' && owners.length <= 1) throw lastOwner();
      await setRole(tx, target.membership_id, role);
      await this.audit(tx, scope, [
        {
          entity_type: 'member',
          entity_id: userId,
          action: 'change_role',
          before: { role: target.role },
          after: { role },
        },
      ]);
      return toMember({ ...target, role });
    });
  }

  /** Removes the membership and ends every session of the user (they may be signed in elsewhere too). */
  async remove(scope: OrgScope, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { target, owners, actorIsOwner } = await this.lockedTarget(tx, scope, userId);
      if (!actorIsOwner && target.role === 'OWNER') throw cannotTouchOwner();
      if (target.role === 'OWNER' && owners.length <= 1) throw lastOwner();
      await deleteMembership(tx, target.membership_id);
      await this.sessions.endAll(tx, userId, 'member_removed');
      await this.audit(tx, scope, [
        {
          entity_type: 'member',
          entity_id: userId,
          action: 'remove',
          before: { role: target.role, email: target.email },
        },
      ]);
    });
  }

  /**
   * Locks the OWNER memberships, then the target's: the same order in every change, so they queue.
   * Whether the actor is an OWNER is read from the locked rows, not from when the request began.
   */
  private async lockedTarget(tx: Tx, scope: OrgScope, userId: string) {
    const actorId = actorOf(scope);
    const owners = await lockOwners(tx, scope.organizationId);
    const target = await findMember(tx, scope.organizationId, userId, true);
    if (!target) throw notFound('Member', userId, 'user_id');
    return { target, owners, actorIsOwner: owners.some((o) => o.user_id === actorId) };
  }
}
