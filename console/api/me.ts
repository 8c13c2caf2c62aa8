import { useQuery } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type Me = Schemas['Me'];
export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

/** The signed-in user, their memberships and the organization the console acts in. */
export const useMe = (enabled: boolean) =>
  useQuery({ queryKey: keys.me, queryFn: () => unwrap(api.GET('/api/v1/auth/me')), enabled });
