// The load-status mapping table as the API shows it, and its path parameter.

import { z } from 'zod';
import { text } from '../../http/schemas.js';
import { normalizeTmsStatus } from './loads-ingestion.js';
import { LOAD_STATUSES } from './loads-tables.js';

export const mappingSchema = z
  .object({
    tms_status: z.string(),
    load_status: z.enum(LOAD_STATUSES),
    source: z.enum(['organization', 'default']),
  })
  .meta({ id: 'LoadStatusMapping' });

export const statusMappingParams = z.object({
  tms_status: text(100).refine((s) => normalizeTmsStatus(s) !== '', 'Must not be blank'),
});

export type StatusMapping = z.infer<typeof mappingSchema>;
