import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './envoy-api';
import { keys } from './keys';

export type Endpoint = Schemas['WebhookEndpoint'];
export type Delivery = Schemas['WebhookDelivery'];
export type DeliveryQuery = NonNullable<paths['/api/v1/webhooks/deliveries']['get']['parameters']['query']>;

const endpointPath = (id: string) => ({ params: { path: { endpoint_id: id } } });

export const useEndpoints = (enabled: boolean) =>
  useQuery({
    queryKey: keys.endpoints,
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/endpoints', { params: { query: { page_size: 100 } } })),
    enabled,
  });

export const useEventTypes = (enabled: boolean) =>
  useQuery({
    queryKey: keys.eventTypes,
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/event-types')),
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  });

export const useDeliveries = (query: DeliveryQuery, enabled: boolean) =>
  useQuery({
    queryKey: keys.deliveries(query),
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/deliveries', { params: { query } })),
    enabled,
  });

export const useAttempts = (endpointId: string, enabled: boolean) =>
  useQuery({
    queryKey: keys.attempts(endpointId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/webhooks/endpoints/{endpoint_id}/attempts', {
          params: { path: { endpoint_id: endpointId }, query: { page_size: 50 } },
        }),
      ),
    enabled,
  });

/** Every webhook change refreshes the endpoints and the deliveries (a ping or a replay adds one). */
function useHookChange<V, R>(fn: (v: V) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void client.invalidateQueries({ queryKey: keys.endpoints });
      void client.invalidateQueries({ queryKey: keys.deliveriesAll });
      void client.invalidateQueries({ queryKey: ['settings', 'webhooks', 'attempts'] });
    },
  });
}

/** Registers an endpoint: its signing secret is in this answer only. */
export const useCreateEndpoint = () =>
  useHookChange((body: Schemas['CreateWebhookEndpointRequest']) =>
    unwrap(api.POST('/api/v1/webhooks/endpoints', { body })),
  );

export const useSetEndpointStatus = () =>
  useHookChange((v: { id: string; status: 'ACTIVE' | 'PAUSED' }) =>
    unwrap(
      api.PATCH('/api/v1/webhooks/endpoints/{endpoint_id}', {
        ...endpointPath(v.id),
        body: { status: v.status },
      }),
    ),
  );

export const useRotateSecret = () =>
  useHookChange((id: string) =>
    unwrap(api.POST('/api/v1/webhooks/endpoints/{endpoint_id}/rotate-secret', endpointPath(id))),
  );

export const usePing = () =>
  useHookChange((id: string) =>
    unwrap(api.POST('/api/v1/webhooks/endpoints/{endpoint_id}/test', endpointPath(id))),
  );

export const useDeleteEndpoint = () =>
  useHookChange((id: string) =>
    unwrap(api.DELETE('/api/v1/webhooks/endpoints/{endpoint_id}', endpointPath(id))),
  );

export const useReplay = () =>
  useHookChange((id: string) =>
    unwrap(
      api.POST('/api/v1/webhooks/deliveries/{delivery_id}/replay', { params: { path: { delivery_id: id } } }),
    ),
  );
