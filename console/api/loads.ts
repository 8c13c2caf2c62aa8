import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './envoy-api';
import { keys } from './keys';

export type Load = Schemas['Load'];
export type LoadStats = Schemas['LoadStats'];
export type LoadView = Schemas['LoadView'];

/** The load list's query as the contract declares it; the board keeps it in the URL. */
export type LoadListQuery = NonNullable<paths['/api/v1/loads']['get']['parameters']['query']>;
export type LoadStatsQuery = NonNullable<paths['/api/v1/loads/stats']['get']['parameters']['query']>;

export const useLoadList = (query: LoadListQuery) =>
  useQuery({
    queryKey: keys.loadList(query),
    queryFn: () => unwrap(api.GET('/api/v1/loads', { params: { query } })),
    placeholderData: keepPreviousData,
  });

/**
 * The tabs' counts under the same filters (the stats take the list's filters, not its paging or
 * tab). `enabled`: the board asks for them once its rows are in, so the rows come first.
 */
export const useLoadStats = (query: LoadListQuery, enabled = true) => {
  const { page: _p, page_size: _s, order_by: _o, order_desc: _d, tab: _t, ...filters } = query;
  const stats: LoadStatsQuery = filters;
  return useQuery({
    queryKey: keys.loadStats(stats),
    queryFn: () => unwrap(api.GET('/api/v1/loads/stats', { params: { query: stats } })),
    placeholderData: keepPreviousData,
    enabled,
  });
};

export const useLoad = (id: string) =>
  useQuery({
    queryKey: keys.load(id),
    queryFn: () => unwrap(api.GET('/api/v1/loads/{load_id}', { params: { path: { load_id: id } } })),
  });

export const useLoadViews = (enabled = true) =>
  useQuery({
    queryKey: keys.views,
    queryFn: () => unwrap(api.GET('/api/v1/load-views', { params: { query: { page_size: 100 } } })),
    enabled,
  });

export function useSaveView() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (view: { name: string; filters: LoadView['filters'] }) =>
      unwrap(
        api.POST('/api/v1/load-views', {
          body: { name: view.name, filters: view.filters, visibility: 'private' },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.views }),
  });
}

/**
 * Hands the load to the agent or takes it back: the load upsert with its load number and only
 * `assigned_to_ai_agent` (fields left out keep their value).
 */
export function useAssignAgent(load: Pick<Load, 'id' | 'load_number' | 'equipment_type'>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (assigned: boolean) =>
      unwrap(
        api.POST('/api/v1/loads', {
          body: {
            load_number: load.load_number,
            equipment_type: load.equipment_type,
            assigned_to_ai_agent: assigned,
          },
        }),
      ),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: keys.load(load.id) });
      void client.invalidateQueries({ queryKey: keys.loads });
    },
  });
}
