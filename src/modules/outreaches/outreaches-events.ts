import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { emittersOf } from '../webhooks/index.js';

const outreachEvent = z.object({
  outreach_id: z.string(),
  carrier_id: z.string().nullable(),
  load_id: z.string().nullable(),
  modality: z.string().nullable(),
  status: z.string(),
  previous_status: z.string().nullable().optional(),
});

/** The events the outreaches module emits. */
export const outreachEvents = {
  'outreach.created': { description: 'An outreach started.', data: outreachEvent },
  'outreach.status_changed': { description: "An outreach's status changed.", data: outreachEvent },
} as const satisfies EventDefinitions<'outreach.created' | 'outreach.status_changed'>;

/** The `data` of outreach.* events: ids, modality and the status (with the one before). */
export const outreachEventData = (
  o: {
    id: string;
    carrier_id: string | null;
    load_id: string | null;
    modality: string | null;
    status: string;
  },
  previous: string | null = null,
) => ({
  outreach_id: o.id,
  carrier_id: o.carrier_id,
  load_id: o.load_id,
  modality: o.modality,
  status: o.status,
  previous_status: previous,
});

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(outreachEvents);
