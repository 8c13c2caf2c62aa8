import { z } from 'zod';
import { dateTime, dateTimeInput } from '../../http/schemas.js';

export const RESULT_GROUPS = [
  'lane',
  'equipment_type',
  'tier',
  'channel',
  'customer_name',
  'carrier_rep_user_id',
  'day',
  'week',
] as const;
export type ResultGroup = (typeof RESULT_GROUPS)[number];

export const resultsQuery = z.object({
  from: dateTimeInput()
    .optional()
    .meta({ description: 'Loads handed to the agent at or after this time (default: 30 days ago).' }),
  to: dateTimeInput().optional().meta({ description: 'Loads handed before this time (default: now).' }),
  group_by: z.enum(RESULT_GROUPS).optional().meta({
    description:
      'One row per value: `lane` (origin state to destination state, `IL-TX`), `equipment_type`, `tier` (routing-guide tier of the booked carrier), `channel` (the booking’s channel), `customer_name`, `carrier_rep_user_id`, `day` or `week` (UTC, of handed_at; a week starts on Monday). Without it, one row. Loads without a value are grouped under `none`.',
  }),
});
export type ResultsQuery = z.output<typeof resultsQuery>;

/** A ratio with what it was computed from: null when the denominator is 0. */
const rate = (description: string) => z.number().nullable().meta({ description });

const byChannel = z.object({
  call: z.number(),
  email: z.number(),
  whatsapp: z.number(),
  total: z.number(),
});

export const resultRowSchema = z
  .object({
    group: z.string().nullable().meta({ description: 'The group’s value (null without group_by).' }),
    loads_handed: z.number().int().meta({ description: 'Loads handed to the agent in the period.' }),
    booked_by_agent: z.number().int().meta({ description: 'Handed loads the agent booked, still booked.' }),
    booked_by_user_after_contact: z.number().int().meta({
      description: 'Handed loads a user booked after the agent had contacted a carrier, still booked.',
    }),
    booked_by_user_without_contact: z.number().int(),
    covered: z.number().int().meta({ description: 'booked_by_agent + booked_by_user_after_contact.' }),
    coverage_rate: rate('covered / loads_handed.'),
    agent_coverage_rate: rate('booked_by_agent / loads_handed.'),
    time_to_cover_p50_seconds: z
      .number()
      .nullable()
      .meta({ description: 'From handed_at to booked_at, covered loads.' }),
    time_to_cover_p90_seconds: z.number().nullable(),
    booking_lead_time_p50_seconds: z
      .number()
      .nullable()
      .meta({ description: 'From booked_at to the first pickup, covered loads with a pickup date.' }),
    booked_vs_posted_median: rate('Median of booked amount / posted_rate at booking.'),
    booked_vs_posted_count: z.number().int().meta({ description: 'Covered loads with a posted_rate.' }),
    booked_vs_market_median: rate('Median of booked amount / suggested_market_rate at booking.'),
    booked_vs_market_count: z.number().int(),
    booked_vs_max_buy_median: rate('Median of booked amount / max_buy_rate at booking.'),
    booked_vs_max_buy_count: z.number().int(),
    booked_above_max_buy: z.number().int().meta({ description: 'Covered loads booked above max_buy_rate.' }),
    booked_above_max_buy_rate: rate('booked_above_max_buy / booked_vs_max_buy_count.'),
    agent_booked_above_max_buy: z.number().int().meta({
      description: 'Of them, booked by the agent: always 0 (the agent never books above the ceiling).',
    }),
    margin_pct_median: rate(
      'Median of (customer_rate - booked amount) / customer_rate, covered loads with a customer_rate. Null for MEMBERs.',
    ),
    margin_count: z.number().int().nullable().meta({ description: 'Null for MEMBERs.' }),
    contacts: byChannel.meta({ description: 'Automated contacts started, by channel.' }),
    contacts_per_booking: z
      .object({
        call: z.number().nullable(),
        email: z.number().nullable(),
        whatsapp: z.number().nullable(),
        total: z.number().nullable(),
      })
      .meta({ description: 'contacts / covered.' }),
    connects: z.number().int().meta({ description: 'Calls answered by a person, replies received.' }),
    connect_rate: rate('connects / contacts.total.'),
    offers: z.number().int().meta({ description: 'Offers received on handed loads.' }),
    offers_per_load: rate('offers / loads_handed.'),
    rounds: z.number().int().meta({ description: 'Offers and counters on covered loads.' }),
    rounds_per_booking: rate('rounds / covered.'),
    bookings: z.number().int().meta({ description: 'Bookings made, including those later undone.' }),
    fall_offs: z.number().int().meta({
      description: 'Bookings undone: the accepted offer reverted, or the load cancelled after booking.',
    }),
    fall_off_rate: rate('fall_offs / bookings.'),
    loads_with_handoff: z
      .number()
      .int()
      .meta({ description: 'Handed loads with a call transferred to a rep or an offer left for a rep.' }),
    handoff_rate: rate('loads_with_handoff / loads_handed.'),
  })
  .meta({ id: 'AgentResultRow' });
export type ResultRow = z.infer<typeof resultRowSchema>;

export const resultsSchema = z
  .object({
    from: dateTime(),
    to: dateTime(),
    group_by: z.enum(RESULT_GROUPS).nullable(),
    data: z.array(resultRowSchema),
    reading: z
      .object({
        replies_read: z
          .number()
          .int()
          .meta({ description: "Carriers' e-mail and WhatsApp replies read in the period." }),
        read_by_chat_model: z.number().int().meta({
          description:
            'Of those, the ones the chat model read beside the rule-based reader (one-load replies, a model configured).',
        }),
        reader_disagreements: z.number().int().meta({
          description:
            'Replies where the chat model read another amount than the rules: each was asked to be confirmed, never taken as read.',
        }),
      })
      .meta({ description: "How the period's replies were read (the whole period, whatever the grouping)." }),
  })
  .meta({ id: 'AgentResults' });

export const ACTIVITY_STATUSES = [
  'waiting_for_wave',
  'contacting',
  'offers_pending_review',
  'booked',
  'no_eligible_carriers',
  'exhausted',
  'paused',
  'not_workable',
] as const;
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number];

export const TIMELINE_KINDS = [
  'handed',
  'wave',
  'carrier_chosen',
  'carrier_skipped',
  'planning',
  'contact',
  'offer',
  'booking',
] as const;

export const timelineEntrySchema = z
  .object({
    at: dateTime(),
    kind: z.enum(TIMELINE_KINDS),
    wave: z.number().int().nullable(),
    carrier_id: z.string().nullable(),
    carrier_name: z.string().nullable(),
    channel: z.string().nullable(),
    tier: z.number().int().nullable(),
    reason: z.string().nullable().meta({
      description:
        'carrier_chosen: why (lane preference or lane history, tier, quiet hours); carrier_skipped: the guard’s refusal (stop_contact_requested, inactive, compliance_blocked, insurance_expired, restricted_on_lane, admin_disabled_on_lane), daily_cap, recently_contacted, carrier_gap (contacted less than carrier_min_gap_minutes ago), carrier_pace (past the gap, but its daily contacts are paced over its hours: see group_lane_loads) or `unreachable: no address for …` (recorded once; never picked for the load again); planning: holding_for_review, no_eligible_carriers, exhausted or deferred (nobody reachable now: quiet hours or the gap); contact: the outreach’s status and its error; offer: the agent’s decision.',
    }),
    outreach_id: z.string().nullable(),
    offer_id: z.string().nullable(),
    amount: z.number().nullable(),
  })
  .meta({ id: 'AgentActivityEntry' });
export type TimelineEntry = z.infer<typeof timelineEntrySchema>;

export const activitySchema = z
  .object({
    load_id: z.string(),
    status: z.enum(ACTIVITY_STATUSES),
    status_reason: z
      .string()
      .nullable()
      .meta({ description: 'For not_workable: why; else a short explanation.' }),
    next_wave_at: dateTime()
      .nullable()
      .meta({ description: 'For waiting_for_wave: when the next wave may start.' }),
    paused_until: dateTime()
      .nullable()
      .meta({ description: 'For paused: when quiet hours end for the queued contacts.' }),
    handed_at: dateTime().nullable(),
    timeline: z.array(timelineEntrySchema),
  })
  .meta({ id: 'AgentActivity' });
export type Activity = z.infer<typeof activitySchema>;
