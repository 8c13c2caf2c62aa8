import { z } from 'zod';
import { pageQuery } from '../../http/pagination.js';
import { dateTime, queryList, text } from '../../http/schemas.js';
import { carrierSchema } from '../carriers/index.js';
import { OFFER_CHANNELS, OFFER_STATUSES } from './offers-tables.js';

export const offerSchema = z
  .object({
    id: z.string(),
    tms_load_id: z.string().nullable().meta({ description: "The load's TMS id; null when it has none" }),
    load_id: z.string(),
    offer_amount: z.number(),
    status: z.enum(OFFER_STATUSES),
    source: z.string(),
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
  })
  .meta({ id: 'Offer' });
export type Offer = z.infer<typeof offerSchema>;

export const createOfferBody = z.object({
  load_id: text(100),
  offer_amount: z.number().positive().max(10_000_000),
  carrier_id: text(100).nullish(),
  contact_id: text(100).nullish().meta({ description: "One of the carrier's contacts (`con_...`)" }),
  notes: text(2000).nullish(),
  truck_number: text(50).nullish(),
  trailer_number: text(50).nullish(),
  driver_name: text(200).nullish(),
  driver_phone: text(40).nullish(),
});
export type CreateOfferInput = z.output<typeof createOfferBody>;

export const patchOfferBody = z.object({ status: z.enum(OFFER_STATUSES) });

export const listOffersQuery = pageQuery().extend({
  load_id: text(100).optional(),
  carrier_id: text(100).optional(),
  status: queryList(z.enum(OFFER_STATUSES)).optional(),
  channel: queryList(z.enum(OFFER_CHANNELS)).optional(),
});
export type ListOffersQuery = z.output<typeof listOffersQuery>;

export const offerIdParams = z.object({ offer_id: text(100) });
export const loadIdParams = z.object({ load_id: text(100) });
