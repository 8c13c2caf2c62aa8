import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { unauthenticated } from '../../domain/errors.js';
import { access } from '../../http/access.js';
import { errorResponses } from '../../http/schemas.js';
import { loginBody, logoutBody, meSchema, refreshBody, sessionTokensSchema } from './auth-schemas.js';
import type { AuthService } from './auth-service.js';
import type { SessionsService } from './sessions-service.js';

const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncZod<{ auth: AuthService; sessions: SessionsService }> = async (
  app,
  { auth: service, sessions },
) => {
  app.post(
    '/auth/login',
    {
      config: { access: access.public },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Exchange an e-mail and password for an access token and a refresh token',
        description:
          'Starts a session. Wrong e-mail and wrong password give the same 401 `invalid_credentials`. ' +
          'Counted per client IP, before the password is checked.',
        body: loginBody,
        response: { 200: sessionTokensSchema, ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => service.login(request.body.email, request.body.password),
  );

  app.post(
    '/auth/refresh',
    {
      config: { access: access.public },
      schema: {
        operationId: 'refreshSession',
        tags,
        summary: 'Exchange a refresh token for a new access token and a new refresh token',
        description:
          'Each refresh token works once: the answer carries the next one. A refresh token presented a ' +
          'second time (a stolen copy, or two refreshes racing with one token) ends its whole session: ' +
          '401 `refresh_token_reused`, and the session’s newest refresh token and access tokens stop ' +
          'working too. An unknown or expired token, or one of an ended session, is 401 ' +
          '`invalid_refresh_token`. Counted per client IP in the `/auth/*` limit.',
        body: refreshBody,
        response: { 200: sessionTokensSchema, ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => sessions.refresh(request.body.refresh_token),
  );

  app.post(
    '/auth/logout',
    {
      config: { access: { ...access.bearer(), organizationOptional: true } },
      schema: {
        operationId: 'logout',
        tags,
        summary: 'End the session of the access token',
        description:
          'Its access tokens and refresh tokens stop working at once, on every instance. A `refresh_token` ' +
          'of another of your sessions ends that one too; anyone else’s is ignored.',
        body: logoutBody,
        response: { 204: z.null().describe('Signed out'), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind !== 'bearer' || !principal.sessionId) throw unauthenticated();
      await sessions.logout(principal.userId, principal.sessionId, request.body.refresh_token);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/auth/me',
    {
      config: { access: { ...access.bearer(), organizationOptional: true } },
      schema: {
        operationId: 'getMe',
        tags,
        summary: 'The signed-in user, their memberships and the active organization',
        response: { 200: meSchema, ...errorResponses(401, 403, 429) },
      },
    },
    async (request) => {
      if (!request.principal) throw unauthenticated();
      return service.me(request.principal);
    },
  );
};
