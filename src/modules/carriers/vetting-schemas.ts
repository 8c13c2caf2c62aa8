import { z } from 'zod';
import { dateTime } from '../../http/schemas.js';
import { RISK_LEVELS } from './carriers-tables.js';
import { SIGNAL_ACTIONS } from './vetting-policy.js';

export const fraudSignalSchema = z
  .object({
    code: z.string().meta({
      description:
        'The rule: shared_contact, stale_census, no_power_units, insurance_below_required, insurance_cancellation_pending, authority_inactive, out_of_service, contact_changed_recently, contact_mismatch or free_mail',
    }),
    action: z
      .enum(SIGNAL_ACTIONS)
      .meta({ description: "What the organization's vetting policy makes of it" }),
    evidence: z.string().meta({ description: 'The facts behind it, in words' }),
  })
  .meta({ id: 'FraudSignal' });

const riskLevel = z.enum(RISK_LEVELS).nullable().meta({
  description:
    'low; medium (unverified, or a signal the policy sends to review: contacted, never booked automatically); high (blocked: never contacted or booked). Null before the first check.',
});

/** The risk fields of a carrier. */
export const carrierRiskFields = {
  risk_level: riskLevel,
  risk_reasons: z
    .array(z.string())
    .meta({ description: "The codes behind risk_level: the verdict's reasons and the signals found" }),
  fraud_signals: z.array(fraudSignalSchema),
};

/** The risk fields of one compliance check. */
export const checkRiskFields = { risk_level: riskLevel, signals: z.array(fraudSignalSchema) };

/** One compliance check of a carrier. */
export const complianceCheckSchema = z.object({
  id: z.string(),
  provider: z.string(),
  verdict: z.enum(['PASSED', 'BLOCKED', 'UNVERIFIED']),
  reasons: z.array(z.string()),
  detail: z.string().nullable().meta({
    description:
      'The facts behind the reasons in words: a grant date and its source, an out-of-service order, what failed when the provider gave no answer',
  }),
  ...checkRiskFields,
  checked_at: dateTime(),
});
