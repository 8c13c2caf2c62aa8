import { z } from 'zod';
import { ROLES } from '../../domain/scope.js';
import { dateTime, optionalBody, text } from '../../http/schemas.js';

export const loginBody = z.object({
  email: text(254),
  password: text(1024),
  use_cookie: z
    .boolean()
    .optional()
    .meta({
      description:
        'For a browser page of this server (the console): true sets the refresh token in an HttpOnly, ' +
        'SameSite=Strict cookie sent only to POST /auth/refresh, instead of returning it in the body.',
    }),
});

export const sessionTokensSchema = z
  .object({
    access_token: z
      .string()
      .meta({ description: 'For `Authorization: Bearer`; valid `expires_in` seconds.' }),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds until the access token expires.' }),
    refresh_token: z
      .string()
      .optional()
      .meta({
        description:
          'One use: `POST /auth/refresh` exchanges it for new tokens and a new refresh token. Keep it secret. ' +
          'Absent when the refresh token was set as a cookie (`use_cookie`, or a refresh by cookie).',
      }),
    refresh_expires_in: z
      .number()
      .int()
      .meta({
        description:
          'Seconds until the session ends, and with it every refresh token of it: a fixed time after sign-in ' +
          'that no refresh moves.',
      }),
  })
  .meta({ id: 'SessionTokens' });

export const refreshBody = optionalBody(
  z.object({
    refresh_token: text(200)
      .optional()
      .meta({
        description:
          'The refresh token. Without it, the `envoy_refresh` cookie is used, from a page of this server only ' +
          '(its Origin checked).',
      }),
  }),
);

export const logoutBody = optionalBody(
  z.object({
    refresh_token: text(200)
      .optional()
      .meta({ description: 'A refresh token of another of your sessions (another device) to end too.' }),
  }),
);

const role = z.enum(ROLES);

export const meSchema = z
  .object({
    user: z.object({
      id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      phone: z.string().nullable(),
      created_at: dateTime(),
    }),
    memberships: z.array(
      z.object({ organization_id: z.string(), organization_name: z.string(), role, created_at: dateTime() }),
    ),
    active_organization: z.object({ id: z.string(), name: z.string(), role }).nullable(),
  })
  .meta({ id: 'Me' });
