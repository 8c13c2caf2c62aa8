import { ROLES, type Role } from '../domain/scope.js';

/**
 * What a route accepts, declared next to its schema as `config: { access }`. The authentication
 * hook enforces it, and OpenAPI shows it as the operation's security.
 */
export interface Access {
  /** No credentials needed (login, the OpenAPI document). */
  readonly public?: boolean;
  /** Whether an API key may call the route. */
  readonly apiKey: boolean;
  /** Bearer roles allowed on the active organization; empty: bearer tokens are refused. */
  readonly roles: readonly Role[];
  /** A bearer user without any organization may call it (GET /auth/me). */
  readonly organizationOptional?: boolean;
  /**
   * A one-use stream ticket (`?ticket=`) may stand in for the credential: for a browser's
   * EventSource, which cannot send headers.
   */
  readonly ticket?: boolean;
}

export const access = {
  public: { public: true, apiKey: false, roles: [] },
  /** An API key, or a bearer token of any role. */
  any: { apiKey: true, roles: ROLES },
  /** A bearer token, of one of `roles` (any role when none are named). */
  bearer: (...roles: Role[]): Access => ({ apiKey: false, roles: roles.length ? roles : ROLES }),
  /** An API key, or a bearer token of one of `roles`. */
  apiKeyOrBearer: (...roles: Role[]): Access => ({ apiKey: true, roles }),
} as const;

/** One line for OpenAPI: who may call the operation. */
export function describeAccess(a: Access): string {
  if (a.public) return 'No credentials required.';
  const parts: string[] = [];
  if (a.apiKey) parts.push('an API key');
  if (a.roles.length === ROLES.length) parts.push('a bearer token');
  else if (a.roles.length) parts.push(`a bearer token of an ${a.roles.join(' or ')}`);
  if (a.ticket) parts.push('a one-use `ticket` from POST /events/stream-tickets');
  return `Accepts ${parts.join(' or ')}.`;
}
