import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type ApiKey = Schemas['ApiKey'];

export const useApiKeys = (enabled: boolean) =>
  useQuery({
    queryKey: keys.apiKeys,
    queryFn: () => unwrap(api.GET('/api/v1/api-keys', { params: { query: { page_size: 100 } } })),
    enabled,
  });

function useKeyChange<V, R>(fn: (v: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: keys.apiKeys }),
  });
}

/** Creates a key: its secret is in this answer only. */
export const useCreateApiKey = () =>
  useKeyChange((body: Schemas['CreateApiKeyRequest']) => unwrap(api.POST('/api/v1/api-keys', { body })));

/** A replacement key (its secret shown once); the old one keeps working for `expire_old_in_seconds`. */
export const useRegenerateApiKey = () =>
  useKeyChange((v: { id: string; expire_old_in_seconds: number }) =>
    unwrap(
      api.POST('/api/v1/api-keys/{id}/regenerate', {
        params: { path: { id: v.id } },
        body: { expire_old_in_seconds: v.expire_old_in_seconds },
      }),
    ),
  );

export const useDeactivateApiKey = () =>
  useKeyChange((id: string) => unwrap(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })));
