import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type AgentActivity = Schemas['AgentActivity'];
export type Call = Schemas['Call'];
export type Outreach = Schemas['Outreach'];

export const useAgentActivity = (loadId: string) =>
  useQuery({
    queryKey: keys.loadPart(loadId, 'activity'),
    queryFn: () =>
      unwrap(api.GET('/api/v1/loads/{load_id}/agent-activity', { params: { path: { load_id: loadId } } })),
  });

export const useLoadCalls = (loadId: string) =>
  useQuery({
    queryKey: keys.loadPart(loadId, 'calls'),
    queryFn: () =>
      unwrap(api.GET('/api/v1/loads/{load_id}/calls', { params: { path: { load_id: loadId } } })),
  });

export const useLoadOutreaches = (loadId: string, carrierId?: string) =>
  useQuery({
    queryKey: [...keys.loadPart(loadId, 'outreaches'), carrierId ?? null],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/outreaches', {
          params: {
            query: { load_id: loadId, page_size: 100, ...(carrierId ? { carrier_id: carrierId } : {}) },
          },
        }),
      ),
  });

export const useMessages = (outreachId: string, enabled = true) =>
  useQuery({
    queryKey: keys.messages(outreachId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/outreaches/{outreach_id}/messages', {
          params: { path: { outreach_id: outreachId } },
        }),
      ),
    enabled,
  });

/** Starts a booking call about the load to a phone number. */
export function useStartCall(loadId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (phone: string) =>
      unwrap(
        api.POST('/api/v1/calls', {
          body: { phone_number: phone, load_id: loadId, call_type: 'LOAD_BOOKING' },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.loadPart(loadId, 'calls') }),
  });
}

/** Joins a call in progress: the call is transferred to the signed-in user's phone. */
export function useJoinCall(loadId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (callId: string) =>
      unwrap(api.POST('/api/v1/calls/{call_id}/join', { params: { path: { call_id: callId } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.loadPart(loadId, 'calls') }),
  });
}

/** One call with its transcript and analysis (fetched when a rep opens it). */
export const useCallDetail = (callId: string, enabled: boolean) =>
  useQuery({
    queryKey: ['call', callId],
    queryFn: () => unwrap(api.GET('/api/v1/calls/{call_id}', { params: { path: { call_id: callId } } })),
    enabled,
  });
