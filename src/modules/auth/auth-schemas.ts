import { z } from 'zod';
import { ROLES } from '../../domain/scope.js';
import { dateTime, text } from '../../http/schemas.js';

export const loginBody = z.object({
  email: text(254),
  password: text(1024),
});

export const tokenSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds until the token expires.' }),
  })
  .meta({ id: 'AccessToken' });

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
