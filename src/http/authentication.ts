import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type AppError, forbidden, unauthenticated } from '../domain/errors.js';
import type { OrgScope, Principal, Role } from '../domain/scope.js';
import { objectOf } from '../lib/json-object.js';
import { type Access, describeAccess } from './access.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** Why the credentials sent were refused; thrown only if the route needs credentials. */
    authFailure: AppError | null;
  }
}

/** The scope of an authenticated request on a route that needs an organization. */
export function scopeOf(request: FastifyRequest): OrgScope {
  const principal = request.principal;
  if (!principal) throw unauthenticated();
  if (!principal.organizationId) throw forbidden('You are not a member of any organization');
  return { organizationId: principal.organizationId, principal };
}

const BEARER = /^Bearer\s+(\S+)$/i;
const ORG_HEADER = 'x-organization-id';

/** An API key as the api-keys module checks it. */
interface KeyCredential {
  id: string;
  organizationId: string;
  createdById: string | null;
}

/** Checks API keys (the api-keys module's ApiKeyCredentials). */
export interface KeyChecker {
  verify(secret: string): Promise<{ ok: true; credential: KeyCredential } | { ok: false; reason: string }>;
  activeById(id: string): Promise<KeyCredential | null>;
}

/**
 * The memberships of a live sign-in session, one row per organization (organization_id null for a
 * user of none); none when the session ended (the auth module's SessionsService.memberships).
 */
export type SessionMemberships = (
  userId: string,
  sessionId: string,
) => Promise<readonly { organization_id: string | null; role: Role | null }[]>;

/** What a stream ticket or an open stream was granted to (the webhooks module stores them). */
export interface Grant {
  organizationId: string;
  kind: 'api_key' | 'bearer';
  userId: string | null;
  apiKeyId: string | null;
  sessionId: string | null;
}

/** What authentication is handed when the plugin is registered: the modules' checks, as ports. */
export interface AuthenticationOptions {
  prefix: string;
  /** A bearer token's user and session, or null when it is invalid or expired (TokenService). */
  tokens: { verify(token: string): Promise<{ userId: string; sessionId: string } | null> };
  credentials: KeyChecker;
  memberships: SessionMemberships;
  /** Uses up a stream ticket (routes declaring `access.ticket`). */
  tickets: { redeemTicket(ticket: string): Promise<Grant | null> };
}

/**
 * The principal a stored grant (a stream ticket, an open stream) stands for now, or null when its
 * API key was deactivated or expired, or its user left the organization or signed out.
 */
export function principalOfGrant(credentials: KeyChecker, memberships: SessionMemberships) {
  return async (grant: Grant): Promise<Principal | null> => {
    if (grant.kind === 'api_key') {
      const key = grant.apiKeyId ? await credentials.activeById(grant.apiKeyId) : null;
      return key && key.organizationId === grant.organizationId ? principalOfKey(key) : null;
    }
    // The sign-in session must still be alive, as for the bearer token that obtained the grant.
    if (!grant.userId || !grant.sessionId) return null;
    const rows = await memberships(grant.userId, grant.sessionId);
    const membership = rows.find((r) => r.organization_id === grant.organizationId);
    return membership
      ? {
          kind: 'bearer',
          userId: grant.userId,
          sessionId: grant.sessionId,
          organizationId: grant.organizationId,
          role: membership.role,
        }
      : null;
  };
}

/** Every route under the API prefix must say what it accepts; OpenAPI shows it as its security. */
function requireDeclaredAccess(app: FastifyInstance, prefix: string) {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(prefix)) return;
    const a = route.config?.access;
    if (!a) throw new Error(`${route.method} ${route.url} does not declare config.access`);
    if (route.schema?.hide) return;
    route.schema ??= {};
    const security: Record<string, string[]>[] = [];
    if (!a.public) {
      if (a.apiKey) security.push({ apiKey: [] });
      if (a.roles.length) security.push({ bearer: [] });
    }
    // A GET route and its HEAD twin share one schema: the line is added once.
    const line = describeAccess(a);
    const description = route.schema.description?.endsWith(line)
      ? route.schema.description
      : [route.schema.description, line].filter(Boolean).join('\n\n');
    Object.assign(route.schema, { security, description });
  });
}

async function authenticationPlugin(app: FastifyInstance, opts: AuthenticationOptions) {
  const { tokens, credentials, memberships: membershipsOf, tickets } = opts;
  const principalOf = principalOfGrant(credentials, membershipsOf);
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);

  requireDeclaredAccess(app, opts.prefix);

  async function identifyApiKey(request: FastifyRequest, secret: string) {
    const key = await credentials.verify(secret);
    if (!key.ok) {
      request.authFailure = unauthenticated(key.reason);
      return;
    }
    const asked = request.headers[ORG_HEADER];
    if (typeof asked === 'string' && asked !== '' && asked !== key.credential.organizationId) {
      request.authFailure = forbidden('An API key acts only in its own organization');
      return;
    }
    request.principal = principalOfKey(key.credential);
  }

  async function identifyBearer(request: FastifyRequest, token: string) {
    const subject = await tokens.verify(token);
    if (!subject) {
      request.authFailure = unauthenticated('The bearer token is invalid or expired');
      return;
    }
    const { userId, sessionId } = subject;
    const rows = await membershipsOf(userId, sessionId);
    if (rows.length === 0) {
      request.authFailure = unauthenticated('The bearer token is invalid, expired or signed out');
      return;
    }
    const memberships = rows.filter((r) => r.organization_id !== null);
    const asked = request.headers[ORG_HEADER];
    let active = memberships[0];
    if (typeof asked === 'string' && asked !== '') {
      active = memberships.find((m) => m.organization_id === asked);
      if (!active) {
        request.authFailure = forbidden(`You are not a member of organization '${asked}'`);
        return;
      }
    }
    request.principal = {
      kind: 'bearer',
      userId,
      sessionId,
      organizationId: active?.organization_id ?? null,
      role: active?.role ?? null,
    };
  }

  async function identifyTicket(request: FastifyRequest, ticket: string) {
    const grant = await tickets.redeemTicket(ticket);
    if (!grant) {
      request.authFailure = unauthenticated('The stream ticket is unknown, already used or expired');
      return;
    }
    const principal = await principalOf(grant);
    if (!principal) {
      request.authFailure = unauthenticated('The credential that obtained this ticket is no longer valid');
      return;
    }
    request.principal = principal;
  }

  // Identify: who is calling, if anyone. Refusals are kept, not thrown, so later onRequest hooks
  // (rate limits) see the caller, and public routes ignore stray credentials.
  app.addHook('onRequest', async (request) => {
    const apiKey = request.headers['x-api-key'];
    const authorization = request.headers.authorization;
    if (typeof apiKey === 'string' && apiKey !== '') {
      if (authorization) {
        request.authFailure = unauthenticated('Send either X-API-Key or Authorization, not both');
        return;
      }
      await identifyApiKey(request, apiKey);
    } else if (typeof authorization === 'string' && authorization !== '') {
      const match = BEARER.exec(authorization);
      if (!match?.[1]) {
        request.authFailure = unauthenticated('Authorization must be "Bearer <token>"');
        return;
      }
      await identifyBearer(request, match[1]);
    } else if (request.routeOptions.config?.access?.ticket) {
      const ticket = objectOf(request.query)?.ticket;
      if (typeof ticket === 'string' && ticket !== '') await identifyTicket(request, ticket);
    }
  });
}

/** Enforce: the route's declared access against the identified caller. Registered after rate limits. */
export async function enforceAccess(request: FastifyRequest): Promise<void> {
  const a = request.routeOptions.config.access;
  if (!a || a.public) return;
  if (request.authFailure) throw request.authFailure;
  const principal = request.principal;
  if (!principal) throw unauthenticated();
  if (principal.kind !== 'bearer') {
    if (!a.apiKey) throw forbidden('This operation requires a bearer token');
    return;
  }
  if (!principal.organizationId) {
    if (a.organizationOptional && a.roles.length) return;
    throw forbidden('You are not a member of any organization');
  }
  if (!principal.role || !a.roles.includes(principal.role)) {
    throw forbidden(
      a.roles.length
        ? `This operation requires the ${a.roles.join(' or ')} role`
        : 'This operation requires an API key',
    );
  }
}

function principalOfKey(key: KeyCredential): Principal {
  return {
    kind: 'api_key',
    apiKeyId: key.id,
    organizationId: key.organizationId,
    userId: key.createdById,
    role: null,
  };
}

export const authentication = fp(authenticationPlugin, { name: 'authentication' });
