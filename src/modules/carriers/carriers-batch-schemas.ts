// The answer to POST /carriers/batch: the batch envelope and one result per carrier sent.

import { z } from 'zod';
import { dateTime } from '../../http/schemas.js';

export const batchResultSchema = z
  .object({
    success: z.boolean(),
    total: z.number().int(),
    successful: z.number().int(),
    failed: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    processed_at: dateTime(),
    results: z.array(
      z.object({
        identifier: z.string(),
        success: z.boolean(),
        carrier_id: z.string().nullable(),
        operation: z.string().nullable(),
        error: z.string().nullable(),
        error_code: z.string().nullable(),
        lanes_created: z.number().int(),
      }),
    ),
    data: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(['created', 'updated', 'skipped', 'failed']),
        id: z.string().nullable(),
        external_id: z.string().nullable(),
        error: z.object({ code: z.string(), message: z.string(), param: z.string().nullable() }).nullable(),
      }),
    ),
    summary: z.object({
      total: z.number().int(),
      created: z.number().int(),
      updated: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
    }),
    errors: z
      .array(
        z.object({
          index: z.number().int(),
          code: z.string(),
          message: z.string(),
          param: z.string().nullable(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'CarrierBatchResult' });
export type BatchResult = z.infer<typeof batchResultSchema>;
