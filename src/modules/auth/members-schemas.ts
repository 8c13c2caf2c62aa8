import { z } from 'zod';
import { ROLES } from '../../domain/scope.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, emailInput, nonEmptyText, prefixedId, queryList, text } from '../../http/schemas.js';
import { TEAM_STATUSES } from './members-repository.js';

const role = z.enum(ROLES);

export const MIN_PASSWORD_LENGTH = 12;

/** A new password: 12 to 1024 characters (argon2 is given at most 1024). */
export const newPassword = () =>
  z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(1024)
    .refine((s) => !s.includes('\u0000'), { message: 'Must not contain the NUL character' });

export const teamEntrySchema = z
  .object({
    status: z.enum(TEAM_STATUSES).meta({
      description:
        '`active`: a member. `invited`: a pending invitation. `expired`: a pending invitation past its ' +
        '`invitation_expires_at` (invite again, or delete it).',
    }),
    user_id: z.string().nullable().meta({ description: 'The member’s user id; null for an invitation.' }),
    invitation_id: z.string().nullable().meta({ description: 'The invitation’s id; null for a member.' }),
    email: z.string(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    role,
    joined_at: dateTime().nullable(),
    invited_at: dateTime().nullable(),
    invitation_expires_at: dateTime().nullable(),
  })
  .meta({ id: 'TeamEntry' });

export const memberSchema = z
  .object({
    user_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    role,
    joined_at: dateTime(),
  })
  .meta({ id: 'Member' });

export const invitationSchema = z
  .object({
    id: z.string(),
    organization_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role,
    status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
    invited_by_id: z.string().nullable(),
    expires_at: dateTime(),
    accepted_at: dateTime().nullable(),
    revoked_at: dateTime().nullable(),
    created_at: dateTime(),
  })
  .meta({ id: 'Invitation' });
export type Invitation = z.infer<typeof invitationSchema>;

export const listMembersQuery = pageQuery().extend({ status: queryList(z.enum(TEAM_STATUSES)).optional() });

export const inviteMemberBody = z.object({
  email: emailInput(),
  role,
  name: nonEmptyText(200)
    .nullish()
    .meta({ description: 'Used for the new user’s name if they have no account.' }),
});

export const changeRoleBody = z.object({ role });

export const memberParams = z.object({ user_id: prefixedId('user') });
export const invitationParams = z.object({ invitation_id: prefixedId('invitation') });

export const acceptInvitationBody = z.object({
  token: text(200).meta({ description: 'The invitation token from the e-mail (`envoy_inv_...`).' }),
  password: newPassword()
    .optional()
    .meta({
      description:
        'The new account’s password, 12 to 1024 characters: required when the address has no account ' +
        'yet, ignored when it has one (that password stays).',
    }),
  name: nonEmptyText(200).optional().meta({ description: 'The new account’s name (else the invitation’s).' }),
});
