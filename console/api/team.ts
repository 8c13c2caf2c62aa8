import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type TeamEntry = Schemas['TeamEntry'];
export type Role = TeamEntry['role'];
export const ROLES: readonly Role[] = ['OWNER', 'ADMIN', 'MEMBER'];

export const useTeam = (enabled: boolean) =>
  useQuery({
    queryKey: keys.team,
    queryFn: () => unwrap(api.GET('/api/v1/members', { params: { query: { page_size: 100 } } })),
    enabled,
  });

function useTeamChange<V, R>(fn: (v: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: keys.team }) });
}

export const useInvite = () =>
  useTeamChange((body: Schemas['InviteMemberRequest']) => unwrap(api.POST('/api/v1/members', { body })));

export const useChangeRole = () =>
  useTeamChange((v: { userId: string; role: Role }) =>
    unwrap(
      api.PATCH('/api/v1/members/{user_id}', {
        params: { path: { user_id: v.userId } },
        body: { role: v.role },
      }),
    ),
  );

export const useRemoveMember = () =>
  useTeamChange((userId: string) =>
    unwrap(api.DELETE('/api/v1/members/{user_id}', { params: { path: { user_id: userId } } })),
  );

export const useWithdrawInvitation = () =>
  useTeamChange((id: string) =>
    unwrap(
      api.DELETE('/api/v1/members/invitations/{invitation_id}', { params: { path: { invitation_id: id } } }),
    ),
  );

/** Joins with an invitation token (no credentials): answered like a sign-in, with the session's tokens. */
export const acceptInvitation = (body: Schemas['AcceptInvitationRequest']) =>
  unwrap(api.POST('/api/v1/auth/accept-invitation', { body }));
