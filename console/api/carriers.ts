import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import type { paths } from './envoy-api';
import { apiErrorOf } from './errors';
import { keys } from './keys';

export type Carrier = Schemas['Carrier'];
export type LanePreference = Schemas['LanePreference'];
export type ComplianceCheck = NonNullable<
  paths['/api/v1/carriers/{carrier_id}/compliance-checks']['get']['responses']['200']['content']['application/json']
>['data'][number];
export type CarrierListQuery = NonNullable<paths['/api/v1/carriers']['get']['parameters']['query']>;
export type CarrierInput = Schemas['CarrierCreateRequest'];
export type BatchResult = Schemas['CarrierBatchResult'];
export type Reason = Schemas['DisableCarrierRequest']['reason'];

const carrierPath = (id: string) => ({ params: { path: { carrier_id: id } } });

export const useCarrierList = (query: CarrierListQuery) =>
  useQuery({
    queryKey: keys.carrierList(query),
    queryFn: () => unwrap(api.GET('/api/v1/carriers', { params: { query } })),
    placeholderData: keepPreviousData,
  });

export const useCarrier = (id: string) =>
  useQuery({
    queryKey: keys.carrier(id),
    queryFn: () => unwrap(api.GET('/api/v1/carriers/{carrier_id}', carrierPath(id))),
  });

export const useComplianceChecks = (id: string) =>
  useQuery({
    queryKey: keys.carrierPart(id, 'checks'),
    queryFn: () => unwrap(api.GET('/api/v1/carriers/{carrier_id}/compliance-checks', carrierPath(id))),
  });

export const useCarrierAudit = (id: string) =>
  useQuery({
    queryKey: keys.carrierPart(id, 'audit'),
    queryFn: () => unwrap(api.GET('/api/v1/carriers/{carrier_id}/audit-log', carrierPath(id))),
  });

export const useLanePreferences = (id: string) =>
  useQuery({
    queryKey: keys.carrierPart(id, 'lanes'),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/carriers/{carrier_id}/lane-preferences', {
          params: { path: { carrier_id: id }, query: { page_size: 100 } },
        }),
      ),
  });

export const useCarrierOffers = (id: string) =>
  useQuery({
    queryKey: keys.carrierPart(id, 'offers'),
    queryFn: () =>
      unwrap(api.GET('/api/v1/offers', { params: { query: { carrier_id: id, page_size: 50 } } })),
  });

export const useCarrierOutreaches = (id: string) =>
  useQuery({
    queryKey: keys.carrierPart(id, 'outreaches'),
    queryFn: () =>
      unwrap(api.GET('/api/v1/outreaches', { params: { query: { carrier_id: id, page_size: 50 } } })),
  });

/** What a change to a carrier changes: its page (all its parts) and the list. */
function useCarrierInvalidation() {
  const client = useQueryClient();
  return (id: string) => {
    void client.invalidateQueries({ queryKey: keys.carrier(id) });
    void client.invalidateQueries({ queryKey: keys.carriers });
  };
}

export interface ReasonInput {
  reason: Reason;
  reason_note?: string | null;
}

/** Disables or enables a carrier, with a reason code (and the note `other` requires). */
export function useSetCarrierActive(id: string) {
  const invalidate = useCarrierInvalidation();
  return useMutation({
    mutationFn: (v: { active: boolean } & ReasonInput) => {
      const body = { reason: v.reason, reason_note: v.reason_note || null };
      return v.active
        ? unwrap(api.POST('/api/v1/carriers/{carrier_id}/enable', { ...carrierPath(id), body }))
        : unwrap(api.POST('/api/v1/carriers/{carrier_id}/disable', { ...carrierPath(id), body }));
    },
    onSettled: () => invalidate(id),
  });
}

/** Restricts the carrier on a lane (do-not-use) or lifts the restriction, with a reason. */
export function useRestrictLane(carrierId: string) {
  const invalidate = useCarrierInvalidation();
  return useMutation({
    mutationFn: (v: { preferenceId: string; restrict: boolean } & ReasonInput) => {
      const params = { path: { carrier_id: carrierId, preference_id: v.preferenceId } };
      const body = { reason: v.reason, reason_note: v.reason_note || null };
      return v.restrict
        ? unwrap(
            api.POST('/api/v1/carriers/{carrier_id}/lane-preferences/{preference_id}/restrict', {
              params,
              body,
            }),
          )
        : unwrap(
            api.POST('/api/v1/carriers/{carrier_id}/lane-preferences/{preference_id}/unrestrict', {
              params,
              body,
            }),
          );
    },
    onSettled: () => invalidate(carrierId),
  });
}

/** Records the carrier's request not to be contacted, or clears it. */
export function useStopContact(id: string) {
  const invalidate = useCarrierInvalidation();
  return useMutation({
    mutationFn: (record: boolean) =>
      record
        ? unwrap(api.POST('/api/v1/carriers/{carrier_id}/stop-contact', carrierPath(id)))
        : unwrap(api.DELETE('/api/v1/carriers/{carrier_id}/stop-contact', carrierPath(id))),
    onSettled: () => invalidate(id),
  });
}

/** Runs a compliance check now. */
export function useRunCheck(id: string) {
  const invalidate = useCarrierInvalidation();
  return useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/carriers/{carrier_id}/compliance-checks', carrierPath(id))),
    onSettled: () => invalidate(id),
  });
}

export function useCreateCarrier() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CarrierInput) => unwrap(api.POST('/api/v1/carriers', { body })),
    onSettled: () => client.invalidateQueries({ queryKey: keys.carriers }),
  });
}

/**
 * Uploads the batch CSV as it is (`text/csv`): every row gets an outcome (created, updated,
 * skipped, failed with its reason). A 207 is an answer with outcomes, not an error.
 */
export function useUploadCarriers() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (csv: string): Promise<BatchResult> => {
      const { data, error, response } = await api.POST('/api/v1/carriers/batch', {
        // The body is the CSV text itself, sent as the file was read.
        body: csv as unknown as Schemas['CarrierBatchRequest'],
        bodySerializer: (b: unknown) => b as string,
        headers: { 'content-type': 'text/csv' },
      });
      if (!response.ok || !data) throw apiErrorOf(response, error);
      return data;
    },
    onSettled: () => client.invalidateQueries({ queryKey: keys.carriers }),
  });
}
