/** The roles a member holds in an organization. */
export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

export type Principal =
  | {
      readonly kind: 'api_key';
      readonly apiKeyId: string;
      readonly organizationId: string;
      /** The user who created the key, if still there. */
      readonly userId: string | null;
      readonly role: null;
    }
  | {
      readonly kind: 'bearer';
      readonly userId: string;
      /** The sign-in session of the access token; null for work done as the user without one (the CLI). */
      readonly sessionId: string | null;
      readonly organizationId: string | null;
      readonly role: Role | null;
    }
  | {
      /** The service itself: the admin CLI, background workers. */
      readonly kind: 'system';
      readonly userId: null;
      readonly organizationId: string;
      readonly role: null;
    };

/** A scope for work the service does on its own behalf in an organization. */
export function systemScope(organizationId: string): OrgScope {
  return { organizationId, principal: { kind: 'system', userId: null, organizationId, role: null } };
}

/**
 * The active organization and who acts in it. Every repository function takes one, so a query
 * cannot be written without the organization it is scoped to.
 */
export interface OrgScope {
  readonly organizationId: string;
  readonly principal: Principal;
}
