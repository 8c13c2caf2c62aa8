import type { Db } from '../../db/client.js';
import type { UniqueConstraint } from '../../db/pg-errors.js';
import { invalidCredentials, notFound, unauthenticated } from '../../domain/errors.js';
import type { Principal, Role } from '../../domain/scope.js';
import { defined } from '../../lib/defined.js';
import {
  findOrganization,
  findUserByEmail,
  findUserById,
  insertOrganization,
  insertUser,
  listMemberships,
  upsertMembership,
} from './auth-repository.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { SessionsService } from './sessions-service.js';

/** The unique constraints whose violation is a 409 on the field named (registered by buildServices). */
export const userUniqueConstraints: readonly UniqueConstraint[] = [
  { constraint: 'users_email_key', param: 'email', message: 'A user with this e-mail already exists' },
];

export interface NewUser {
  organizationId: string;
  email: string;
  password: string;
  role: Role;
  name?: string | null;
  phone?: string | null;
}

export class AuthService {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionsService,
  ) {}

  /**
   * Starts a session for the right password. Same 401 body, and about the same time, for an
   * unknown e-mail and a wrong password.
   */
  async login(email: string, password: string) {
    const user = await findUserByEmail(this.db, email.trim());
    const ok = await verifyPassword(user?.password_hash ?? null, password);
    if (!user || !ok) throw invalidCredentials();
    return this.sessions.open(user.id);
  }

  async me(principal: Principal) {
    if (principal.kind !== 'bearer') throw unauthenticated();
    const user = await findUserById(this.db, principal.userId);
    if (!user) throw unauthenticated();
    const memberships = await listMemberships(this.db, user.id);
    const active = memberships.find((m) => m.organization_id === principal.organizationId);
    return {
      user: {
        id: user.id,
        email: user.email,
        name: user.name,
        phone: user.phone,
        created_at: user.created_at,
      },
      memberships,
      active_organization: active
        ? { id: active.organization_id, name: active.organization_name, role: active.role }
        : null,
    };
  }

  async createOrganization(name: string) {
    return insertOrganization(this.db, name);
  }

  /** Creates the user, or adds an existing one (same e-mail) to the organization. */
  async createUser(input: NewUser) {
    if (!(await findOrganization(this.db, input.organizationId))) {
      throw notFound('Organization', input.organizationId, 'org');
    }
    const existing = await findUserByEmail(this.db, input.email);
    // Hashing is slow: done before the transaction, and only for a new user.
    const passwordHash = existing ? null : await hashPassword(input.password);
    return this.db.transaction(async (tx) => {
      const user =
        existing ??
        (await insertUser(tx, {
          email: input.email,
          password_hash: defined(passwordHash, 'password hash of a new user'),
          name: input.name ?? null,
          phone: input.phone ?? null,
        }));
      await upsertMembership(tx, input.organizationId, user.id, input.role);
      return { user, created: !existing };
    });
  }
}
