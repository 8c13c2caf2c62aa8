import { z } from 'zod';
import { pageQuery } from '../../http/pagination.js';
import { dateTime, nonEmptyText, queryList, text } from '../../http/schemas.js';
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
  carrier_id: text(100),
  load_id: text(100),
  modality: z.enum(OUTREACH_MODALITIES).default('call'),
});
export type CreateOutreachInput = z.output<typeof createOutreachBody>;

export const listOutreachesQuery = pageQuery().extend({
  load_id: text(100).optional(),
  carrier_id: text(100).optional(),
  modality: queryList(z.enum(OUTREACH_MODALITIES)).optional(),
  status: queryList(z.enum(OUTREACH_STATUSES)).optional(),
});
export type ListOutreachesQuery = z.output<typeof listOutreachesQuery>;

export const outreachIdParams = z.object({ outreach_id: text(100) });

export const TRACKING_CHANNELS = ['voice', 'email', 'whatsapp'] as const;

export const trackingPromptBody = z.object({
  stop_id: text(100).nullish().meta({ description: 'A `stop_` of this load the check is about' }),
  instructions: nonEmptyText(2000).meta({ description: 'What to ask or tell the driver or dispatcher' }),
  channel: z.enum(TRACKING_CHANNELS).default('voice'),
});
export type TrackingPromptInput = z.output<typeof trackingPromptBody>;
