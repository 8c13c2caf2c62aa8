import { z } from 'zod';
import { checkCreatedRange, countsBy, createdRangeShape, sortShape } from '../../http/list-query.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, prefixedId, queryList, storedEnum, text } from '../../http/schemas.js';
import { carrierSchema } from '../carriers/index.js';
import { OFFER_CHANNELS, OFFER_SOURCES, OFFER_STATUSES } from './offers-tables.js';

export const offerSchema = z
  .object({
    id: z.string(),
    tms_load_id: z.string().nullable().meta({ description: "The load's TMS id; null when it has none" }),
    load_id: z.string(),
    offer_amount: z.number(),
    status: z.enum(OFFER_STATUSES),
    source: storedEnum(OFFER_SOURCES).meta({
      description: '`api`: entered by a rep or an API client; `agent`: recorded by the agent from a channel',
    }),
    created_at: dateTime(),
    updated_at: dateTime(),
    carrier_id: z.string().nullable(),
    contact_id: z.string().nullable(),
    call_id: z.string().nullable(),
    email_message_id: z.string().nullable(),
    notes: z.string().nullable(),
    channel: z.enum(OFFER_CHANNELS).nullable(),
    accepted_at: dateTime().nullable(),
    created_by_id: z.string().nullable(),
    updated_by_id: z.string().nullable(),
    truck_number: z.string().nullable(),
    trailer_number: z.string().nullable(),
    driver_name: z.string().nullable(),
    driver_phone: z.string().nullable(),
    load_number: z.string().nullable(),
    carrier: carrierSchema.nullable(),
    contact_name: z.string().nullable(),
    contact_phone: z.string().nullable(),
    email_conversation_id: z.string().nullable(),
    rep_name: z.string().nullable(),
    counter_offer_amount: z.number().nullable().meta({
      description:
        "The agent's one counter-offer on this offer, when it made one (offer over posted_rate, within the load's limit).",
    }),
    held_for: z.enum(['vetting', 'confirmation']).nullable().meta({
      description:
        "Why the agent's pending offer waits: `vetting` (the carrier has not passed vetting under strict mode: the quote is kept for a rep, never booked automatically, and no rate was discussed with the carrier), `confirmation` (the agent asked the carrier to confirm the amount before booking it); null otherwise.",
    }),
  })
  .meta({ id: 'Offer' });
export type Offer = z.infer<typeof offerSchema>;

export const createOfferBody = z.object({
  load_id: prefixedId('load'),
  offer_amount: z.number().positive().max(10_000_000),
  carrier_id: prefixedId('carrier').nullish(),
  contact_id: prefixedId('contact')
    .nullish()
    .meta({ description: "One of the carrier's contacts (`con_...`)" }),
  notes: text(2000).nullish(),
  truck_number: text(50).nullish(),
  trailer_number: text(50).nullish(),
  driver_name: text(200).nullish(),
  driver_phone: text(40).nullish(),
});
export type CreateOfferInput = z.output<typeof createOfferBody>;

export const patchOfferBody = z.object({ status: z.enum(OFFER_STATUSES) });

/** The documented sort fields of the offer lists; anything else is a 422. */
export const OFFER_SORT_FIELDS = ['created_at', 'updated_at', 'offer_amount', 'accepted_at'] as const;
export type OfferSortField = (typeof OFFER_SORT_FIELDS)[number];

const { load_id: loadIdFilter, ...offerFiltersOfLoad } = {
  load_id: prefixedId('load').optional(),
  carrier_id: prefixedId('carrier').optional(),
  status: queryList(z.enum(OFFER_STATUSES)).optional(),
  channel: queryList(z.enum(OFFER_CHANNELS)).optional(),
  source: queryList(z.enum(OFFER_SOURCES)).optional(),
  ...createdRangeShape,
};
const offerSort = sortShape(OFFER_SORT_FIELDS, 'created_at');

/** GET /offers/stats: the list's filters, without paging or sorting. */
export const offerStatsQuery = checkCreatedRange(z.object({ load_id: loadIdFilter, ...offerFiltersOfLoad }));
export type OfferFilters = z.output<typeof offerStatsQuery>;

export const listOffersQuery = checkCreatedRange(
  pageQuery().extend({ load_id: loadIdFilter, ...offerFiltersOfLoad, ...offerSort }),
);
export type ListOffersQuery = z.output<typeof listOffersQuery>;

/** GET /loads/{load_id}/offers: the same list, its load in the path. */
export const listLoadOffersQuery = checkCreatedRange(
  pageQuery().extend({ ...offerFiltersOfLoad, ...offerSort }),
);
export type ListLoadOffersQuery = z.output<typeof listLoadOffersQuery>;

export const offerStatsSchema = z
  .object({
    total_count: z.number().int(),
    by_status: countsBy(OFFER_STATUSES, 'Offers per status.'),
    by_channel: countsBy(
      [...OFFER_CHANNELS, 'none'],
      'Offers per channel; `none` counts those without one (entered by a rep or an API client).',
    ),
    by_source: countsBy(OFFER_SOURCES, 'Offers per source.'),
  })
  .meta({ id: 'OfferStats' });
export type OfferStats = z.infer<typeof offerStatsSchema>;

export const offerIdParams = z.object({ offer_id: prefixedId('offer') });
/** An offer within max_buy_rate waiting for a rep's decision (GET /agent/reviews, its events). */
export const offerReviewSchema = z
  .object({
    offer_id: z.string(),
    load_id: z.string(),
    load_number: z.string().nullable(),
    carrier_id: z.string().nullable(),
    offer_amount: z.number(),
    requested_at: z.date(),
    escalated_at: z.date().nullable(),
  })
  .meta({ id: 'AgentReviewItem' });

export const counterOfferBody = z.object({
  amount: z.number().positive().max(10_000_000).meta({
    description:
      "The counter-offer in USD: under what the carrier asked, not under our last counter, never over the load's max_buy_rate.",
  }),
});

/** A rep's counter-offer as answered (and as the `offer.countered` event carries it). */
export const offerCounterSchema = z
  .object({
    offer: offerSchema,
    amount: z.number().meta({ description: 'The counter said to the carrier.' }),
    round: z
      .number()
      .int()
      .meta({ description: "The counter's round in the carrier's conversation on the load (1 first)." }),
    max_rounds: z.number().int().meta({ description: "The negotiation policy's most rounds." }),
    final: z.boolean().meta({ description: 'Said as the final round ("the best we can do").' }),
    outreach_id: z.string().meta({ description: 'The outreach whose conversation it was said in.' }),
  })
  .meta({ id: 'OfferCounter' });
export type OfferCounter = z.infer<typeof offerCounterSchema>;
