import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './envoy-api';
import { keys } from './keys';

export type CallListQuery = NonNullable<paths['/api/v1/calls']['get']['parameters']['query']>;
export type ElpListQuery = NonNullable<paths['/api/v1/elp/tests']['get']['parameters']['query']>;
export type CallDetail = Schemas['CallDetail'];
export type ElpTest = Schemas['ElpTest'];

export const useCallList = (query: CallListQuery) =>
  useQuery({
    queryKey: keys.callList(query),
    queryFn: () => unwrap(api.GET('/api/v1/calls', { params: { query } })),
    placeholderData: keepPreviousData,
  });

export const useCall = (id: string) =>
  useQuery({
    queryKey: keys.call(id),
    queryFn: () => unwrap(api.GET('/api/v1/calls/{call_id}', { params: { path: { call_id: id } } })),
  });

/** The recording's address, when the voice platform kept one (asked for only on the call's page). */
export const useRecording = (id: string, enabled: boolean) =>
  useQuery({
    queryKey: [...keys.call(id), 'recording'],
    queryFn: () =>
      unwrap(api.GET('/api/v1/calls/{call_id}/recording', { params: { path: { call_id: id } } })),
    enabled,
    retry: false,
  });

export const useElpList = (query: ElpListQuery) =>
  useQuery({
    queryKey: keys.elpList(query),
    queryFn: () => unwrap(api.GET('/api/v1/elp/tests', { params: { query } })),
    placeholderData: keepPreviousData,
  });

export const useElpTest = (id: string) =>
  useQuery({
    queryKey: keys.elpTest(id),
    queryFn: () =>
      unwrap(api.GET('/api/v1/elp/tests/{elp_test_id}', { params: { path: { elp_test_id: id } } })),
  });
