import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type VoiceNumber = Schemas['VoiceNumber'];
export type VoiceTemplate = Schemas['VoiceTemplate'];

export const useVoiceNumbers = (enabled: boolean) =>
  useQuery({
    queryKey: keys.voiceNumbers,
    queryFn: () => unwrap(api.GET('/api/v1/voice/numbers')),
    enabled,
  });

export function useAddVoiceNumber() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateVoiceNumberRequest']) =>
      unwrap(api.POST('/api/v1/voice/numbers', { body })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.voiceNumbers }),
  });
}

export function useRemoveVoiceNumber() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(
        api.DELETE('/api/v1/voice/numbers/{voice_number_id}', { params: { path: { voice_number_id: id } } }),
      ),
    onSettled: () => client.invalidateQueries({ queryKey: keys.voiceNumbers }),
  });
}

export const useVoiceTemplates = () =>
  useQuery({
    queryKey: keys.voiceTemplates,
    queryFn: () => unwrap(api.GET('/api/v1/voice-templates', { params: { query: { page_size: 100 } } })),
  });

/** Creates a call script, or changes one of the organization's own (built-in ones are read-only). */
export function useSaveVoiceTemplate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: string | null; body: Schemas['CreateVoiceTemplateRequest'] }) =>
      v.id
        ? unwrap(
            api.PATCH('/api/v1/voice-templates/{template_id}', {
              params: { path: { template_id: v.id } },
              body: v.body,
            }),
          )
        : unwrap(api.POST('/api/v1/voice-templates', { body: v.body })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.voiceTemplates }),
  });
}

export function useDeleteVoiceTemplate() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      unwrap(api.DELETE('/api/v1/voice-templates/{template_id}', { params: { path: { template_id: id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.voiceTemplates }),
  });
}
