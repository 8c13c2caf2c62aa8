import { sized, smoke } from './lib/harness.js';
import { type Figure, recordResults } from './lib/results.js';
import { simServer } from './outcomes/databases.js';
import { type Figures, figuresOf } from './outcomes/figures.js';
import { buildMarket, type Market } from './outcomes/market.js';
import { type Policy, runPolicy } from './outcomes/run-policy.js';

/**
 * The agent's outcomes in a simulated market: carriers with private reservation prices spread
 * around a lane's market rate, time zones, answer rates and delays by channel and tier, some
 * without a usable address, some that must never be contacted. Each policy below runs the real
 * agent end to end on the same market (same seed), one fresh database each, on compressed
 * simulated time (see outcomes/sim-clock.ts): the organization, carriers, lanes and settings
 * through the API, loads handed to the agent through the API as they arrive over business days,
 * the agent's worker round by round, the carriers answering through the inbound e-mail webhook,
 * the WhatsApp channel and the voice platform's tool calls. Prints one table, a column per policy,
 * and exits non-zero on any forbidden contact.
 *
 * BENCH_OUTCOMES_LOADS (1,000; smoke 30), BENCH_OUTCOMES_CARRIERS (600; smoke 45),
 * BENCH_OUTCOMES_LANES (16; smoke 5), BENCH_OUTCOMES_DAYS (5; smoke 1), BENCH_OUTCOMES_MAX_LEAD_HOURS
 * (longest pickup lead: 72; smoke 12), BENCH_OUTCOMES_SEED (32),
 * BENCH_OUTCOMES_POLICIES (comma-separated names; all), BENCH_DATABASE_URL (else embedded).
 */

/**
 * The policies compared, first the baseline. Each is a PATCH /agent/settings body over the
 * defaults, plus what it changes on the carriers (fields of their POST /carriers/batch items).
 * Automatic booking at or under the posted rate is on in both:
 * otherwise every offer waits for a rep, and the market has none.
 * - "today": the contact and negotiation rules as they were before planning around the clock, one
 *   conversation per carrier and the conceding policy (no gap between a carrier's contacts, no
 *   lane grouping, one counter at the posted rate). The planner's fixes that have no setting
 *   (quiet hours never hold a load, an unreachable carrier is skipped once) apply to it too; the
 *   code before those changes can be measured by running this file on an older commit.
 * - "new": the defaults, with booking at or under the agent's own ask switched on as well.
 * - "new-no-follow-up" (only when named): "new" without following up carriers that did not answer
 *   about urgent loads (follow_up_unanswered_minutes 0), the comparison that follow-up rests on.
 * - "new-wider" (only when named in BENCH_OUTCOMES_POLICIES): "new" with the earlier default
 *   concession schedule (3/6/10/15% instead of 2/4/6/10%), the comparison the default rests on.
 * - "new-later" (only when named): "new" conceding nothing until 12 hours before pickup, then 4%,
 *   8% from 6 hours: a lower booked rate for fewer loads covered (its row in docs/performance.md).
 */
export const POLICIES: Policy[] = [
  {
    name: 'today',
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      carrier_min_gap_minutes: 0,
      group_lane_loads: false,
      negotiation: { strategy: 'posted_rate_once' },
    },
  },
  {
    name: 'new',
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      negotiation: { auto_accept_at_or_under_ask: true },
    },
  },
  {
    name: 'new-no-follow-up',
    optional: true,
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      follow_up_unanswered_minutes: 0,
      negotiation: { auto_accept_at_or_under_ask: true },
    },
  },
  {
    name: 'new-wider',
    optional: true,
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      negotiation: {
        auto_accept_at_or_under_ask: true,
        concession_schedule: [
          { min_hours_to_pickup: 72, max_concession_pct: 3 },
          { min_hours_to_pickup: 24, max_concession_pct: 6 },
          { min_hours_to_pickup: 6, max_concession_pct: 10 },
          { min_hours_to_pickup: 0, max_concession_pct: 15 },
        ],
      },
    },
  },
  {
    name: 'new-later',
    optional: true,
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      negotiation: {
        auto_accept_at_or_under_ask: true,
        concession_schedule: [
          { min_hours_to_pickup: 12, max_concession_pct: 0 },
          { min_hours_to_pickup: 6, max_concession_pct: 4 },
          { min_hours_to_pickup: 0, max_concession_pct: 8 },
        ],
      },
    },
  },
  {
    name: 'new-cap5',
    optional: true,
    settings: {
      auto_accept_at_or_under_posted_rate: true,
      daily_cap_per_carrier: 5,
      negotiation: { auto_accept_at_or_under_ask: true },
    },
  },
];

const LOADS = sized('BENCH_OUTCOMES_LOADS', 1000, 30);
const CARRIERS = sized('BENCH_OUTCOMES_CARRIERS', 600, 45);
const LANES = sized('BENCH_OUTCOMES_LANES', 16, 5);
const DAYS = sized('BENCH_OUTCOMES_DAYS', 5, 1);
const MAX_LEAD_HOURS = sized('BENCH_OUTCOMES_MAX_LEAD_HOURS', 72, 12);
const SEED = Number(process.env.BENCH_OUTCOMES_SEED ?? 32);

export async function run() {
  const chosen = process.env.BENCH_OUTCOMES_POLICIES?.split(',').map((s) => s.trim());
  const policies = chosen
    ? POLICIES.filter((p) => chosen.includes(p.name))
    : POLICIES.filter((p) => !p.optional);
  if (!policies.length) throw new Error(`no policy named ${chosen}; known: ${POLICIES.map((p) => p.name)}`);
  const market = buildMarket(SEED, {
    loads: LOADS,
    carriers: CARRIERS,
    lanes: LANES,
    days: DAYS,
    maxLeadHours: MAX_LEAD_HOURS,
  });
  console.log(
    `market: seed ${SEED}, ${LOADS} loads over ${DAYS} business day(s), ${CARRIERS} carriers on ${LANES} lanes`,
  );
  const server = await simServer();
  const results: { policy: Policy; figures: Figures; wall: number; failures: string[] }[] = [];
  try {
    for (const policy of policies) {
      const { database, clock } = await server.database(policy.name, market.start);
      const { result, close } = await runPolicy(database, clock, market, policy);
      try {
        const figures = await figuresOf(market, result);
        results.push({ policy, figures, wall: result.wallSeconds, failures: result.failures });
        console.log(
          `  ${policy.name}: ${result.wallSeconds.toFixed(0)} s, ${result.agentRounds} agent rounds, ${figures.booked} booked`,
        );
      } finally {
        await close();
      }
    }
  } finally {
    await server.close();
  }
  printTable(market, results);
  await recordResults(
    'agent-outcomes',
    results.flatMap((r) => headline(`${r.policy.name} (${market.loads.length} loads)`, r.figures)),
  );
  for (const r of results) {
    console.log(
      `\n${r.policy.name}: last planning outcome of uncovered loads ${JSON.stringify(r.figures.diagnostics.uncoveredOutcomes)}`,
    );
    console.log(
      `${r.policy.name}: carriers skipped while planning, by reason ${JSON.stringify(r.figures.diagnostics.skipReasons)}`,
    );
    console.log(
      `${r.policy.name}: booked / handed by arrival hour (Chicago) ${JSON.stringify(r.figures.diagnostics.byArrivalHour)}; by hours to pickup ${JSON.stringify(r.figures.diagnostics.byLeadHours)}; booked at or under the posted rate ${r.figures.diagnostics.atPosted}; carriers never contacted about an uncovered load (load, carrier pairs) ${JSON.stringify(r.figures.diagnostics.missedCarriers)}, by the time they could have been (in hours, under the cap, while the load was open) ${JSON.stringify(r.figures.diagnostics.missedWindow)}`,
    );
  }
  for (const r of results) {
    const why = r.figures.diagnostics.missedWhy;
    console.log(
      `${r.policy.name}: why those carriers were never contacted (cause / last skip reason recorded for the pair) ${JSON.stringify(why.causes)}`,
    );
    if (why.examples.length) console.log(`${r.policy.name}: examples\n  ${why.examples.join('\n  ')}`);
  }
  const forbidden = results.flatMap((r) =>
    Object.entries(r.figures.forbidden)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${r.policy.name}: ${k} ${n}`),
  );
  const failures = results.flatMap((r) => r.failures.slice(0, 5).map((f) => `${r.policy.name}: ${f}`));
  if (failures.length) console.log(`\ninbound requests refused:\n${failures.join('\n')}`);
  for (const r of results) {
    if (r.figures.wrongExamples.length) {
      console.log(
        `\n${r.policy.name}: offers at an amount the carrier never said, examples:\n${r.figures.wrongExamples.join('\n')}`,
      );
    }
    if (r.figures.forbiddenExamples.length) {
      console.log(
        `\n${r.policy.name}: forbidden contacts, examples:\n${r.figures.forbiddenExamples.join('\n')}`,
      );
    }
  }
  if (forbidden.length) throw new Error(`forbidden contacts: ${forbidden.join('; ')}`);
  if (smoke && failures.length) throw new Error('the service refused some of the carriers’ answers');
}

/** A policy's headline figures; a figure the run could not compute (no booking) is left out. */
function headline(policy: string, f: Figures): Figure[] {
  const n = (v: number | null) => v ?? Number.NaN;
  return [
    { name: `${policy}: booked before pickup`, value: 100 * f.coverage, unit: '%' },
    { name: `${policy}: time to cover p50 (simulated)`, value: n(f.ttcP50Min), unit: 'min' },
    { name: `${policy}: time to cover p90 (simulated)`, value: n(f.ttcP90Min), unit: 'min' },
    { name: `${policy}: booked rate / ceiling, median`, value: 100 * n(f.rateToCeilingP50), unit: '%' },
    { name: `${policy}: booked rate / ceiling, p90`, value: 100 * n(f.rateToCeilingP90), unit: '%' },
    { name: `${policy}: contacts per booking`, value: n(f.contactsPerBooking), unit: '' },
    { name: `${policy}: loads offered per contact`, value: n(f.loadsPerContact), unit: '' },
    {
      name: `${policy}: most conversations one carrier got in 10 minutes`,
      value: f.maxConversations10Min,
      unit: '',
    },
    {
      name: `${policy}: uncovered loads with a reachable carrier never contacted`,
      value: f.leftUncontacted,
      unit: '',
      target: '0',
    },
    {
      name: `${policy}: forbidden contacts`,
      value: Object.values(f.forbidden).reduce((a, b) => a + b, 0),
      unit: '',
      target: '0',
    },
  ];
}

const pctText = (n: number | null) => (n === null ? 'n/a' : `${(n * 100).toFixed(1)}%`);
const num = (n: number | null, digits = 1) => (n === null ? 'n/a' : n.toFixed(digits));
const minutes = (n: number | null) =>
  n === null ? 'n/a' : n < 120 ? `${Math.round(n)} min` : `${(n / 60).toFixed(1)} h`;

function printTable(market: Market, results: { policy: Policy; figures: Figures }[]) {
  const rows: [string, (f: Figures) => string][] = [
    ['loads handed to the agent', (f) => String(f.loads)],
    ['booked before pickup', (f) => `${f.booked} (${pctText(f.coverage)})`],
    ['loads with an eligible carrier willing at or under the ceiling', (f) => String(f.willingLoads)],
    ['coverage of those loads', (f) => pctText(f.coverageOfWilling)],
    ['time to cover p50 / p90 (simulated)', (f) => `${minutes(f.ttcP50Min)} / ${minutes(f.ttcP90Min)}`],
    [
      'booked rate / ceiling, median / p90',
      (f) => `${pctText(f.rateToCeilingP50)} / ${pctText(f.rateToCeilingP90)}`,
    ],
    [
      'booked rate / market, median / p90',
      (f) => `${pctText(f.rateToMarketP50)} / ${pctText(f.rateToMarketP90)}`,
    ],
    ['contacts (sent) / per booking', (f) => `${f.contacts} / ${num(f.contactsPerBooking)}`],
    [
      'carriers’ answers written / offers recorded at an amount the carrier never said',
      (f) => `${f.answers} / ${f.wrongAmounts}`,
    ],
    ['loads offered per contact (mean)', (f) => num(f.loadsPerContact, 2)],
    ['carrier offers per booking (all carriers)', (f) => num(f.offersPerBooking)],
    ['rounds in the booking conversation (mean)', (f) => num(f.roundsPerBooking, 2)],
    ['contacts per carrier per hour, p99', (f) => String(f.perCarrierHourP99)],
    [
      'most separate conversations one carrier got in 10 minutes (counting failed placements too)',
      (f) => `${f.maxConversations10Min} (${f.maxContacts10Min})`,
    ],
    [
      'uncovered loads with an eligible, reachable carrier never contacted while in its hours and under its cap',
      (f) => String(f.leftUncontacted),
    ],
    [
      'uncovered loads with an offer within the ceiling left pending for a rep',
      (f) => String(f.pendingForRep),
    ],
    ...(
      [
        'stop_contact',
        'restricted_or_blocked',
        'daily_cap',
        'quiet_hours',
        'recontact_window',
        'above_ceiling',
      ] as const
    ).map((k): [string, (f: Figures) => string] => [
      `forbidden: ${k.replace(/_/g, ' ')} (must be 0)`,
      (f) => String(f.forbidden[k]),
    ]),
  ];
  console.log(
    `\n### Agent outcomes in a simulated market (seed ${market.seed}: ${market.loads.length} loads, ${market.carriers.length} carriers, ${market.lanes.length} lanes)\n`,
  );
  console.log(`| figure | ${results.map((r) => r.policy.name).join(' | ')} |`);
  console.log(`| --- | ${results.map(() => '---:').join(' | ')} |`);
  for (const [label, value] of rows)
    console.log(`| ${label} | ${results.map((r) => value(r.figures)).join(' | ')} |`);
  console.log(
    `\n\`npm run bench -- agent-outcomes\`${smoke ? ' (BENCH_SMOKE=1: figures mean nothing)' : ''}`,
  );
}
