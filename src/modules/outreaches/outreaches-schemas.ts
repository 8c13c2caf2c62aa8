import { z } from 'zod';
import { checkCreatedRange, countsBy, createdRangeShape, sortShape } from '../../http/list-query.js';
import { pageQuery } from '../../http/page-query.js';
import { dateTime, nonEmptyText, prefixedId, queryBool, queryList } from '../../http/schemas.js';
import { carrierSchema } from '../carriers/index.js';
import { OUTREACH_DIRECTIONS, OUTREACH_MODALITIES, OUTREACH_STATUSES } from './outreaches-tables.js';

export const outreachSchema = z
  .object({
    id: z.string(),
    carrier: carrierSchema,
    carrier_id: z.string(),
    load_id: z.string(),
    modality: z.enum(OUTREACH_MODALITIES),
    direction: z.enum(OUTREACH_DIRECTIONS),
    created_at: dateTime(),
    updated_at: dateTime(),
    load_number: z.string().nullable(),
    status: z.enum(OUTREACH_STATUSES),
    error_reason: z.string().nullable(),
    delivery_failed_at: dateTime().nullable().meta({
      description: 'Set when the e-mail bounced; independent of `status`: treat non-null as a failure',
    }),
    delivery_failure_reason: z.string().nullable(),
    carrier_engaged: z.boolean().nullable(),
    is_automated: z.boolean(),
    call_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    send_after: z.date().nullable().meta({
      description: 'An automated outreach waits until then (quiet hours in the carrier’s local time, waves).',
    }),
    sent_at: z.date().nullable().meta({ description: 'When the message went out or the call was placed.' }),
  })
  .meta({ id: 'Outreach' });
export type Outreach = z.infer<typeof outreachSchema>;

export const createOutreachBody = z.object({
  carrier_id: prefixedId('carrier'),
  load_id: prefixedId('load'),
  modality: z.enum(OUTREACH_MODALITIES).default('call'),
});
export type CreateOutreachInput = z.output<typeof createOutreachBody>;

/** The documented sort fields of the outreach list; anything else is a 422. */
export const OUTREACH_SORT_FIELDS = ['created_at', 'updated_at', 'status'] as const;
export type OutreachSortField = (typeof OUTREACH_SORT_FIELDS)[number];

const outreachFilters = {
  load_id: prefixedId('load').optional(),
  carrier_id: prefixedId('carrier').optional(),
  modality: queryList(z.enum(OUTREACH_MODALITIES)).optional(),
  status: queryList(z.enum(OUTREACH_STATUSES)).optional(),
  is_automated: queryBool()
    .optional()
    .meta({ description: '`true`: only those the agent started; `false`: only those started by request.' }),
  ...createdRangeShape,
};

/** GET /outreaches/stats: the list's filters, without paging or sorting. */
export const outreachStatsQuery = checkCreatedRange(z.object(outreachFilters));
export type OutreachFilters = z.output<typeof outreachStatsQuery>;

export const listOutreachesQuery = checkCreatedRange(
  pageQuery().extend({
    ...outreachFilters,
    ...sortShape(OUTREACH_SORT_FIELDS, 'created_at', '`status` sorts by the name of the status.'),
  }),
);
export type ListOutreachesQuery = z.output<typeof listOutreachesQuery>;

export const outreachStatsSchema = z
  .object({
    total_count: z.number().int(),
    by_status: countsBy(OUTREACH_STATUSES, 'Outreaches per status.'),
    by_modality: countsBy(OUTREACH_MODALITIES, 'Outreaches per modality.'),
  })
  .meta({ id: 'OutreachStats' });
export type OutreachStats = z.infer<typeof outreachStatsSchema>;

export const outreachIdParams = z.object({ outreach_id: prefixedId('outreach') });

export const TRACKING_CHANNELS = ['voice', 'email', 'whatsapp'] as const;

export const trackingPromptBody = z.object({
  stop_id: prefixedId('stop').nullish().meta({ description: 'A `stop_` of this load the check is about' }),
  instructions: nonEmptyText(2000).meta({ description: 'What to ask or tell the driver or dispatcher' }),
  channel: z.enum(TRACKING_CHANNELS).default('voice'),
});
export type TrackingPromptInput = z.output<typeof trackingPromptBody>;
