import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { vettingPolicies } from './carriers-tables.js';

/** The fraud signals an organization's policy sets an action for. */
export const POLICY_SIGNALS = [
  'shared_contact',
  'stale_census',
  'no_power_units',
  'insurance_below_required',
  'insurance_cancellation_pending',
  'contact_changed_recently',
  'contact_mismatch',
  'free_mail',
] as const;
export type PolicySignal = (typeof POLICY_SIGNALS)[number];

/** Signals that always block: the carrier may not legally haul. */
export const ALWAYS_BLOCKING = ['authority_inactive', 'out_of_service'] as const;
export type SignalCode = PolicySignal | (typeof ALWAYS_BLOCKING)[number];

export const SIGNAL_ACTIONS = ['block', 'review', 'ignore'] as const;
export type SignalAction = (typeof SIGNAL_ACTIONS)[number];

const action = z.enum(SIGNAL_ACTIONS);

export const vettingPolicySchema = z
  .object({
    strict_mode: z.boolean().meta({
      description:
        'true: until a carrier passes (compliance_status PASSED, risk_level not high) and, on an inbound call, its identity is verified, the agent shares no load detail beyond lane, dates and equipment, takes no offer and books nothing.',
    }),
    signals: z
      .object(
        // Object.fromEntries types its keys as string; there is one entry per POLICY_SIGNALS member.
        Object.fromEntries(POLICY_SIGNALS.map((s) => [s, action])) as Record<PolicySignal, typeof action>,
      )
      .meta({
        description:
          'What each fraud signal does: block (compliance_status BLOCKED, risk_level high), review (risk_level medium: contacted, never booked automatically) or ignore. authority_inactive and out_of_service always block.',
      }),
    required_liability_usd: z
      .number()
      .int()
      .min(0)
      .max(100_000_000)
      .meta({ description: 'Liability (BI&PD) coverage on file below this is insurance_below_required.' }),
    census_max_age_months: z
      .number()
      .int()
      .min(1)
      .max(240)
      .meta({ description: 'An MCS-150 census update older than this is stale_census.' }),
    contact_change_days: z.number().int().min(1).max(3650).meta({
      description:
        'A census phone, e-mail or address changed within this many days is contact_changed_recently.',
    }),
  })
  .meta({ id: 'VettingPolicy' });
export type VettingPolicy = z.output<typeof vettingPolicySchema>;

export const vettingPolicyPatch = vettingPolicySchema
  .omit({ signals: true })
  .partial()
  .extend({ signals: vettingPolicySchema.shape.signals.partial().optional() });

export const defaultVettingPolicy = (): VettingPolicy => ({
  strict_mode: true,
  signals: {
    shared_contact: 'block',
    stale_census: 'review',
    no_power_units: 'review',
    insurance_below_required: 'block',
    insurance_cancellation_pending: 'review',
    contact_changed_recently: 'review',
    contact_mismatch: 'review',
    free_mail: 'review',
  },
  required_liability_usd: 750_000,
  census_max_age_months: 24,
  contact_change_days: 30,
});

export async function readVettingPolicy(db: DbOrTx, organizationId: string): Promise<VettingPolicy> {
  const [row] = await db
    .select({ policy: vettingPolicies.policy })
    .from(vettingPolicies)
    .where(eq(vettingPolicies.organization_id, organizationId));
  const base = defaultVettingPolicy();
  if (!row) return base;
  // Only updateVettingPolicy writes the column, a whole policy; one written before a member was added lacks it, so Partial.
  const stored = row.policy as Partial<VettingPolicy>;
  return { ...base, ...stored, signals: { ...base.signals, ...stored.signals } };
}

/** A carrier has passed vetting: compliance PASSED and its risk not high. */
export const passesVetting = (c: { compliance_status: string; risk_level?: string | null }) =>
  c.compliance_status === 'PASSED' && c.risk_level !== 'high';

/**
 * Whether strict mode holds this carrier back: the organization has it on and the carrier has not
 * passed. Such a carrier hears the lane, dates and equipment only, and no offer of its is taken.
 */
export async function heldByStrictMode(
  db: DbOrTx,
  carrier: { organization_id: string; compliance_status: string; risk_level?: string | null },
): Promise<boolean> {
  if (passesVetting(carrier)) return false;
  return (await readVettingPolicy(db, carrier.organization_id)).strict_mode;
}

export async function updateVettingPolicy(
  db: DbOrTx,
  organizationId: string,
  patch: z.output<typeof vettingPolicyPatch>,
): Promise<VettingPolicy> {
  const current = await readVettingPolicy(db, organizationId);
  const next: VettingPolicy = {
    ...current,
    ...patch,
    // current has every signal; the patch's members only replace some.
    signals: { ...current.signals, ...patch.signals } as VettingPolicy['signals'],
  };
  await db
    .insert(vettingPolicies)
    .values({ organization_id: organizationId, policy: next })
    .onConflictDoUpdate({
      target: vettingPolicies.organization_id,
      set: { policy: next, updated_at: productNow },
    });
  return next;
}
