import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../../db/client.js';
import type { UniqueConstraint } from '../../db/pg-errors.js';
import {
  AppError,
  conflict,
  notFound,
  serviceUnavailable,
  stateConflict,
  validationFailed,
} from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { OrgScope, Role } from '../../domain/scope.js';
import type { EmailSender } from '../../integrations/email/email-channel.js';
import { defined } from '../../lib/defined.js';
import type { WallClock } from '../../lib/wall-clock.js';
import { findOrganization, findUserByEmail, findUserById, insertUser } from './auth-repository.js';
import {
  addMembership,
  claimInvitation,
  findInvitation,
  findInvitationByTokenHash,
  type InvitationRow,
  insertInvitation,
  isMember,
  revokeInvitation,
  revokePendingInvitations,
  setAcceptedUser,
} from './members-repository.js';
import { type AuditWriter, cannotTouchOwner } from './members-service.js';
import { generateSecret, hashSecret, INVITATION_TOKEN_PREFIX, isSecretOf } from './opaque-secrets.js';
import { hashPassword } from './passwords.js';
import type { SessionsService, SessionTokens } from './sessions-service.js';

/** The unique constraints whose violation is a 409 on the field named (registered by buildServices). */
export const invitationUniqueConstraints: readonly UniqueConstraint[] = [
  {
    constraint: 'invitations_organization_email_pending_key',
    param: 'email',
    message: 'An invitation to this e-mail address is being sent right now',
  },
];

export interface InvitationSettings {
  ttlSeconds: number;
  /** Where the e-mail's link points: `<dashboardUrl>/accept-invitation?token=...`; none without it. */
  dashboardUrl: string | undefined;
  /** The sender, and the domain of our Message-IDs. */
  from: string;
  replyDomain: string;
}

/** The invitation as the API answers it, expired once the wall clock reached its end (`nowMs`). */
export function toInvitation(row: InvitationRow, nowMs: number) {
  const expired = row.status === 'pending' && row.expires_at.getTime() <= nowMs;
  return {
    id: row.id,
    organization_id: row.organization_id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: expired ? ('expired' as const) : row.status,
    invited_by_id: row.invited_by_id,
    expires_at: row.expires_at,
    accepted_at: row.accepted_at,
    revoked_at: row.revoked_at,
    created_at: row.created_at,
  };
}

/** Why an invitation token cannot be accepted: all 401s, each with its own code. */
function refusal(row: InvitationRow | null): AppError {
  if (!row) return new AppError(401, 'invalid_invitation', 'The invitation token is not valid');
  if (row.status === 'accepted') {
    return new AppError(401, 'invitation_used', 'This invitation has already been accepted; sign in instead');
  }
  if (row.status === 'revoked')
    return new AppError(401, 'invitation_revoked', 'This invitation was withdrawn');
  return new AppError(401, 'invitation_expired', 'This invitation has expired; ask for a new one');
}

/**
 * Invitations to the team: sent by e-mail as a one-use token, accepted by the invitee (a new
 * account, or an existing user of another organization, who keeps their password).
 */
export class InvitationsService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionsService,
    private readonly email: EmailSender,
    private readonly settings: InvitationSettings,
    private readonly log: FastifyBaseLogger,
    private readonly audit: AuditWriter,
    private readonly wall: WallClock,
  ) {}

  private auditInvitation(tx: Tx, scope: OrgScope, id: string, action: string, after?: unknown) {
    return this.audit(tx, scope, [
      { entity_type: 'invitation', entity_id: id, action, after: after ?? null },
    ]);
  }

  /**
   * Invites the address with the role, replacing a pending invitation of the same address, and
   * e-mails the token. The invitation is written first and withdrawn if the e-mail cannot be sent,
   * so no live token exists that nobody received.
   */
  async invite(scope: OrgScope, input: { email: string; role: Role; name?: string | null | undefined }) {
    if (input.role === 'OWNER' && scope.principal.role !== 'OWNER') throw cannotTouchOwner();
    const existing = await findUserByEmail(this.db, input.email);
    if (existing && (await isMember(this.db, scope.organizationId, existing.id))) {
      throw conflict('This e-mail address belongs to a member already', 'email');
    }
    const token = generateSecret(INVITATION_TOKEN_PREFIX);
    const row = await this.db.transaction(async (tx) => {
      for (const old of await revokePendingInvitations(tx, scope.organizationId, input.email)) {
        await this.auditInvitation(tx, scope, old.id, 'revoke', { status: 'revoked', replaced: true });
      }
      const created = await insertInvitation(tx, {
        id: newId('invitation'),
        organization_id: scope.organizationId,
        email: input.email,
        name: input.name ?? null,
        role: input.role,
        token_hash: hashSecret(token),
        invited_by_id: scope.principal.userId,
        expires_at: new Date(this.wall.ms() + this.settings.ttlSeconds * 1000),
      });
      await this.auditInvitation(tx, scope, created.id, 'invite', {
        email: created.email,
        role: created.role,
      });
      return created;
    });
    try {
      await this.send(scope, row, token);
    } catch (err) {
      this.log.warn(
        { err: { message: err instanceof Error ? err.message : String(err) }, invitationId: row.id },
        'invitation e-mail failed',
      );
      await this.db.transaction(async (tx) => {
        if (await revokeInvitation(tx, row.id)) {
          await this.auditInvitation(tx, scope, row.id, 'revoke', { status: 'revoked', email_failed: true });
        }
      });
      throw serviceUnavailable(
        'The invitation e-mail could not be sent, so no invitation is pending; try again',
      );
    }
    return toInvitation(row, this.wall.ms());
  }

  /** Withdraws a pending invitation; a withdrawn one stays so (204 again), an accepted one is a 409. */
  async revoke(scope: OrgScope, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await findInvitation(tx, scope.organizationId, id, true);
      if (!row) throw notFound('Invitation', id, 'invitation_id');
      if (row.role === 'OWNER' && scope.principal.role !== 'OWNER') throw cannotTouchOwner();
      if (row.status === 'accepted') {
        throw stateConflict('invitation_accepted', 'This invitation was accepted: remove the member instead');
      }
      if (row.status === 'revoked') return;
      await revokeInvitation(tx, id);
      await this.auditInvitation(tx, scope, id, 'revoke', { status: 'revoked' });
    });
  }

  /**
   * Accepts the invitation: a new user with the password, or the existing user of the address,
   * becomes a member with the invited role, and is signed in (a session starts).
   */
  async accept(input: {
    token: string;
    password?: string | undefined;
    name?: string | undefined;
  }): Promise<SessionTokens> {
    if (!isSecretOf(INVITATION_TOKEN_PREFIX, input.token)) throw refusal(null);
    const found = await findInvitationByTokenHash(this.db, hashSecret(input.token));
    if (found?.status !== 'pending' || found.expires_at.getTime() <= this.wall.ms()) {
      throw refusal(found);
    }
    const existing = await findUserByEmail(this.db, found.email);
    if (!existing && input.password === undefined) {
      throw validationFailed('body', ['password'], 'Required: this address has no account yet');
    }
    // Hashing is slow: done before the transaction, and only for a new account.
    const passwordHash = existing
      ? null
      : await hashPassword(defined(input.password, 'password of a new account'));
    const started = await this.db.transaction(async (tx) => {
      const claimed = await claimInvitation(tx, found.id, this.wall.now());
      if (!claimed) throw refusal(await findInvitation(tx, found.organization_id, found.id));
      const user =
        existing ??
        (await insertUser(tx, {
          email: found.email,
          password_hash: defined(passwordHash, 'password hash of a new account'),
          name: input.name ?? found.name,
          phone: null,
        }));
      await setAcceptedUser(tx, found.id, user.id);
      const added = await addMembership(tx, found.organization_id, user.id, found.role);
      const session = await this.sessions.start(tx, user.id);
      const scope: OrgScope = {
        organizationId: found.organization_id,
        principal: {
          kind: 'bearer',
          userId: user.id,
          sessionId: session.sessionId,
          organizationId: found.organization_id,
          role: found.role,
        },
      };
      await this.auditInvitation(tx, scope, found.id, 'accept', { status: 'accepted', user_id: user.id });
      if (added) {
        await this.audit(tx, scope, [
          {
            entity_type: 'member',
            entity_id: user.id,
            action: 'join',
            after: { role: found.role, invitation_id: found.id, new_account: !existing },
          },
        ]);
      }
      return session;
    });
    return this.sessions.tokensOf(started);
  }

  private async send(scope: OrgScope, row: InvitationRow, token: string) {
    const [org, inviter] = await Promise.all([
      findOrganization(this.db, scope.organizationId),
      scope.principal.userId ? findUserById(this.db, scope.principal.userId) : null,
    ]);
    const who = inviter ? (inviter.name ? `${inviter.name} (${inviter.email})` : inviter.email) : 'Your team';
    const { dashboardUrl, from, replyDomain } = this.settings;
    const lines = [
      `${who} invited you to join ${org?.name ?? 'their organization'} on Envoy as ${row.role}.`,
      '',
      ...(dashboardUrl
        ? [
            'Accept the invitation:',
            `${dashboardUrl}/accept-invitation?token=${encodeURIComponent(token)}`,
            '',
          ]
        : []),
      `Your invitation token: ${token}`,
      `It works once, until ${row.expires_at.toISOString()}.`,
      '',
      'If you did not expect this invitation, ignore this e-mail.',
    ];
    await this.email.send({
      messageId: `${row.id}@${replyDomain}`,
      from,
      to: row.email,
      replyTo: inviter?.email ?? from,
      subject: `You are invited to ${org?.name ?? 'an organization'} on Envoy`,
      text: lines.join('\n'),
      outreachId: null,
    });
  }
}
