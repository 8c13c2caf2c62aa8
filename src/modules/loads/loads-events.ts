import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { emittersOf } from '../webhooks/index.js';

/** The `data` of load.* events: the load's identifiers and its status (with the one before). */
export const loadEventData = z.object({
  load_id: z.string(),
  tms_load_id: z.string().nullable(),
  external_id: z.string().nullable(),
  load_number: z.string().nullable(),
  load_status: z.string().nullable(),
  previous_load_status: z.string().nullable().optional(),
});

/** The events the loads module emits. */
export const loadEvents = {
  'load.created': {
    description: 'A load was created (POST /loads, batch or TMS ingestion).',
    data: loadEventData,
  },
  'load.updated': { description: 'A load was updated by an upsert.', data: loadEventData },
  'load.status_changed': { description: "A load's `load_status` changed.", data: loadEventData },
} as const satisfies EventDefinitions<'load.created' | 'load.updated' | 'load.status_changed'>;

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(loadEvents);
