import type pg from 'pg';
import type { Db } from '../../db/client.js';
import { type LaggedReads, onPrimary } from '../../db/replicas.js';
import { notFound, unprocessable } from '../../domain/errors.js';
import { OPEN_LOAD_STATUSES } from '../../domain/freight.js';
import type { OrgScope } from '../../domain/scope.js';
import type { Clock } from '../../lib/clock.js';
import { formatCsv } from '../../lib/csv.js';
import { readerAgreement } from '../agent/index.js';
import { type LoadStanding, loadStanding, timelineRows } from '../read-side/index.js';
import { type ResultSums, resultSums, ZERO_SUMS } from './results-repository.js';
import type {
  Activity,
  ActivityStatus,
  ResultGroup,
  ResultRow,
  ResultsQuery,
  TimelineEntry,
} from './results-schemas.js';

const DAY_MS = 86_400_000;
/** The default period: the last 30 days. */
const DEFAULT_DAYS = 30;
/** A period longer than this is refused: results are for reading, not for exporting history whole. */
const MAX_DAYS = 400;
/** Timeline entries shown at most. */
const TIMELINE_LIMIT = 1000;

const ratio = (n: number, d: number) => (d > 0 ? n / d : null);
const round = (v: number | null, digits = 4) => (v === null ? null : Number(v.toFixed(digits)));

/** Whether the principal may see margins (as for the loads' customer_rate and margin). */
const seesMargins = (scope: OrgScope) =>
  scope.principal.kind !== 'bearer' || scope.principal.role === 'OWNER' || scope.principal.role === 'ADMIN';

function toRow(s: ResultSums, margins: boolean): ResultRow {
  const contacts = {
    call: s.contacts_call,
    email: s.contacts_email,
    whatsapp: s.contacts_whatsapp,
    total: s.contacts_call + s.contacts_email + s.contacts_whatsapp,
  };
  return {
    group: s.group,
    loads_handed: s.loads_handed,
    booked_by_agent: s.booked_by_agent,
    booked_by_user_after_contact: s.booked_by_user_after_contact,
    booked_by_user_without_contact: s.booked_by_user_without_contact,
    covered: s.covered,
    coverage_rate: round(ratio(s.covered, s.loads_handed)),
    agent_coverage_rate: round(ratio(s.booked_by_agent, s.loads_handed)),
    time_to_cover_p50_seconds: round(s.ttc_p50, 3),
    time_to_cover_p90_seconds: round(s.ttc_p90, 3),
    booking_lead_time_p50_seconds: round(s.lead_p50, 3),
    booked_vs_posted_median: round(s.vs_posted),
    booked_vs_posted_count: s.vs_posted_n,
    booked_vs_market_median: round(s.vs_market),
    booked_vs_market_count: s.vs_market_n,
    booked_vs_max_buy_median: round(s.vs_max),
    booked_vs_max_buy_count: s.vs_max_n,
    booked_above_max_buy: s.above_max,
    booked_above_max_buy_rate: round(ratio(s.above_max, s.vs_max_n)),
    agent_booked_above_max_buy: s.agent_above_max,
    margin_pct_median: margins ? round(s.margin) : null,
    margin_count: margins ? s.margin_n : null,
    contacts,
    contacts_per_booking: {
      call: round(ratio(contacts.call, s.covered)),
      email: round(ratio(contacts.email, s.covered)),
      whatsapp: round(ratio(contacts.whatsapp, s.covered)),
      total: round(ratio(contacts.total, s.covered)),
    },
    connects: s.connects,
    connect_rate: round(ratio(s.connects, contacts.total)),
    offers: s.offers,
    offers_per_load: round(ratio(s.offers, s.loads_handed)),
    rounds: s.rounds,
    rounds_per_booking: round(ratio(s.rounds, s.covered)),
    bookings: s.bookings,
    fall_offs: s.fall_offs,
    fall_off_rate: round(ratio(s.fall_offs, s.bookings)),
    loads_with_handoff: s.with_handoff,
    handoff_rate: round(ratio(s.with_handoff, s.loads_handed)),
  };
}

/** The CSV columns: every figure of a row, nested ones flattened (`contacts_call`, ...). */
function csvOf(rows: ResultRow[]): string {
  const flat = rows.map((row) => {
    const { contacts, contacts_per_booking, ...rest } = row;
    return {
      ...rest,
      contacts_call: contacts.call,
      contacts_email: contacts.email,
      contacts_whatsapp: contacts.whatsapp,
      contacts_total: contacts.total,
      contacts_per_booking_call: contacts_per_booking.call,
      contacts_per_booking_email: contacts_per_booking.email,
      contacts_per_booking_whatsapp: contacts_per_booking.whatsapp,
      contacts_per_booking_total: contacts_per_booking.total,
    };
  });
  const header = Object.keys(flat[0] ?? toRow({ ...ZERO_SUMS }, true));
  return formatCsv(
    header,
    // The header lists the row's own keys, whose values are strings, numbers or null.
    flat.map((r) => header.map((h) => (r as Record<string, string | number | null>)[h] ?? null)),
  );
}

/**
 * What the agent achieves (GET /agent/results) and what it is doing on one load
 * (GET /loads/{id}/agent-activity): a read side over the ledger and the records of the agent's work.
 */
export class AgentResultsService {
  constructor(
    private readonly db: Db,
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    private readonly reads: LaggedReads = onPrimary(db),
  ) {}

  async results(scope: OrgScope, q: ResultsQuery) {
    const to = q.to ?? this.clock.now();
    const from = q.from ?? new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
    if (from >= to) throw unprocessable('validation_error', '`from` must be before `to`', 'from', 'query');
    if (to.getTime() - from.getTime() > MAX_DAYS * DAY_MS) {
      throw unprocessable(
        'validation_error',
        `The period may span at most ${MAX_DAYS} days`,
        'from',
        'query',
      );
    }
    const groupBy: ResultGroup | null = q.group_by ?? null;
    const sums = await resultSums(this.pool, scope.organizationId, { from, to }, groupBy);
    // Without a grouping there is always one row, zeros included.
    const rows = (groupBy || sums.length ? sums : [{ ...ZERO_SUMS }]).map((s) =>
      toRow(s, seesMargins(scope)),
    );
    const reading = await readerAgreement(this.pool, scope.organizationId, { from, to });
    return { from, to, group_by: groupBy, data: rows, reading };
  }

  resultsCsv(result: { data: ResultRow[] }): string {
    return csvOf(result.data);
  }

  async activity(scope: OrgScope, loadId: string): Promise<Activity> {
    const [standing, rows] = await this.reads.read(scope, async (db) => [
      await loadStanding(db, scope.organizationId, loadId),
      await timelineRows<TimelineEntry['kind']>(db, scope.organizationId, loadId, TIMELINE_LIMIT),
    ]);
    if (!standing) throw notFound('Load', loadId, 'load_id');
    const timeline: TimelineEntry[] = rows.map((r) => ({
      at: new Date(r.at),
      kind: r.kind,
      wave: r.wave,
      carrier_id: r.carrier_id,
      carrier_name: r.carrier_name,
      channel: r.channel,
      tier: r.tier,
      reason: r.reason,
      outreach_id: r.outreach_id,
      offer_id: r.offer_id,
      amount: r.amount === null ? null : Number(r.amount),
    }));
    if (standing.handed_at) {
      timeline.unshift({
        at: standing.handed_at,
        kind: 'handed',
        wave: null,
        carrier_id: null,
        carrier_name: null,
        channel: null,
        tier: null,
        reason: null,
        outreach_id: null,
        offer_id: null,
        amount: null,
      });
    }
    return {
      load_id: loadId,
      ...statusOf(standing, this.clock.now()),
      handed_at: standing.handed_at,
      timeline,
    };
  }
}

type Status = Pick<Activity, 'status' | 'status_reason' | 'next_wave_at' | 'paused_until'>;

const status = (s: ActivityStatus, reason: string | null, extra: Partial<Status> = {}): Status => ({
  status: s,
  status_reason: reason,
  next_wave_at: null,
  paused_until: null,
  ...extra,
});

/** Whether the load is in a status the agent works. */
const isOpenStatus = (status: string | null) =>
  status !== null && OPEN_LOAD_STATUSES.some((open) => open === status);

/** Where the agent stands on the load, most decisive fact first. */
function statusOf(s: LoadStanding, now: Date): Status {
  if (s.booked) return status('booked', 'an offer on the load is accepted');
  if (!s.assigned) return status('not_workable', 'the load is not assigned to the agent');
  if (!s.agent_enabled) return status('not_workable', "the organization's agent is switched off");
  if (!isOpenStatus(s.load_status)) {
    return status('not_workable', `the load is ${s.load_status ?? 'without a status'}, not open for booking`);
  }
  if (s.offers_for_review > 0) {
    return status('offers_pending_review', `${s.offers_for_review} offer(s) wait for a rep's decision`);
  }
  if (s.active > 0) return status('contacting', `${s.active} contact(s) wait for the carrier's answer`);
  if (s.queued > 0) {
    if (s.queued_from && s.queued_from > now) {
      return status('paused', 'quiet hours: the queued contacts wait for them to end', {
        paused_until: s.queued_from,
      });
    }
    return status('contacting', `${s.queued} contact(s) about to be sent`);
  }
  if (s.last_outcome === 'no_eligible_carriers') return status('no_eligible_carriers', s.last_decision);
  if (s.last_outcome === 'exhausted') return status('exhausted', s.last_decision);
  return status('waiting_for_wave', s.last_decision ?? 'the agent takes the load up in its next round', {
    next_wave_at: s.next_wave_at,
  });
}
