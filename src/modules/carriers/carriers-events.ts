import { z } from 'zod';
import type { EventDefinitions } from '../../domain/events.js';
import { emittersOf } from '../webhooks/index.js';
import { carrierSchema, lanePreferenceSchema } from './carriers-schemas.js';
import { fraudSignalSchema } from './vetting-schemas.js';

const complianceEvent = z.object({
  carrier_id: z.string(),
  compliance_status: z.string(),
  previous_compliance_status: z.string().nullable(),
  reasons: z.array(z.string()),
  risk_level: z.enum(['low', 'medium', 'high']),
  previous_risk_level: z.enum(['low', 'medium', 'high']).nullable(),
  risk_reasons: z.array(z.string()),
  signals: z.array(fraudSignalSchema),
});

/** The events the carriers module emits. */
export const carrierEvents = {
  'carrier.created': { description: 'A carrier was created.', data: carrierSchema },
  'carrier.updated': {
    description: 'A carrier was updated (PATCH or an ingestion upsert).',
    data: carrierSchema,
  },
  'carrier.disabled': { description: 'A carrier was disabled.', data: carrierSchema },
  'carrier.enabled': { description: 'A carrier was enabled.', data: carrierSchema },
  'carrier.compliance_changed': {
    description:
      "A compliance check changed the carrier's verdict, risk level or fraud signals (a check on creation or update, a background re-check, the monitoring of carriers with loads in flight).",
    data: complianceEvent,
  },
  'lane_preference.restricted': {
    description: 'A carrier was restricted (do not use).',
    data: lanePreferenceSchema,
  },
  'lane_preference.unrestricted': {
    description: 'A carrier restriction was lifted.',
    data: lanePreferenceSchema,
  },
  'lane_preference.updated': {
    description:
      "A lane preference's is_active was switched (PATCH); the carrier is worked on the lane only while it is true.",
    data: lanePreferenceSchema,
  },
} as const satisfies EventDefinitions<
  | 'carrier.created'
  | 'carrier.updated'
  | 'carrier.disabled'
  | 'carrier.enabled'
  | 'carrier.compliance_changed'
  | 'lane_preference.restricted'
  | 'lane_preference.unrestricted'
  | 'lane_preference.updated'
>;

/** Emitters of this module's events: a type it does not declare does not compile. */
export const { emitEvent, emitEvents } = emittersOf(carrierEvents);
