import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { DbOrTx } from '../../db/client.js';
import { productNow } from '../../db/columns.js';
import { text } from '../../http/schemas.js';
import type { OfferPolicy } from '../offers/index.js';
import { AGENT_CHANNELS, agentSettings } from './agent-tables.js';
import type { ContactWindow } from './carrier-selection.js';
import {
  defaultNegotiation,
  negotiationPolicyPatch,
  negotiationPolicySchema,
  ordered,
  storedNegotiation,
} from './negotiation-settings.js';

const hour = () => z.number().int().min(0).max(23);

/** The agent's cadence and opt-ins for one organization (GET/PATCH /agent/settings). */
export const agentSettingsSchema = z
  .object({
    enabled: z
      .boolean()
      .meta({ description: 'false: the agent leaves every load of the organization alone.' }),
    wave_size: z.number().int().min(1).max(100).meta({
      description:
        'Carriers contacted per wave. A wave for a load picked up within 12 hours also takes every qualified carrier that could not be reached again before the pickup (its quiet hours begin before the next wave and last past the pickup, or the pickup comes first).',
    }),
    wave_wait_minutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .meta({
        description:
          'Wait after a wave before the next one (the next carriers of the same tier, or the next tier), unless an acceptable offer is pending.',
      }),
    channel_order: z
      .array(z.enum(AGENT_CHANNELS))
      .min(1)
      .max(3)
      .refine((a) => new Set(a).size === a.length, 'Must not repeat a channel')
      .meta({
        uniqueItems: true,
        description:
          "Channels to reach a carrier by, first choice first; a carrier is contacted on the first one it has an address for. A carrier's own preferred_channel, when it is one of these, comes first.",
      }),
    recontact_window_hours: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .meta({
        description:
          'No second contact of one carrier about one load within this many hours, but the one follow-up of follow_up_unanswered_minutes.',
      }),
    follow_up_unanswered_minutes: z
      .number()
      .int()
      .min(0)
      .max(24 * 60)
      .meta({
        description:
          'A carrier whose one contact about a load picked up within 12 hours has gone unanswered this many minutes (no reply, no pick-up; a failed placement aside) hears of it once more, within every other rule (quiet hours, daily cap, gap); 0: never.',
      }),
    daily_cap_per_carrier: z
      .number()
      .int()
      .min(1)
      .max(100)
      .meta({ description: 'Automated contacts of one carrier across all loads in any 24 hours.' }),
    quiet_hours_start: hour().meta({ description: "Hour (0-23, carrier's local time) quiet hours begin." }),
    quiet_hours_end: hour().meta({
      description:
        "Hour (0-23, carrier's local time) quiet hours end; equal to the start means no quiet hours.",
    }),
    carrier_min_gap_minutes: z
      .number()
      .int()
      .min(0)
      .max(24 * 60)
      .meta({
        description:
          'Least minutes between two automated contacts of one carrier, across all loads (0: no gap). Loads joining a contact not sent yet (group_lane_loads) do not add a contact.',
      }),
    group_lane_loads: z.boolean().meta({
      description:
        'true: a carrier contacted about a load is offered, in the same message or call, the other open loads of the same lane (origin, destination, equipment) and of its other primary lanes: at most eight loads in writing, four on a call, loads it was never offered first, then loads picked up before its daily cap next frees a contact (24 hours after its oldest contact of the last 24 hours, or within 24 hours without one) that the fewest carriers have been offered, then the soonest pickup; with several to offer, a carrier that does not prefer calls is written to by e-mail rather than called. Loads due while its contact is still queued join that contact, and as the contact goes out it also offers the loads that came in meanwhile, within the same limits. A carrier contacted in the last 24 hours is then contacted again no sooner than its hours in a day (outside quiet hours) divided by daily_cap_per_carrier (13 h / 3: 4 h 20 min by default), so each contact offers the loads that came in since, except about a load picked up within 12 hours (only carrier_min_gap_minutes applies). false: one contact per load, no pace.',
    }),
    review_escalation_minutes: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .meta({
        description:
          "Minutes an offer within max_buy_rate may wait for a rep's decision before its review item escalates (offer.review_escalated, once); 0: never.",
      }),
    auto_accept_at_or_under_posted_rate: z.boolean().meta({
      description:
        "true: an offer at or under the posted rate (and max_buy_rate) books the load at once, for a carrier whose compliance_status is PASSED; false: it waits pending for a rep. See negotiation.auto_accept_at_or_under_ask for booking at the agent's current ask.",
    }),
    restriction_notices_enabled: z.boolean().meta({
      description:
        'true: an inbound e-mail from an inactive carrier whose tms_status is in restriction_tms_statuses gets an operational restriction notice instead of load talk.',
    }),
    restriction_tms_statuses: z.array(text(100)).max(50).meta({
      description: 'Carrier tms_status values (case-insensitive) the restriction notice applies to.',
    }),
    negotiation: negotiationPolicySchema,
  })
  .meta({ id: 'AgentSettings' });
export type AgentSettings = z.output<typeof agentSettingsSchema>;

/** Any of the settings; `negotiation` may name only the policy fields it changes. */
export const agentSettingsPatch = agentSettingsSchema
  .omit({ negotiation: true })
  .partial()
  .extend({ negotiation: negotiationPolicyPatch.optional() });

export const DEFAULT_AGENT_SETTINGS: Readonly<AgentSettings> = Object.freeze({
  enabled: true,
  wave_size: 5,
  wave_wait_minutes: 30,
  channel_order: ['call', 'email', 'whatsapp'],
  recontact_window_hours: 24,
  follow_up_unanswered_minutes: 90,
  daily_cap_per_carrier: 3,
  carrier_min_gap_minutes: 30,
  group_lane_loads: true,
  review_escalation_minutes: 15,
  quiet_hours_start: 20,
  quiet_hours_end: 7,
  auto_accept_at_or_under_posted_rate: false,
  restriction_notices_enabled: false,
  restriction_tms_statuses: [],
  negotiation: defaultNegotiation(),
} satisfies AgentSettings);

export async function readAgentSettings(db: DbOrTx, organizationId: string): Promise<AgentSettings> {
  const [row] = await db
    .select()
    .from(agentSettings)
    .where(eq(agentSettings.organization_id, organizationId));
  if (!row)
    return {
      ...DEFAULT_AGENT_SETTINGS,
      channel_order: [...DEFAULT_AGENT_SETTINGS.channel_order],
      negotiation: defaultNegotiation(),
    };
  const { organization_id: _o, created_at: _c, updated_at: _u, negotiation, ...settings } = row;
  return { ...settings, negotiation: storedNegotiation(negotiation) };
}

/** The re-contact rules of these settings, as carrier selection reads them. */
export const contactWindowOf = (s: AgentSettings): ContactWindow => ({
  hours: s.recontact_window_hours,
  followUpMinutes: s.follow_up_unanswered_minutes,
});

/** The offers module's policy for carriers' offers, as these settings hold it. */
export const agentOfferPolicy = (db: DbOrTx): OfferPolicy => ({
  of: async (organizationId) => offerPolicyOf(await readAgentSettings(db, organizationId)),
});

/** The offer policy these settings hold (a caller that has read them already). */
export const offerPolicyOf = (s: AgentSettings) => ({
  autoAcceptAtOrUnderPostedRate: s.auto_accept_at_or_under_posted_rate,
  negotiation: s.negotiation,
});

/** Applies a partial change over the current settings; returns the result. */
export async function updateAgentSettings(
  db: DbOrTx,
  organizationId: string,
  patch: z.output<typeof agentSettingsPatch>,
): Promise<AgentSettings> {
  const current = await readAgentSettings(db, organizationId);
  const { negotiation, ...rest } = patch;
  const next: AgentSettings = { ...current, ...rest, negotiation: current.negotiation };
  if (negotiation) {
    // The merged policy is validated whole (the schedule's rules span fields).
    next.negotiation = ordered(negotiationPolicySchema.parse({ ...current.negotiation, ...negotiation }));
  }
  next.restriction_tms_statuses = [
    ...new Set(next.restriction_tms_statuses.map((s) => s.trim().toLowerCase())),
  ];
  await db
    .insert(agentSettings)
    .values({ organization_id: organizationId, ...next })
    .onConflictDoUpdate({ target: agentSettings.organization_id, set: { ...next, updated_at: productNow } });
  return next;
}
