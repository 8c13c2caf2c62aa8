import { z } from 'zod';
import { dateTime, nonEmptyText, prefixedId, queryList, storedEnum } from '../../http/schemas.js';
import { ESCALATION_AGENT_TYPES, ESCALATION_STATUSES, ESCALATION_TYPES } from './loads-tables.js';

export const escalationIdParams = z.object({ escalation_id: prefixedId('escalation') });

export const listLoadEscalationsQuery = z.object({
  status: queryList(z.enum(ESCALATION_STATUSES), ESCALATION_STATUSES.length).optional().meta({
    description:
      'Only escalations in these statuses (repeated or comma-separated); `ACTIVE` alone when left out.',
  }),
});

export const respondToEscalationBody = z
  .object({
    response_message: nonEmptyText(4000).meta({
      description: "The person's answer to the escalation's `message`.",
    }),
  })
  .meta({ id: 'EscalationResponse' });

export const escalationSchema = z
  .object({
    id: z.string(),
    load_id: z.string(),
    agent_type: storedEnum(ESCALATION_AGENT_TYPES).meta({
      description:
        'The agent that raised it: `CARRIER_SALES` (the agent working carriers’ offers) or `CARRIER_VETTING`.',
    }),
    escalation_type: storedEnum(ESCALATION_TYPES)
      .nullable()
      .meta({
        description:
          '`offer_review`: an offer within the ceiling waited longer than review_escalation_minutes for a rep; ' +
          '`carrier_high_risk`: the carrier a load is booked with turned high risk.',
      }),
    message: z.string().meta({ description: 'What the person is asked to decide.' }),
    status: storedEnum(ESCALATION_STATUSES).meta({
      description:
        '`ACTIVE` waits for a response; `RESPONDED`, `TIMED_OUT` (nobody responded within ' +
        'ESCALATION_TIMEOUT_MINUTES) and `CANCELLED` (what it asked about went away) are final.',
    }),
    call_id: z.string().nullable(),
    offer_id: z.string().nullable().meta({ description: 'The offer it is about, if any.' }),
    reason: z.string().nullable(),
    response_message: z.string().nullable(),
    response_user_id: z.string().nullable().meta({
      description: 'The user who responded; null when an API key did, or when nobody has.',
    }),
    responded_at: dateTime().nullable(),
    resolved_at: dateTime().nullable().meta({ description: 'When it left `ACTIVE`.' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Escalation' });

export type Escalation = z.infer<typeof escalationSchema>;
