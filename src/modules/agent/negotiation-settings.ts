import { z } from 'zod';
import {
  DEFAULT_NEGOTIATION_POLICY,
  NEGOTIATION_STRATEGIES,
  type NegotiationPolicy,
  TARGET_BASES,
} from '../../domain/negotiation-policy.js';
import { defined } from '../../lib/defined.js';

const stepSchema = z
  .object({
    min_hours_to_pickup: z
      .number()
      .int()
      .min(0)
      .max(24 * 60)
      .meta({
        description: 'The step applies from this many hours before pickup (0: up to and past pickup).',
      }),
    max_concession_pct: z.number().min(0).max(100).meta({
      description: 'Most the agent may concede over its opening ask, as a percentage of the target.',
    }),
  })
  .meta({ id: 'ConcessionStep' });

const scheduleSchema = z
  .array(stepSchema)
  .min(1)
  .max(12)
  .superRefine((steps, ctx) => {
    const hours = steps.map((s) => s.min_hours_to_pickup);
    if (new Set(hours).size !== hours.length)
      ctx.addIssue({ code: 'custom', message: 'Must not repeat a min_hours_to_pickup' });
    if (!hours.includes(0))
      ctx.addIssue({ code: 'custom', message: 'Must have a step with min_hours_to_pickup 0' });
    const sorted = [...steps].sort((a, b) => b.min_hours_to_pickup - a.min_hours_to_pickup);
    for (let i = 1; i < sorted.length; i++) {
      if (
        defined(sorted[i], 'sorted[i]').max_concession_pct <
        defined(sorted[i - 1], 'sorted[i - 1]').max_concession_pct
      )
        ctx.addIssue({
          code: 'custom',
          message: 'max_concession_pct must not fall as pickup nears (fewer hours, equal or more concession)',
        });
    }
  })
  .meta({
    // The step at 0 hours, as the document states it; the order rules compare steps, which it cannot.
    contains: {
      type: 'object',
      properties: { min_hours_to_pickup: { const: 0 } },
      required: ['min_hours_to_pickup'],
    },
    description:
      'How far the agent may come up from its opening ask, by hours to pickup: the step with the largest min_hours_to_pickup not above the hours left applies (an unknown pickup takes the least urgent step). The allowance must not fall as pickup nears.',
  });

/** The organization's negotiation policy (agent settings `negotiation`). */
export const negotiationPolicySchema = z
  .object({
    strategy: z.enum(NEGOTIATION_STRATEGIES).meta({
      description:
        "concede: counter from the opening ask toward the ceiling by the schedule, a final 'best we can do' round, and the same answers whatever the ceiling. posted_rate_once: the earlier rule (one counter at the posted rate, a decline over max_buy_rate), kept as a baseline; it reveals the ceiling.",
    }),
    target_basis: z.enum(TARGET_BASES).meta({
      description:
        "What the agent aims at: the load's posted_rate, or its suggested_market_rate when it has one (else the posted rate).",
    }),
    opening_ask_pct: z.number().min(50).max(100).meta({
      description:
        'The first counter-offer as a percentage of the target; never below the posted rate carriers were told, never over max_buy_rate.',
    }),
    max_rounds: z.number().int().min(1).max(10).meta({
      description: 'Most counter-offers to one carrier on one load, the final one included.',
    }),
    concession_schedule: scheduleSchema,
    best_and_final: z.boolean().meta({
      description: "true: the last round is said as 'the best we can do is $X'.",
    }),
    auto_accept_at_or_under_ask: z.boolean().meta({
      description:
        "true: an offer at or under the agent's current ask (never over max_buy_rate) books the load at once, for a carrier whose compliance_status is PASSED; others wait for a rep.",
    }),
    round_to: z.number().int().min(1).max(500).meta({
      description: 'Amounts the agent puts forward are rounded down to a multiple of this many dollars.',
    }),
  })
  .meta({ id: 'NegotiationPolicy' });

/** A partial change of the policy (PATCH /agent/settings): the fields given replace the stored ones. */
export const negotiationPolicyPatch = negotiationPolicySchema
  .partial()
  .meta({ id: 'NegotiationPolicyPatch' });

export const defaultNegotiation = (): NegotiationPolicy => ({
  ...DEFAULT_NEGOTIATION_POLICY,
  concession_schedule: DEFAULT_NEGOTIATION_POLICY.concession_schedule.map((s) => ({ ...s })),
});

/** The policy with its schedule in order, most hours first (as it is stored and shown). */
export const ordered = (p: NegotiationPolicy): NegotiationPolicy => ({
  ...p,
  concession_schedule: [...p.concession_schedule].sort(
    (a, b) => b.min_hours_to_pickup - a.min_hours_to_pickup,
  ),
});

/** The stored policy over the defaults (a row written before a field existed takes its default). */
export function storedNegotiation(stored: unknown): NegotiationPolicy {
  const merged = { ...defaultNegotiation(), ...(stored && typeof stored === 'object' ? stored : {}) };
  const parsed = negotiationPolicySchema.safeParse(merged);
  return parsed.success ? ordered(parsed.data) : defaultNegotiation();
}
