import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, isAppError, unauthenticated } from '../../domain/errors.js';
import { access } from '../../http/access.js';
import { errorResponses } from '../../http/schemas.js';
import { loginBody, logoutBody, meSchema, refreshBody, sessionTokensSchema } from './auth-schemas.js';
import type { AuthService } from './auth-service.js';
import { clearRefreshCookie, REFRESH_COOKIE, requireSameOrigin, setRefreshCookie } from './refresh-cookie.js';
import type { SessionsService, SessionTokens } from './sessions-service.js';

const tags = ['auth'];

export interface AuthRoutesOptions {
  auth: AuthService;
  sessions: SessionsService;
  /** The full path of POST /auth/refresh: the refresh cookie is sent there only. */
  refreshPath: string;
}

export const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async (
  app,
  { auth: service, sessions, refreshPath },
) => {
  await app.register(cookie);

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
          'Counted per client IP, before the password is checked. The session ends `refresh_expires_in` ' +
          'seconds after sign-in, whatever the refreshes. With `use_cookie` the refresh token is set in the ' +
          '`envoy_refresh` cookie (HttpOnly, SameSite=Strict, Path the refresh operation, Secure over HTTPS) ' +
          'and left out of the body.',
        body: loginBody,
        response: { 200: sessionTokensSchema, ...errorResponses(401, 422, 429) },
      },
    },
    async (request, reply) =>
      answer(
        request,
        reply,
        await service.login(request.body.email, request.body.password),
        request.body.use_cookie === true ? refreshPath : null,
      ),
  );

  refreshRoute(app, sessions, refreshPath);

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
          'of another of your sessions ends that one too; anyone else’s is ignored. The `envoy_refresh` cookie, ' +
          'if any, is cleared.',
        body: logoutBody,
        response: { 204: z.null().describe('Signed out'), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (principal?.kind !== 'bearer' || !principal.sessionId) throw unauthenticated();
      await sessions.logout(principal.userId, principal.sessionId, request.body.refresh_token);
      clearRefreshCookie(request, reply, refreshPath);
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

type App = Parameters<FastifyPluginAsyncZod>[0];

/** The tokens as answered: with a cookie path, the refresh token goes into the cookie, not the body. */
function answer(
  request: FastifyRequest,
  reply: FastifyReply,
  tokens: SessionTokens,
  cookiePath: string | null,
): Omit<SessionTokens, 'refresh_token'> & { refresh_token?: string } {
  if (cookiePath === null) return tokens;
  const { refresh_token, ...rest } = tokens;
  setRefreshCookie(request, reply, cookiePath, refresh_token, tokens.refresh_expires_in);
  return rest;
}

/** POST /auth/refresh: by the refresh token in the body, or by the cookie from a page of this server. */
function refreshRoute(app: App, sessions: SessionsService, refreshPath: string) {
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
          '`invalid_refresh_token`. The session keeps the end it got at sign-in. Counted per client IP in the ' +
          '`/auth/*` limit. Without `refresh_token` in the body, the `envoy_refresh` cookie is used and the ' +
          'next one set in its place; such a request must come from a page of this server (its `Origin`, ' +
          'and `Sec-Fetch-Site` when sent), else 403 `cross_site_request`. With neither: 401 ' +
          '`invalid_refresh_token` naming `refresh_token`.',
        body: refreshBody,
        response: { 200: sessionTokensSchema, ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const sent = request.body.refresh_token;
      if (sent) return sessions.refresh(sent);
      const token = request.cookies[REFRESH_COOKIE];
      if (!token) {
        throw new AppError(
          401,
          'invalid_refresh_token',
          'No refresh token: send refresh_token, or sign in again',
          'refresh_token',
        );
      }
      requireSameOrigin(request);
      try {
        return answer(request, reply, await sessions.refresh(token), refreshPath);
      } catch (err) {
        // A cookie that can no longer refresh is of no further use to the browser.
        if (isAppError(err) && err.statusCode === 401) clearRefreshCookie(request, reply, refreshPath);
        throw err;
      }
    },
  );
}
