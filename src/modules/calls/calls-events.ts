import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { emittersOf } from '../webhooks/index.js';
import { callSchema } from './calls-schemas.js';
import { elpTestDetailSchema } from './elp-schemas.js';

const callStatusEvent = callSchema.extend({ previous_status: z.string().nullable() });
/** Every ELP event carries the whole test, as GET /elp/tests/{id} returns it at the time of the event. */
const elpEvent = elpTestDetailSchema
  .extend({
    elp_test_id: z.string().meta({ description: 'The test id again (the same as `id`)' }),
  })
  .meta({
    description: 'The ELP test as GET /elp/tests/{elp_test_id} returns it, and its id as `elp_test_id`',
  });

/** The events the calls module emits: the calls' own and the English-proficiency tests'. */
export const callEvents = {
  'call.created': { description: 'A call was created.', data: callSchema },
  'call.status_changed': { description: "A call's status moved forward.", data: callStatusEvent },
  'elp_test.completed': {
    description: 'An ELP test left REQUESTED (COMPLETED, FAILED or INCOMPLETE).',
    data: elpEvent,
  },
  'elp_test.scored': { description: 'An ELP test was scored (scoring_status SCORED).', data: elpEvent },
  'elp_test.failed': {
    description:
      'An ELP test failed: its call ended without a single answer (not placed, unanswered, busy, ' +
      'voicemail, hung up before the first answer), so it could not be scored (status FAILED, ' +
      'scoring_status FAILED; notes says why). Once per test; a low score is not a failure.',
    data: elpEvent,
  },
} as const satisfies EventDefinitions<
  'call.created' | 'call.status_changed' | 'elp_test.completed' | 'elp_test.scored' | 'elp_test.failed'
>;

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(callEvents);
