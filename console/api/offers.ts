import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './keys';

export type Offer = Schemas['Offer'];
export type ReviewItem = Schemas['AgentReviewListItem'];
export type OfferCounter = Schemas['OfferCounter'];

export const useLoadOffers = (loadId: string) =>
  useQuery({
    queryKey: keys.loadPart(loadId, 'offers'),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/loads/{load_id}/offers', {
          params: { path: { load_id: loadId }, query: { page_size: 100 } },
        }),
      ),
  });

export const useReviews = () =>
  useQuery({
    queryKey: keys.reviews,
    queryFn: () => unwrap(api.GET('/api/v1/agent/reviews', { params: { query: { limit: 200 } } })),
  });

/** What a decision on an offer changes: the load, its offers, the board, the review queue. */
function useOfferInvalidation() {
  const client = useQueryClient();
  return (loadId: string) => {
    void client.invalidateQueries({ queryKey: keys.load(loadId) });
    void client.invalidateQueries({ queryKey: keys.loads });
    void client.invalidateQueries({ queryKey: keys.reviews });
  };
}

/** Accepts (books) or rejects an offer; a 409 (already booked, not bookable) refreshes the data too. */
export function useDecideOffer() {
  const invalidate = useOfferInvalidation();
  return useMutation({
    mutationFn: (v: { offer: Offer; status: 'accepted' | 'rejected' }) =>
      unwrap(
        api.PATCH('/api/v1/offers/{offer_id}', {
          params: { path: { offer_id: v.offer.id } },
          body: { status: v.status },
        }),
      ),
    onSettled: (_data, _error, v) => invalidate(v.offer.load_id),
  });
}

/** A rep's counter-offer, said in the offer's conversation; retried safely with its Idempotency-Key. */
export function useCounterOffer() {
  const invalidate = useOfferInvalidation();
  return useMutation({
    mutationFn: (v: { offer: Offer; amount: number; key: string }) =>
      unwrap(
        api.POST('/api/v1/offers/{offer_id}/counter', {
          params: { path: { offer_id: v.offer.id }, header: { 'idempotency-key': v.key } },
          body: { amount: v.amount },
        }),
      ),
    onSettled: (_data, _error, v) => invalidate(v.offer.load_id),
  });
}
