import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type AgentSettings = Schemas['AgentSettings'];
export type AgentSettingsPatch = Schemas['UpdateAgentSettingsRequest'];
export type VettingPolicy = Schemas['VettingPolicy'];
export type VettingPolicyPatch = Schemas['UpdateCompliancePolicyRequest'];
export type LoadStatusMapping = Schemas['LoadStatusMapping'];

export const useAgentSettings = () =>
  useQuery({ queryKey: keys.agentSettings, queryFn: () => unwrap(api.GET('/api/v1/agent/settings')) });

/** Sends only the fields changed; the API validates them and names the field it refuses. */
export function useUpdateAgentSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: AgentSettingsPatch) => unwrap(api.PATCH('/api/v1/agent/settings', { body })),
    onSuccess: (data) => client.setQueryData(keys.agentSettings, data),
  });
}

export const useVettingPolicy = () =>
  useQuery({ queryKey: keys.vettingPolicy, queryFn: () => unwrap(api.GET('/api/v1/compliance-policy')) });

export function useUpdateVettingPolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: VettingPolicyPatch) => unwrap(api.PATCH('/api/v1/compliance-policy', { body })),
    onSuccess: (data) => client.setQueryData(keys.vettingPolicy, data),
  });
}

export const useStatusMappings = () =>
  useQuery({
    queryKey: keys.statusMappings,
    queryFn: () => unwrap(api.GET('/api/v1/load-status-mappings')),
  });

export function useSetStatusMapping() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { tms_status: string; load_status: LoadStatusMapping['load_status'] | null }) =>
      v.load_status
        ? unwrap(
            api.PUT('/api/v1/load-status-mappings/{tms_status}', {
              params: { path: { tms_status: v.tms_status } },
              body: { load_status: v.load_status },
            }),
          )
        : unwrap(
            api.DELETE('/api/v1/load-status-mappings/{tms_status}', {
              params: { path: { tms_status: v.tms_status } },
            }),
          ),
    onSettled: () => {
      void client.invalidateQueries({ queryKey: keys.statusMappings });
      void client.invalidateQueries({ queryKey: keys.loads });
    },
  });
}

export function useDeleteView() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/api/v1/load-views/{view_id}', { params: { path: { view_id: id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.views }),
  });
}
