import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { emittersOf } from '../webhooks/index.js';
import { callSchema } from './calls-schemas.js';

const callStatusEvent = callSchema.extend({ previous_status: z.string().nullable() });
const elpEvent = z.object({
  elp_test_id: z.string(),
  call_id: z.string().nullable(),
  status: z.string(),
  scoring_status: z.string().nullable(),
  total_score: z.number().nullable(),
});

/** The events the calls module emits: the calls' own and the English-proficiency tests'. */
export const callEvents = {
  'call.created': { description: 'A call was created.', data: callSchema },
  'call.status_changed': { description: "A call's status moved forward.", data: callStatusEvent },
  'elp_test.completed': {
    description: 'An ELP test left REQUESTED (COMPLETED, FAILED or INCOMPLETE).',
    data: elpEvent,
  },
  'elp_test.scored': { description: 'An ELP test was scored.', data: elpEvent },
} as const satisfies EventDefinitions<
  'call.created' | 'call.status_changed' | 'elp_test.completed' | 'elp_test.scored'
>;

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(callEvents);
