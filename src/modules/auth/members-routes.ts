import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { access } from '../../http/access.js';
import { scopeOf } from '../../http/authentication.js';
import { pageOf } from '../../http/page-query.js';
import type { PerRequest } from '../../http/per-request.js';
import { errorBody, errorResponses } from '../../http/schemas.js';
import { sessionTokensSchema } from './auth-schemas.js';
import type { InvitationsService } from './invitations-service.js';
import {
  acceptInvitationBody,
  changeRoleBody,
  invitationParams,
  invitationSchema,
  inviteMemberBody,
  listMembersQuery,
  memberParams,
  memberSchema,
  teamEntrySchema,
} from './members-schemas.js';
import type { MembersService } from './members-service.js';

const managers = access.bearer('OWNER', 'ADMIN');
const tags = ['members'];
const OWNER_RULES =
  'An ADMIN can neither make an OWNER nor change or remove one (403 `insufficient_permissions`, `param` `role`); the ' +
  'last OWNER can be neither demoted nor removed (409 `last_owner`).';

type App = Parameters<FastifyPluginAsyncZod>[0];

export const membersRoutes: FastifyPluginAsyncZod<{
  members: PerRequest<MembersService>;
  invitations: PerRequest<InvitationsService>;
}> = async (app, { members, invitations }) => {
  teamRoutes(app, members);
  invitationRoutes(app, invitations);
};

/** The members: the list, role changes, removals. */
function teamRoutes(app: App, members: PerRequest<MembersService>) {
  app.get(
    '/members',
    {
      config: { access: managers },
      schema: {
        operationId: 'listMembers',
        tags,
        summary: 'The team: members, then pending invitations',
        description:
          'Members (`status` `active`, oldest first), then pending invitations (`invited`, or `expired` ' +
          'past their expiry), as one list.',
        querystring: listMembersQuery,
        response: { 200: pageOf(teamEntrySchema), ...errorResponses(401, 403, 422, 429) },
      },
    },
    async (request) => members(request).list(scopeOf(request), request.query),
  );

  app.patch(
    '/members/:user_id',
    {
      config: { access: managers },
      schema: {
        operationId: 'changeMemberRole',
        tags,
        summary: 'Change a member’s role',
        description: `Takes effect on the member’s next request. ${OWNER_RULES}`,
        params: memberParams,
        body: changeRoleBody,
        response: { 200: memberSchema, ...errorResponses(401, 403, 404, 409, 422, 429) },
      },
    },
    async (request) =>
      members(request).changeRole(scopeOf(request), request.params.user_id, request.body.role),
  );

  app.delete(
    '/members/:user_id',
    {
      config: { access: managers },
      schema: {
        operationId: 'removeMember',
        tags,
        summary: 'Remove a member from the organization and end their sessions',
        description:
          'Every session of the user ends at once (they sign in again for any other organization of ' +
          `theirs). ${OWNER_RULES}`,
        params: memberParams,
        response: { 204: z.null().describe('Removed'), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await members(request).remove(scopeOf(request), request.params.user_id);
      return reply.status(204).send(null);
    },
  );
}

/** Invitations: sending, withdrawing and accepting one. */
function invitationRoutes(app: App, invitations: PerRequest<InvitationsService>) {
  app.post(
    '/members',
    {
      // A retry with the same Idempotency-Key replays the answer instead of e-mailing a new token.
      config: { access: managers, idempotent: true },
      schema: {
        operationId: 'inviteMember',
        tags,
        summary: 'Invite someone to the team by e-mail',
        description:
          'E-mails a one-use invitation token (with a link when `DASHBOARD_URL` is set), valid for ' +
          '`INVITATION_TTL_SECONDS` (7 days by default); `POST /auth/accept-invitation` redeems it. A ' +
          'pending invitation of the same address is replaced. An address that is a member already is ' +
          '409 `already_exists` (`param` `email`); a user of another organization is invited the same way. ' +
          'Only an OWNER can invite an OWNER (403, `param` `role`). If the e-mail cannot be sent, ' +
          'nothing stays pending: 503.',
        body: inviteMemberBody,
        response: {
          201: invitationSchema,
          ...errorResponses(401, 403, 409, 422, 429),
          503: errorBody.describe('The e-mail could not be sent (`service_unavailable`)'),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await invitations(request).invite(scopeOf(request), request.body)),
  );

  app.delete(
    '/members/invitations/:invitation_id',
    {
      config: { access: managers },
      schema: {
        operationId: 'revokeInvitation',
        tags,
        summary: 'Withdraw a pending invitation',
        description:
          'Its token stops working. A withdrawn invitation answers 204 again; an accepted one is 409 ' +
          '`invitation_accepted`. Only an OWNER can withdraw an invitation to OWNER.',
        params: invitationParams,
        response: { 204: z.null().describe('Withdrawn'), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await invitations(request).revoke(scopeOf(request), request.params.invitation_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/auth/accept-invitation',
    {
      config: { access: access.public },
      schema: {
        operationId: 'acceptInvitation',
        tags: ['auth'],
        summary: 'Join an organization with an invitation token, signed in at once',
        description:
          'Without an account at the invited address, creates one with `password` (12 to 1024 ' +
          'characters; 422 when missing); with one, needs only the token and keeps that account’s ' +
          'password. Answers like login: the tokens of a new session. A token already used, expired, ' +
          'withdrawn or unknown is 401 `invitation_used`, `invitation_expired`, `invitation_revoked` ' +
          'or `invalid_invitation`. Counted per client IP in the `/auth/*` limit.',
        body: acceptInvitationBody,
        response: { 200: sessionTokensSchema, ...errorResponses(401, 409, 422, 429) },
      },
    },
    async (request) => invitations(request).accept(request.body),
  );
}
