import { useCan } from '../../api/access';
import {
  useAgentSettings,
  useUpdateAgentSettings,
  useUpdateVettingPolicy,
  useVettingPolicy,
} from '../../api/settings';
import { Problem } from '../../ui/problem';
import { PolicyForm, type SettingField } from './policy-form';

const CADENCE: readonly SettingField[] = [
  {
    path: 'enabled',
    label: 'Agent on',
    kind: 'boolean',
    meaning: 'Off: the agent leaves every load of the organization alone.',
  },
  {
    path: 'channel_order',
    label: 'Channel order',
    kind: 'list',
    meaning:
      'call, email, whatsapp in the order tried: a carrier is contacted on the first it has an address for.',
  },
  { path: 'wave_size', label: 'Wave size', kind: 'number', meaning: 'Carriers contacted per wave.' },
  {
    path: 'wave_wait_minutes',
    label: 'Wait between waves (minutes)',
    kind: 'number',
    meaning: 'Wait after a wave before the next, unless an acceptable offer waits for a rep.',
  },
  {
    path: 'daily_cap_per_carrier',
    label: 'Daily cap per carrier',
    kind: 'number',
    meaning: 'Automated contacts of one carrier across all loads in any 24 hours.',
  },
  {
    path: 'recontact_window_hours',
    label: 'Re-contact window (hours)',
    kind: 'number',
    meaning: 'No second contact of one carrier about one load within this many hours.',
  },
  {
    path: 'carrier_min_gap_minutes',
    label: 'Least gap between contacts (minutes)',
    kind: 'number',
    meaning: 'Between two automated contacts of one carrier, across all loads; 0: no gap.',
  },
  {
    path: 'quiet_hours_start',
    label: 'Quiet hours start (hour)',
    kind: 'number',
    meaning: "Hour (0-23, the carrier's local time) quiet hours begin.",
  },
  {
    path: 'quiet_hours_end',
    label: 'Quiet hours end (hour)',
    kind: 'number',
    meaning: 'Hour quiet hours end; equal to the start: no quiet hours.',
  },
  {
    path: 'group_lane_loads',
    label: 'Offer the lane’s other loads together',
    kind: 'boolean',
    meaning:
      'A carrier contacted about a load is offered the other open loads of its lanes in the same message or call.',
  },
  {
    path: 'review_escalation_minutes',
    label: 'Escalate a review after (minutes)',
    kind: 'number',
    meaning: 'An offer waiting for a rep this long escalates; 0: never.',
  },
  {
    path: 'auto_accept_at_or_under_posted_rate',
    label: 'Book at or under the posted rate',
    kind: 'boolean',
    meaning:
      'An offer at or under the posted rate (and the ceiling) from a PASSED carrier books the load at once.',
  },
  {
    path: 'restriction_notices_enabled',
    label: 'Restriction notices',
    kind: 'boolean',
    meaning:
      'An e-mail from a disabled carrier whose TMS status is listed below gets a restriction notice instead of load talk.',
  },
  {
    path: 'restriction_tms_statuses',
    label: 'Restriction TMS statuses',
    kind: 'list',
    meaning: 'Carrier TMS statuses the restriction notice applies to, separated by commas.',
  },
];

const NEGOTIATION: readonly SettingField[] = [
  {
    path: 'negotiation.strategy',
    label: 'Strategy',
    kind: 'choice',
    options: ['concede', 'posted_rate_once'],
    meaning:
      'concede: counter from the opening ask toward the ceiling by the schedule, the same answers whatever the ceiling. posted_rate_once: one counter at the posted rate, then a rep.',
  },
  {
    path: 'negotiation.target_basis',
    label: 'Target',
    kind: 'choice',
    options: ['posted_rate', 'suggested_market_rate'],
    meaning: 'What the agent aims at: the posted rate, or the market rate when the load has one.',
  },
  {
    path: 'negotiation.opening_ask_pct',
    label: 'Opening ask (% of the target)',
    kind: 'number',
    meaning: 'The first counter, never below the posted rate carriers were told and never over the ceiling.',
  },
  {
    path: 'negotiation.max_rounds',
    label: 'Most counters',
    kind: 'number',
    meaning: 'Counter-offers to one carrier on one load, the final one included.',
  },
  {
    path: 'negotiation.concession_schedule',
    label: 'Concession schedule',
    kind: 'schedule',
    meaning:
      'How far over its opening ask the agent may come by hours to pickup, as "72 h: 2%, 24 h: 4%, 6 h: 6%, 0 h: 10%"; one step starts at 0 h.',
  },
  {
    path: 'negotiation.best_and_final',
    label: 'Say the last round as our best',
    kind: 'boolean',
    meaning: 'The last round is said as "the best we can do is $X".',
  },
  {
    path: 'negotiation.auto_accept_at_or_under_ask',
    label: 'Book at or under our ask',
    kind: 'boolean',
    meaning: "An offer at or under the agent's current ask books the load at once (a PASSED carrier only).",
  },
  {
    path: 'negotiation.round_to',
    label: 'Round amounts to (dollars)',
    kind: 'number',
    meaning: 'Amounts the agent puts forward are rounded down to a multiple of this.',
  },
];

const SIGNALS = [
  'shared_contact',
  'stale_census',
  'no_power_units',
  'insurance_below_required',
  'insurance_cancellation_pending',
  'contact_changed_recently',
  'contact_mismatch',
  'free_mail',
] as const;

const VETTING: readonly SettingField[] = [
  {
    path: 'strict_mode',
    label: 'Strict mode',
    kind: 'boolean',
    meaning:
      'Until a carrier passes (and, on an inbound call, its identity is verified), the agent shares no load detail and books nothing with it.',
  },
  {
    path: 'required_liability_usd',
    label: 'Required liability (USD)',
    kind: 'number',
    meaning: 'Liability coverage on file below this is the signal insurance_below_required.',
  },
  {
    path: 'census_max_age_months',
    label: 'Census age limit (months)',
    kind: 'number',
    meaning: 'An MCS-150 census update older than this is the signal stale_census.',
  },
  {
    path: 'contact_change_days',
    label: 'Recent contact change (days)',
    kind: 'number',
    meaning:
      'A census phone, e-mail or address changed within this many days is the signal contact_changed_recently.',
  },
  ...SIGNALS.map(
    (code): SettingField => ({
      path: `signals.${code}`,
      label: `Signal ${code.replaceAll('_', ' ')}`,
      kind: 'choice',
      options: ['block', 'review', 'ignore'],
      meaning: 'block: never contacted or booked; review: contacted, never booked automatically; ignore.',
    }),
  ),
];

/** The agent's settings (cadence and negotiation) and the vetting policy. */
export function AgentSection() {
  const can = useCan();
  const settings = useAgentSettings();
  const update = useUpdateAgentSettings();
  const policy = useVettingPolicy();
  const updatePolicy = useUpdateVettingPolicy();
  return (
    <>
      <section aria-labelledby="agent-h">
        <h2 id="agent-h">The agent</h2>
        <Problem error={settings.error} />
        {settings.data ? (
          <PolicyForm
            title="Agent settings"
            fields={[...CADENCE, ...NEGOTIATION]}
            value={settings.data}
            editable={can('PATCH /api/v1/agent/settings')}
            saving={update.isPending}
            error={update.error}
            onSave={(patch, done) => update.mutate(patch, { onSuccess: done })}
          />
        ) : null}
      </section>
      <section aria-labelledby="vetting-policy-h">
        <h2 id="vetting-policy-h">Vetting policy</h2>
        <Problem error={policy.error} />
        {policy.data ? (
          <PolicyForm
            title="Vetting policy"
            fields={VETTING}
            value={policy.data}
            editable={can('PATCH /api/v1/compliance-policy')}
            saving={updatePolicy.isPending}
            error={updatePolicy.error}
            onSave={(patch, done) => updatePolicy.mutate(patch, { onSuccess: done })}
          />
        ) : null}
      </section>
    </>
  );
}
