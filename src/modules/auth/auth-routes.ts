import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { unauthenticated } from '../../domain/errors.js';
import { access } from '../../http/access.js';
import { errorResponses } from '../../http/schemas.js';
import { loginBody, meSchema, tokenSchema } from './auth-schemas.js';
import type { AuthService } from './auth-service.js';

const tags = ['auth'];

export const authRoutes: FastifyPluginAsyncZod<{ auth: AuthService }> = async (app, { auth: service }) => {
  app.post(
    '/auth/login',
    {
      config: { access: access.public },
      schema: {
        operationId: 'login',
        tags,
        summary: 'Exchange an e-mail and password for a bearer token',
        description: 'Wrong e-mail and wrong password give the same 401 `invalid_credentials`.',
        body: loginBody,
        response: { 200: tokenSchema, ...errorResponses(401, 422, 429) },
      },
    },
    async (request) => service.login(request.body.email, request.body.password),
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
